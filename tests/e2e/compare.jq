# Compares a tracer tally (-j, the input) with an app's own count ($manifest[0], see
# tests/apps/cl_count.h). Prints one line per difference; nothing when they agree.
def by_name: map({key: .name, value: .}) | from_entries;
# Device rows by name, summed over the devices (a row per device and name; the app counts
# per process).
def summed_by_name: group_by(.name)
  | map({key: .[0].name, value: (.[0] + {calls: (map(.calls // 0) | add),
                                         bytes: (map(.bytes // 0) | add)})})
  | from_entries;
def show: if . == null then "absent" else tostring end;

$manifest[0] as $m
| [.backends[]? | select(.name == $backend)] as $bs
| if ($bs | length) != 1 then
    "backends: expected one backend \"\($backend)\", found \($bs | length) (names: \([.backends[]?.name] | tostring))"
  else
    $bs[0] as $b
    | ($b.host // []) as $hosts
    | ($b.device // []) as $devices
    | ($b.traffic // []) as $traffic_list
    | ($hosts | by_name) as $host
    | ([$devices[] | select(.kind == "kernel")] | summed_by_name) as $kernel
    | ([$devices[] | select(.kind == "transfer")] | summed_by_name) as $transfer
    | ($traffic_list | summed_by_name) as $traffic
    | ([$hosts[] | .errors // 0] | add // 0) as $errors
    | (
        # Host API calls: exactly the app's functions, with the app's counts.
        ($hosts | group_by(.name)[] | select(length > 1)
         | "host \(.[0].name): listed \(length) times"),
        ($m.calls | to_entries[] | select($host[.key].calls != .value)
         | "host \(.key): tally calls \($host[.key].calls | show), the app made \(.value)"),
        ($host | to_entries[] | select($m.calls[.key] == null)
         | "host \(.key): tally has \(.value.calls) calls, the app made none"),
        # Errors: the total, and per function.
        (select($errors != $m.errors)
         | "errors: tally total \($errors), the app counted \($m.errors)"),
        ($host | to_entries[] | select((.value.errors // 0) != ($m.failed[.key] // 0))
         | "host \(.key): tally errors \(.value.errors | show), the app counted \($m.failed[.key] // 0)"),
        # Kernels on the device.
        ($m.kernels | to_entries[] | select($kernel[.key].calls != .value)
         | "kernel \(.key): tally device calls \($kernel[.key].calls | show), the app launched \(.value)"),
        ($kernel | to_entries[] | select($m.kernels[.key] == null)
         | "kernel \(.key): tally has \(.value.calls) device calls, the app launched none"),
        ($devices[] | select(.kind != "kernel" and .kind != "transfer")
         | "device \(.name): unknown kind \(.kind | show)"),
        # Transfers on the device, and their bytes.
        ($m.transfers | to_entries[] | select(($transfer[.key].calls // 0) != .value)
         | "device transfer \(.key): tally \($transfer[.key].calls | show) commands, the app made \(.value)"),
        ($transfer | to_entries[] | select($m.transfers[.key] == null)
         | "device transfer \(.key): tally has \(.value.calls) commands, the app made none"),
        ($m.bytes | to_entries[] | select(($traffic[.key].bytes // 0) != .value)
         | "traffic \(.key): tally \($traffic[.key].bytes | show) bytes, the app moved \(.value)"),
        ($traffic | to_entries[] | select($m.bytes[.key] == null)
         | "traffic \(.key): tally has \(.value.bytes) bytes, the app moved none"),
        ($traffic | to_entries[] | select($m.transfers[.key] != null and .value.calls != $m.transfers[.key])
         | "traffic \(.key): tally \(.value.calls) calls, the app made \($m.transfers[.key])"),
        # Who made the calls.
        (select($b.processes != $m.processes)
         | "processes: tally \($b.processes | show), the app used \($m.processes)"),
        (select($b.threads != $m.threads)
         | "threads: tally \($b.threads | show), threads that made \($backend) calls: \($m.threads)")
      )
  end
