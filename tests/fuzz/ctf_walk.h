/* ctf_walk: reads every event of a trace the way the analyses do, for the CTF fuzz
 * targets: per stream with a cursor (every payload decoded, field by field too, array
 * elements, enum labels, context keys), then all streams merged. */
#ifndef TRACER_FUZZ_CTF_WALK_H
#define TRACER_FUZZ_CTF_WALK_H

#include "ctf.h"

/* Stops a stream after this many events and errors (a fuzz input is small; this only
 * bounds time). */
enum { CTF_WALK_MAX_EVENTS = 100000 };

void ctf_walk_trace(const struct ctf_trace *trace);

#endif
