/* missing_packets: what the tracer says of the packets a trace should hold and does not
 * (struct trace_losses, trace_reader.h), per stream: how many, their size, about how
 * many events they held, when, and what the trace's index or sequence numbers say of
 * them; each packet of the index on a line of its own (at most 8 a stream: -j lists every
 * one). */
#ifndef TRACER_MISSING_PACKETS_H
#define TRACER_MISSING_PACKETS_H

#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"

/* The lines, each ending in '\n', into out (cut with "...\n" when longer). */
void missing_packets_describe(const struct trace_losses *losses, char *out, size_t size);

#endif
