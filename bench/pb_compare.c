/* pb_compare: one slice's begin packet of the timeline (five arguments, as a call of
 * clGetPlatformIDs has) encoded 5M times through protobuf-c (from cli/timeline/timeline.proto
 * by protoc-c) and through the timeline's own encoder (cli/timeline/pb.c), into the same
 * bytes: why the timeline does not use protobuf-c (docs/timeline.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "timeline.pb-c.h"
#include "pb.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void) {
  enum { N = 5000000 };
  uint8_t *out = malloc(1 << 20);
  size_t used = 0, total = 0;
  double t0 = now();
  for (int i = 0; i < N; i++) {
    Perfetto__Protos__DebugAnnotation a[5];
    Perfetto__Protos__DebugAnnotation *ap[5];
    for (int k = 0; k < 5; k++) { perfetto__protos__debug_annotation__init(&a[k]); ap[k] = &a[k]; }
    a[0].has_name_iid = 1; a[0].name_iid = 1; a[0].has_uint_value = 1; a[0].uint_value = i;
    a[1].has_name_iid = 1; a[1].name_iid = 2; a[1].has_pointer_value = 1; a[1].pointer_value = 0x7ffd5e66af78;
    a[2].has_name_iid = 1; a[2].name_iid = 3; a[2].has_pointer_value = 1; a[2].pointer_value = 0;
    a[3].has_name_iid = 1; a[3].name_iid = 4; a[3].string_value = "CL_SUCCESS";
    a[4].has_name_iid = 1; a[4].name_iid = 5; a[4].has_uint_value = 1; a[4].uint_value = 1;
    Perfetto__Protos__TrackEvent e; perfetto__protos__track_event__init(&e);
    e.has_type = 1; e.type = 1; e.has_track_uuid = 1; e.track_uuid = 3; e.has_name_iid = 1; e.name_iid = 1;
    e.n_debug_annotations = 5; e.debug_annotations = ap;
    Perfetto__Protos__TracePacket p; perfetto__protos__trace_packet__init(&p);
    p.has_timestamp = 1; p.timestamp = 1795450293250215336ull + i; p.has_trusted_packet_sequence_id = 1;
    p.trusted_packet_sequence_id = 1; p.has_sequence_flags = 1; p.sequence_flags = 2; p.track_event = &e;
    size_t n = perfetto__protos__trace_packet__get_packed_size(&p);
    if (used + n + 16 > (1 << 20)) { total += used; used = 0; }
    out[used++] = 0x0a; /* Trace.packet */
    size_t len = n; do { out[used++] = (uint8_t)(len | (len >= 128 ? 0x80 : 0)); len >>= 7; } while (len);
    used += perfetto__protos__trace_packet__pack(&p, out + used);
  }
  double t1 = now();
  total += used; size_t pbc_bytes = total;
  struct pb packet = {0}, trace = {0};
  total = 0;
  double t2 = now();
  for (int i = 0; i < N; i++) {
    pb_reset(&packet);
    pb_varint(&packet, 8, 1795450293250215336ull + i);
    pb_varint(&packet, 10, 1);
    pb_varint(&packet, 13, 2);
    size_t ev = pb_begin(&packet, 11);
    pb_varint(&packet, 9, 1); pb_varint(&packet, 11, 3); pb_varint(&packet, 10, 1);
    size_t m;
    m = pb_begin(&packet, 4); pb_varint(&packet, 1, 1); pb_varint(&packet, 3, i); pb_end(&packet, m);
    m = pb_begin(&packet, 4); pb_varint(&packet, 1, 2); pb_varint(&packet, 7, 0x7ffd5e66af78); pb_end(&packet, m);
    m = pb_begin(&packet, 4); pb_varint(&packet, 1, 3); pb_varint(&packet, 7, 0); pb_end(&packet, m);
    m = pb_begin(&packet, 4); pb_varint(&packet, 1, 4); pb_string(&packet, 6, "CL_SUCCESS"); pb_end(&packet, m);
    m = pb_begin(&packet, 4); pb_varint(&packet, 1, 5); pb_varint(&packet, 3, 1); pb_end(&packet, m);
    pb_end(&packet, ev);
    pb_bytes(&trace, 1, packet.data, packet.len);
    if (trace.len > (1 << 20)) { total += trace.len; pb_reset(&trace); }
  }
  double t3 = now();
  total += trace.len;
  printf("protobuf-c: %.1f ns/packet (%zu bytes); pb.c: %.1f ns/packet (%zu bytes)\n",
         (t1 - t0) / N * 1e9, pbc_bytes, (t3 - t2) / N * 1e9, total);
  free(out);
  pb_free(&packet);
  pb_free(&trace);
  return pbc_bytes == total ? 0 : 1; /* the same bytes, or the comparison is void */
}
