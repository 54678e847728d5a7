/* lttng_ctl_library: liblttng-ctl (LTTng's session control), loaded when a command first
 * talks to a session daemon (dlopen, loaded_library.h), not linked: recording, --check,
 * tracer -r of a run whose tracer was killed (its sessions flushed). A replay of a trace
 * never loads it, nor what it pulls in (libstdc++, libxml2, ICU: some 14% of the start-up
 * of `tracer -r` went to relocating them, issue 48).
 *
 * The control's files include this header instead of <lttng/lttng.h>: the functions they
 * call are names of the table's entries (the defines at the end). A function missing from
 * the list fails to link, since nothing links liblttng-ctl. Each public entry of the
 * control that talks to a daemon calls lttng_ctl_library_load() first (session_begin,
 * session_daemon_ensure, ...); the others run only after one of those. Library code: no
 * messages. */
#ifndef TRACER_LTTNG_CTL_LIBRARY_H
#define TRACER_LTTNG_CTL_LIBRARY_H

#include <lttng/lttng.h>

#include "diag.h"

/* The functions the tracer calls, each resolved by its own name. */
#define LTTNG_CTL_LIBRARY_FUNCTIONS(X) \
  X(lttng_add_context) \
  X(lttng_channel_create) \
  X(lttng_channel_destroy) \
  X(lttng_channel_get_discarded_event_count) \
  X(lttng_channel_get_lost_packet_count) \
  X(lttng_channel_set_blocking_timeout) \
  X(lttng_create_handle) \
  X(lttng_create_session_ext) \
  X(lttng_data_pending) \
  X(lttng_destroy_handle) \
  X(lttng_destroy_session_no_wait) \
  X(lttng_enable_channel) \
  X(lttng_enable_event_with_exclusions) \
  X(lttng_list_channels) \
  X(lttng_list_sessions) \
  X(lttng_process_attr_tracker_handle_destroy) \
  X(lttng_process_attr_tracker_handle_set_tracking_policy) \
  X(lttng_process_attr_virtual_process_id_tracker_handle_add_pid) \
  X(lttng_session_daemon_alive) \
  X(lttng_session_descriptor_destroy) \
  X(lttng_session_descriptor_local_create) \
  X(lttng_session_get_tracker_handle) \
  X(lttng_start_tracing) \
  X(lttng_stop_tracing_no_wait) \
  X(lttng_strerror)

struct lttng_ctl_library {
#define LTTNG_CTL_LIBRARY_ENTRY(name) __typeof__(name) *name;
  LTTNG_CTL_LIBRARY_FUNCTIONS(LTTNG_CTL_LIBRARY_ENTRY)
#undef LTTNG_CTL_LIBRARY_ENTRY
};

extern struct lttng_ctl_library lttng_ctl_library;

/* Loads liblttng-ctl and resolves the table, once (later calls return the first answer):
 * 0, or -1 with a cause in d (`Cannot talk to an LTTng session daemon: liblttng-ctl.so.0:
 * cannot open shared object file: ... (... install the Debian package liblttng-ctl0)`). */
int lttng_ctl_library_load(struct diag *d);
/* The soname it loads ("liblttng-ctl.so.0"). */
const char *lttng_ctl_library_soname(void);

#ifndef LTTNG_CTL_LIBRARY_LOADER
#define lttng_add_context lttng_ctl_library.lttng_add_context
#define lttng_channel_create lttng_ctl_library.lttng_channel_create
#define lttng_channel_destroy lttng_ctl_library.lttng_channel_destroy
#define lttng_channel_get_discarded_event_count lttng_ctl_library.lttng_channel_get_discarded_event_count
#define lttng_channel_get_lost_packet_count lttng_ctl_library.lttng_channel_get_lost_packet_count
#define lttng_channel_set_blocking_timeout lttng_ctl_library.lttng_channel_set_blocking_timeout
#define lttng_create_handle lttng_ctl_library.lttng_create_handle
#define lttng_create_session_ext lttng_ctl_library.lttng_create_session_ext
#define lttng_data_pending lttng_ctl_library.lttng_data_pending
#define lttng_destroy_handle lttng_ctl_library.lttng_destroy_handle
#define lttng_destroy_session_no_wait lttng_ctl_library.lttng_destroy_session_no_wait
#define lttng_enable_channel lttng_ctl_library.lttng_enable_channel
#define lttng_enable_event_with_exclusions lttng_ctl_library.lttng_enable_event_with_exclusions
#define lttng_list_channels lttng_ctl_library.lttng_list_channels
#define lttng_list_sessions lttng_ctl_library.lttng_list_sessions
#define lttng_process_attr_tracker_handle_destroy lttng_ctl_library.lttng_process_attr_tracker_handle_destroy
#define lttng_process_attr_tracker_handle_set_tracking_policy lttng_ctl_library.lttng_process_attr_tracker_handle_set_tracking_policy
#define lttng_process_attr_virtual_process_id_tracker_handle_add_pid lttng_ctl_library.lttng_process_attr_virtual_process_id_tracker_handle_add_pid
#define lttng_session_daemon_alive lttng_ctl_library.lttng_session_daemon_alive
#define lttng_session_descriptor_destroy lttng_ctl_library.lttng_session_descriptor_destroy
#define lttng_session_descriptor_local_create lttng_ctl_library.lttng_session_descriptor_local_create
#define lttng_session_get_tracker_handle lttng_ctl_library.lttng_session_get_tracker_handle
#define lttng_start_tracing lttng_ctl_library.lttng_start_tracing
#define lttng_stop_tracing_no_wait lttng_ctl_library.lttng_stop_tracing_no_wait
#define lttng_strerror lttng_ctl_library.lttng_strerror
#endif

#endif
