/* omp_own_tool: an app's own OMPT tool, for the tests. It counts target constructs, kernel
 * submits and data transfers (with their bytes) and, when the OpenMP runtime finalizes
 * it, writes the counts to $OWN_TOOL_REPORT. Built as a library named in
 * OMP_TOOL_LIBRARIES (the tracer's tool must chain to it), or linked into the program
 * itself (where the runtime starts it instead of the tracer's, which must say so).
 */
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>

static int targets, submits, to_calls, from_calls;
static long long to_bytes, from_bytes;

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                      ompt_data_t *task_data, ompt_data_t *target_task_data,
                      ompt_data_t *target_data, const void *codeptr_ra) {
  (void)kind, (void)device_num, (void)task_data, (void)target_task_data, (void)target_data;
  (void)codeptr_ra;
  targets += endpoint == ompt_scope_begin;
}

static void on_submit(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                      ompt_id_t *host_op_id, unsigned int requested_num_teams) {
  (void)target_data, (void)host_op_id, (void)requested_num_teams;
  submits += endpoint == ompt_scope_begin;
}

static void on_data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                       ompt_data_t *target_data, ompt_id_t *host_op_id,
                       ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                       void *dest_addr, int dest_device_num, size_t bytes,
                       const void *codeptr_ra) {
  (void)target_task_data, (void)target_data, (void)host_op_id, (void)src_addr;
  (void)src_device_num, (void)dest_addr, (void)dest_device_num, (void)codeptr_ra;
  if (endpoint != ompt_scope_begin)
    return;
  if (optype == ompt_target_data_transfer_to_device) {
    to_calls++;
    to_bytes += (long long)bytes;
  } else if (optype == ompt_target_data_transfer_from_device) {
    from_calls++;
    from_bytes += (long long)bytes;
  }
}

static int own_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                          ompt_data_t *tool_data) {
  (void)initial_device_num, (void)tool_data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  return set && set(ompt_callback_target_emi, (ompt_callback_t)on_target) == ompt_set_always &&
         set(ompt_callback_target_submit_emi, (ompt_callback_t)on_submit) == ompt_set_always &&
         set(ompt_callback_target_data_op_emi, (ompt_callback_t)on_data_op) == ompt_set_always;
}

static void own_finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  const char *path = getenv("OWN_TOOL_REPORT");
  FILE *out = path ? fopen(path, "w") : NULL;
  if (!out)
    return;
  fprintf(out,
          "{\"targets\": %d, \"submits\": %d, \"to\": {\"calls\": %d, \"bytes\": %lld},"
          " \"from\": {\"calls\": %d, \"bytes\": %lld}}\n",
          targets, submits, to_calls, to_bytes, from_calls, from_bytes);
  fclose(out);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {own_initialize, own_finalize, {0}};
  return &result;
}
