# check_timeline.jq: what timeline_e2e_test.sh checks in a decoded timeline (the dump
# as a JSON array of tracks, slices and counter values) against the app's manifest
# ($m) and the tally of the same trace ($tally); prints one line per problem.
  ($m[0]) as $m
  | [.[] | select(.type == "track")] as $tracks
  | ($tracks | map({key: (.uuid | tostring), value: .}) | from_entries) as $by
  | [.[] | select(.type == "slice")] as $slices
  | [$slices[] | select($by[.track | tostring].kind == "t")] as $calls
  | [$slices[] | select($by[.track | tostring].kind == "n")] as $device
  | [ # tracks
      (if ([$tracks[] | select(.kind == "t")] | length) != $m.threads then
         "thread tracks: \([$tracks[] | select(.kind == "t")] | length), app threads: \($m.threads)" else empty end),
      ($tracks[] | select(.kind == "t") | . as $t
       | if $by[$t.parent] .kind != "p" or ($by[$t.parent].pid != $t.pid) then "thread track \($t.uuid) not under its process" else empty end),
      ($tracks[] | select(.kind == "p") | if $by[.parent].parent != "0" then "process \(.pid) not under a host" else empty end),
      # calls per function
      ($m.calls | to_entries[] | . as $e
       | ([$calls[] | select(.name == $e.key)] | length) as $n
       | if $n != $e.value then "\($e.key): \($n) slices, app made \($e.value) calls" else empty end),
      ([$calls[].name] | unique[] | select(($m.calls[.] // 0) == 0) | "slices of \(.) the app never called"),
      # durations against the tally of the same trace
      ($tally[0].backends[] | select(.name == "opencl") | .host[] | . as $h
       | ([$calls[] | select(.name == $h.name) | .end - .start] | add // 0) as $sum
       | if ($sum - $h.time_ns) > $h.calls * 2 or ($h.time_ns - $sum) > $h.calls * 2 then
           "\($h.name): slices last \($sum) ns in all, the tally says \($h.time_ns) ns" else empty end),
      # kernels and copies
      ($m.kernels | to_entries[] | . as $e | ([$device[] | select(.name == $e.key)] | length) as $n
       | if $n != $e.value then "kernel \($e.key): \($n) device slices, app launched \($e.value)" else empty end),
      ($m.transfers | to_entries[] | . as $e
       | [$device[] | select(.args | test("call=\($e.key);"))] as $x
       | if ($x | length) != $e.value then "\($e.key): \($x | length) copies, app made \($e.value)"
         elif ([$x[] | .args | capture("bytes=(?<b>[0-9]+);").b | tonumber] | add // 0) != $m.bytes[$e.key] then
           "\($e.key): copies move other bytes than the app \($m.bytes[$e.key])" else empty end),
      # flows
      ($device[] | . as $d
       | [$calls[] | select(.flow_out == $d.flow_in)] as $src
       | if ($src | length) != 1 then "device slice \($d.name) at \($d.start): \($src | length) calls start its flow"
         elif $src[0].start > $d.start then "device slice \($d.name) starts before the call that submitted it"
         elif ($d.name | startswith("copy")) and ($d.args | test("call=\($src[0].name);") | not) then
           "copy at \($d.start) flows from \($src[0].name)"
         elif ($d.name | startswith("copy") | not) and $src[0].name != "clEnqueueNDRangeKernel" and $src[0].name != "clEnqueueTask" then
           "kernel \($d.name) flows from \($src[0].name)"
         # the right call, not one of its kind: the call enqueued on this very queue
         elif ($src[0].args | test("command_queue=")) and
              ($by[$d.track | tostring].name | ascii_downcase
               | contains($src[0].args | capture("command_queue=(?<q>0x[0-9a-fA-F]+)").q | ascii_downcase) | not) then
           "device slice \($d.name) at \($d.start) on \($by[$d.track | tostring].name) flows from a call on another queue: \($src[0].args)"
         else empty end),
      # memory
      (if $mode == "default" then
         ([.[] | select(.type == "counter")]) as $c
         | (($m.calls.clCreateBuffer // 0) - ($m.failed.clCreateBuffer // 0) + ($m.calls.clReleaseMemObject // 0) - ($m.failed.clReleaseMemObject // 0)) as $want
         | if ($c | length) != $want then "memory counter: \($c | length) values, want \($want)"
           elif ($c | length) > 0 and $c[-1].value != 0 then "memory counter ends at \($c[-1].value), not 0"
           else empty end
       else empty end)
    ] | .[]
