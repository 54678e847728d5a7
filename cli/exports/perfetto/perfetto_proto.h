/* Field numbers of Perfetto's public trace proto (protos/perfetto/trace/, proto2) that
 * the timeline writes; timeline.proto in this folder is the same subset as a .proto
 * description, for protoc --decode. */
#ifndef TRACER_PERFETTO_PROTO_H
#define TRACER_PERFETTO_PROTO_H

enum {
  TRACE_PACKET = 1, /* Trace.packet */

  PACKET_TIMESTAMP = 8,
  PACKET_SEQUENCE_ID = 10, /* trusted_packet_sequence_id */
  PACKET_TRACK_EVENT = 11,
  PACKET_INTERNED_DATA = 12,
  PACKET_SEQUENCE_FLAGS = 13,
  PACKET_TRACK_DESCRIPTOR = 60,
  PACKET_MACHINE_ID = 98, /* uint32: the machine the packet's data comes from */

  SEQ_INCREMENTAL_STATE_CLEARED = 1,
  SEQ_NEEDS_INCREMENTAL_STATE = 2,

  INTERNED_EVENT_NAMES = 2, /* InternedData.event_names: EventName {iid = 1, name = 2} */
  INTERNED_ANNOTATION_NAMES = 3, /* debug_annotation_names: DebugAnnotationName, same */
  EVENT_NAME_IID = 1,
  EVENT_NAME_NAME = 2,

  TRACK_UUID = 1,
  TRACK_NAME = 2,
  TRACK_PROCESS = 3,
  TRACK_THREAD = 4,
  TRACK_PARENT_UUID = 5,
  TRACK_COUNTER = 8,

  PROCESS_PID = 1,
  PROCESS_NAME = 6,
  THREAD_PID = 1,
  THREAD_TID = 2,
  THREAD_NAME = 5,
  COUNTER_UNIT = 3, /* CounterDescriptor.Unit: 1 time ns, 2 count, 3 size bytes */

  EVENT_DEBUG_ANNOTATIONS = 4,
  EVENT_TYPE = 9, /* 1 slice begin, 2 slice end, 3 instant, 4 counter */
  EVENT_NAME_IID_FIELD = 10,
  EVENT_TRACK_UUID = 11,
  EVENT_CATEGORIES = 22,
  EVENT_NAME_FIELD = 23,
  EVENT_DOUBLE_COUNTER_VALUE = 44,
  EVENT_FLOW_IDS = 47,             /* fixed64 */
  EVENT_TERMINATING_FLOW_IDS = 48, /* fixed64 */

  ANNOTATION_NAME_IID = 1,
  ANNOTATION_UINT = 3,
  ANNOTATION_INT = 4,
  ANNOTATION_DOUBLE = 5,
  ANNOTATION_STRING = 6,
  ANNOTATION_POINTER = 7,
  ANNOTATION_NAME = 10,

  TYPE_SLICE_BEGIN = 1,
  TYPE_SLICE_END = 2,
  TYPE_INSTANT = 3,
  TYPE_COUNTER = 4,
};

#endif
