/* pb_compare: one slice's begin packet of the timeline (five arguments, as a call of
 * clGetPlatformIDs has) encoded 5M times through protobuf-c (code made by protoc-c from
 * cli/exports/perfetto/timeline.proto) and through the timeline's own encoder (cli/exports/perfetto/pb.c),
 * into the same bytes: why the timeline does not use protobuf-c (docs/timeline.md).
 * Prints both costs per packet; exits 1 when the two outputs differ in size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb.h"
#include "timeline.pb-c.h"

enum { N = 5000000, CHUNK = 1 << 20 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The packet as protobuf-c builds it: messages filled, sized, then packed, each packet
 * framed as a Trace.packet field. Returns the bytes written. */
static size_t with_protobuf_c(uint8_t *out) {
  size_t used = 0, total = 0;
  for (int i = 0; i < N; i++) {
    Perfetto__Protos__DebugAnnotation a[5], *ap[5];
    for (int k = 0; k < 5; k++) {
      perfetto__protos__debug_annotation__init(&a[k]);
      ap[k] = &a[k];
      a[k].has_name_iid = 1;
      a[k].name_iid = (uint64_t)k + 1;
    }
    a[0].has_uint_value = a[4].has_uint_value = 1;
    a[0].uint_value = (uint64_t)i;
    a[4].uint_value = 1;
    a[1].has_pointer_value = a[2].has_pointer_value = 1;
    a[1].pointer_value = 0x7ffd5e66af78;
    a[2].pointer_value = 0;
    a[3].string_value = "CL_SUCCESS";
    Perfetto__Protos__TrackEvent e;
    perfetto__protos__track_event__init(&e);
    e.has_type = e.has_track_uuid = e.has_name_iid = 1;
    e.type = 1;
    e.track_uuid = 3;
    e.name_iid = 1;
    e.n_debug_annotations = 5;
    e.debug_annotations = ap;
    Perfetto__Protos__TracePacket p;
    perfetto__protos__trace_packet__init(&p);
    p.has_timestamp = p.has_trusted_packet_sequence_id = p.has_sequence_flags = 1;
    p.timestamp = 1795450293250215336ull + (uint64_t)i;
    p.trusted_packet_sequence_id = 1;
    p.sequence_flags = 2;
    p.track_event = &e;
    size_t n = perfetto__protos__trace_packet__get_packed_size(&p);
    if (used + n + 16 > CHUNK) {
      total += used;
      used = 0;
    }
    out[used++] = 0x0a; /* Trace.packet, length-delimited */
    for (size_t len = n;; len >>= 7) {
      out[used++] = (uint8_t)(len | (len >= 128 ? 0x80 : 0));
      if (len < 128)
        break;
    }
    used += perfetto__protos__trace_packet__pack(&p, out + used);
  }
  return total + used;
}

static void annotation(struct pb *p, uint64_t name_iid, uint32_t field, uint64_t value) {
  size_t m = pb_begin(p, 4);
  pb_varint(p, 1, name_iid);
  pb_varint(p, field, value);
  pb_end(p, m);
}

/* The same packet through pb.c, as cli/exports/perfetto/perfetto.c writes it. */
static size_t with_pb(void) {
  struct pb packet = {0}, trace = {0};
  size_t total = 0;
  for (int i = 0; i < N; i++) {
    pb_reset(&packet);
    pb_varint(&packet, 8, 1795450293250215336ull + (uint64_t)i);
    pb_varint(&packet, 10, 1);
    pb_varint(&packet, 13, 2);
    size_t ev = pb_begin(&packet, 11);
    pb_varint(&packet, 9, 1);
    pb_varint(&packet, 11, 3);
    pb_varint(&packet, 10, 1);
    annotation(&packet, 1, 3, (uint64_t)i);
    annotation(&packet, 2, 7, 0x7ffd5e66af78);
    annotation(&packet, 3, 7, 0);
    size_t m = pb_begin(&packet, 4);
    pb_varint(&packet, 1, 4);
    pb_string(&packet, 6, "CL_SUCCESS");
    pb_end(&packet, m);
    annotation(&packet, 5, 3, 1);
    pb_end(&packet, ev);
    pb_bytes(&trace, 1, packet.data, packet.len);
    if (trace.len > CHUNK) {
      total += trace.len;
      pb_reset(&trace);
    }
  }
  total += trace.len;
  pb_free(&packet);
  pb_free(&trace);
  return total;
}

int main(void) {
  uint8_t *out = malloc(CHUNK);
  if (!out)
    return 1;
  double t0 = now();
  size_t protobuf_c_bytes = with_protobuf_c(out);
  double t1 = now();
  size_t pb_bytes_written = with_pb();
  double t2 = now();
  printf("protobuf-c: %.1f ns/packet (%zu bytes); pb.c: %.1f ns/packet (%zu bytes)\n",
         (t1 - t0) / N * 1e9, protobuf_c_bytes, (t2 - t1) / N * 1e9, pb_bytes_written);
  free(out);
  return protobuf_c_bytes == pb_bytes_written ? 0 : 1;
}
