/* Tracepoint provider for the CTF reader test: one event per field kind that LTTng-UST
 * 2.13 can record, so the reader's output can be compared with babeltrace2's for each. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ctf_test
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ctf_test_tp.h"

#if !defined(CTF_TEST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CTF_TEST_TP_H

#include <lttng/tracepoint.h>
#include <stddef.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_ENUM(ctf_test, color,
  LTTNG_UST_TP_ENUM_VALUES(
    lttng_ust_field_enum_value("RED", 0)
    lttng_ust_field_enum_value("GREEN", 1)
    lttng_ust_field_enum_range("BLUES", 10, 20)
    lttng_ust_field_enum_auto("AFTER_BLUES")
    lttng_ust_field_enum_range("OVERLAP", 15, 16)))

LTTNG_UST_TRACEPOINT_ENUM(ctf_test, signed_level,
  LTTNG_UST_TP_ENUM_VALUES(
    lttng_ust_field_enum_range("NEGATIVE", -100, -1)
    lttng_ust_field_enum_value("ZERO", 0)
    lttng_ust_field_enum_range("POSITIVE", 1, 100)))

/* Integers of every width and signedness, decimal, hex and network byte order. */
LTTNG_UST_TRACEPOINT_EVENT(ctf_test, integers,
  LTTNG_UST_TP_ARGS(int64_t, s, uint64_t, u),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int8_t, s8, (int8_t)s)
    lttng_ust_field_integer(int16_t, s16, (int16_t)s)
    lttng_ust_field_integer(int32_t, s32, (int32_t)s)
    lttng_ust_field_integer(int64_t, s64, s)
    lttng_ust_field_integer(uint8_t, u8, (uint8_t)u)
    lttng_ust_field_integer(uint16_t, u16, (uint16_t)u)
    lttng_ust_field_integer(uint32_t, u32, (uint32_t)u)
    lttng_ust_field_integer(uint64_t, u64, u)
    lttng_ust_field_integer_hex(uint8_t, x8, (uint8_t)u)
    lttng_ust_field_integer_hex(uint16_t, x16, (uint16_t)u)
    lttng_ust_field_integer_hex(uint32_t, x32, (uint32_t)u)
    lttng_ust_field_integer_hex(uint64_t, x64, u)
    lttng_ust_field_integer_hex(int32_t, sx32, (int32_t)s)
    lttng_ust_field_integer_network(int16_t, n16, (int16_t)s)
    lttng_ust_field_integer_network(uint32_t, n32, (uint32_t)u)
    lttng_ust_field_integer_network(int64_t, n64, s)
    lttng_ust_field_integer_network_hex(uint32_t, nx32, (uint32_t)u)
    lttng_ust_field_integer(char, ch, (char)s)
    lttng_ust_field_integer(long, lng, (long)s)))

LTTNG_UST_TRACEPOINT_EVENT(ctf_test, enums,
  LTTNG_UST_TP_ARGS(int, c, int, level),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_enum(ctf_test, color, int, color, c)
    lttng_ust_field_enum(ctf_test, color, uint8_t, color8, (uint8_t)c)
    lttng_ust_field_enum(ctf_test, signed_level, int64_t, level, level)))

LTTNG_UST_TRACEPOINT_EVENT(ctf_test, floats,
  LTTNG_UST_TP_ARGS(float, f, double, d),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_float(float, f, f)
    lttng_ust_field_float(double, d, d)))

LTTNG_UST_TRACEPOINT_EVENT(ctf_test, strings,
  LTTNG_UST_TP_ARGS(const char *, s, const char *, t),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_string(s, s)
    lttng_ust_field_integer(uint8_t, between, 7)
    lttng_ust_field_string(t, t)))

/* Arrays and sequences; `len` elements of `v` are recorded by the sequences. */
LTTNG_UST_TRACEPOINT_EVENT(ctf_test, arrays,
  LTTNG_UST_TP_ARGS(const int32_t *, v, size_t, len, const char *, text, unsigned, tlen),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_array(int32_t, arr, v, 4)
    lttng_ust_field_array_hex(uint16_t, arr_hex, (const uint16_t *)v, 3)
    lttng_ust_field_array_network(uint32_t, arr_net, (const uint32_t *)v, 2)
    lttng_ust_field_array_network_hex(uint32_t, arr_net_hex, (const uint32_t *)v, 2)
    lttng_ust_field_array_text(char, arr_text, text, 8)
    lttng_ust_field_sequence(int32_t, seq, v, size_t, len)
    lttng_ust_field_sequence_hex(uint8_t, seq_hex, (const uint8_t *)v, uint8_t, len)
    lttng_ust_field_sequence_network(int16_t, seq_net, (const int16_t *)v, uint16_t, len)
    lttng_ust_field_sequence_network_hex(uint64_t, seq_net_hex, (const uint64_t *)v,
                                         unsigned, len / 2)
    lttng_ust_field_sequence_text(char, seq_text, text, unsigned, tlen)
    lttng_ust_field_sequence(int64_t, seq_empty, (const int64_t *)v, uint32_t, 0)))

LTTNG_UST_TRACEPOINT_EVENT(ctf_test, empty,
  LTTNG_UST_TP_ARGS(),
  LTTNG_UST_TP_FIELDS())

/* Many of these make packets roll over and the compact timestamps wrap. */
LTTNG_UST_TRACEPOINT_EVENT(ctf_test, tick,
  LTTNG_UST_TP_ARGS(uint64_t, n),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(uint64_t, n, n)))

#endif /* CTF_TEST_TP_H */

#include <lttng/tracepoint-event.h>
