/* self_check: `tracer --check` (or `tracer doctor`): cli/check/ reports whether a trace
 * would work on this node; the command lends it what a run would use. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "commands.h"

int command_self_check(const struct tracer_options *o, const char *version) {
  char *home = traces_home();
  char *plugin = trace_clock_plugin(o);
  struct check_request request = {
      .version = version,
      .trace_output = o->trace_output,
      .trace_home = home,
      .monotonic_clock = o->monotonic_clock,
      .clock_plugin = plugin,
      .find_library = find_library,
  };
  int rc = check_run(&request, stdout);
  free(plugin);
  free(home);
  return rc;
}
