# check_backend.jq: what timeline_backend_test.sh checks in a decoded timeline (the dump
# as a JSON array of tracks, slices and counter values) against the app's manifest ($m),
# for backend $backend, and the tally of the same trace ($tally); one line per problem.
def count_by(f): reduce .[] as $x ({}; .[$x | f] += 1);
def diff_counts($what; $got; $want):
  ($want | to_entries[] | select(($got[.key] // 0) != .value)
   | "\($what) \(.key): \($got[.key] // 0) in the timeline, the app made \(.value)"),
  ($got | to_entries[] | select($want[.key] == null)
   | "\($what) \(.key): \(.value) in the timeline, the app made none");
# The app's manifest as counts of calls, kernels and copies (OpenMP's and ITT's apps
# count in their own terms).
def expectation:
  if $backend == "omp" then
    {calls: {ompt_callback_target_submit_emi: .submits,
             ompt_callback_target_emi: (.target + .target_enter_data + .target_update + .target_exit_data),
             ompt_callback_target_data_op_emi: (.alloc + .delete + .transfer_to_device.calls + .transfer_from_device.calls)},
     kernels: {ompt_callback_target_submit_emi: .submits},
     transfers: {"ompt_callback_target_data_op_emi:transfer_to_device": .transfer_to_device.calls,
                 "ompt_callback_target_data_op_emi:transfer_from_device": .transfer_from_device.calls}}
  elif $backend == "itt" then {calls: {__itt_task_begin: .task_begin_recorded}, regions: .regions}
  else . end;
def thread_of($by): # a thread track's tid, or that of the thread whose lane it is
  $by[.track | tostring] as $t
  | if $t.kind == "t" then $t.tid
    elif ($t.name | test("^thread [0-9]+ #")) then ($t.name | capture("^thread (?<n>[0-9]+)").n)
    else null end;

  ($m[0] | expectation) as $x
  | [.[] | select(.type == "track")] as $tracks
  | ($tracks | map({key: (.uuid | tostring), value: .}) | from_entries) as $by
  | [.[] | select(.type == "slice") | . + {tid: thread_of($by)}] as $slices
  | [$slices[] | select(.tid != null and (.args | test("^backend=[a-z]+;depth=") | not))] as $calls
  | [$slices[] | select(.tid != null and (.args | test("^backend=[a-z]+;depth=")))
     | . + {depth: (.args | capture("depth=(?<d>[0-9]+)").d | tonumber),
            own: ($by[.track | tostring].kind == "t")}] as $regions
  | [$slices[] | select($by[.track | tostring].name | test("^queue "))] as $device
  | ($tally[0].backends[] | select(.name == $backend)) as $b
  | [ # tracks
      ($tracks[] | select(.kind == "t") | . as $t
       | if $by[$t.parent].kind != "p" or $by[$t.parent].pid != $t.pid then "thread track \($t.uuid) not under its process" else empty end),
      ($tracks[] | select(.kind == "p") | if $by[.parent].parent != "0" then "process \(.pid) not under a host" else empty end),
      ([$tracks[] | select(.kind == "p")] | length) as $p
       | (if $ranks > 0 then $ranks else 1 end) as $want
       | if $p != $want then "\($p) process tracks, the app ran \($want) processes" else empty end,
      ([$tracks[] | select(.kind == "t")] | length) as $t
       | ([$tally[0].backends[].threads] | max) as $want
       | if $t != $want then "\($t) thread tracks, the tally counts \($want) threads" else empty end,
      # calls
      diff_counts("calls of"; [$calls[] | select(.name as $n | $x.calls | has($n))] | count_by(.name); $x.calls),
      # device work
      (if $x.kernels then
         diff_counts("kernel"; [$device[] | select(.args | test("bytes=") | not)] | count_by(.name); $x.kernels)
       else empty end),
      (if $x.transfers then
         diff_counts("copy"; [$device[] | select(.args | test("bytes="))
                              | (.args | capture("command=(?<c>[^;]+);").c) // (.args | capture("call=(?<c>[^;]+);").c)]
                             | count_by(.); $x.transfers)
       else empty end),
      # Level Zero: a regular command list run again runs its commands again, which no
      # call submitted anew (their flow starts at the append, into the first run).
      ([$device[] | select(.flow_in as $f | [$calls[] | select(.flow_out == $f)] | length == 0)] | length) as $sourceless
       | (if $backend == "ze" then ($device | length) - ([$x.calls | to_entries[] | select(.key | test("^zeCommandListAppend")) | .value] | add) else 0 end) as $reruns
       | if $sourceless != $reruns then "\($sourceless) device slices without a call starting their flow, want \($reruns)" else empty end,
      ($device[] | . as $d
       | [$calls[] | select(.flow_out == $d.flow_in)] as $src
       | if ($src | length) > 1 then "device slice \($d.name) at \($d.start): \($src | length) calls start its flow"
         elif ($src | length) == 0 then empty
         elif ($d.args | test("call=")) and
              (($d.args | capture("call=(?<c>[^;:]+)").c) != $src[0].name) then
           "device slice \($d.name) (\($d.args)) flows from \($src[0].name)"
         else empty end),
      # regions
      (if $x.regions then
         ($x.regions | to_entries[] | .key as $k | .value as $w
          | [$regions[] | select(.name == $k)] as $r
          | ([$b.regions[] | select(.name == $k)][0]) as $t
          | if ($r | length) != $w.calls then "region \($k): \($r | length) slices, the app made \($w.calls)"
            elif ($r | map(select(.depth != $w.depth)) | length) > 0 then "region \($k): not all at depth \($w.depth)"
            elif ($r | map(.end - .start) | min) < $w.min_ns then "region \($k): a slice shorter than the app slept"
            elif $t == null then "region \($k): not in the tally"
            elif (($r | map(.end - .start) | add) - $t.time_ns | fabs) > $w.calls
                 or (($r | map(.end - .start) | min) - $t.min_ns | fabs) > 1
                 or (($r | map(.end - .start) | max) - $t.max_ns | fabs) > 1 then
              "region \($k): the timeline's times differ from the tally's"
            else empty end),
         ($regions[] | select(.depth > 0) | . as $in
          | if [$regions[] | select(.tid == $in.tid and .depth == $in.depth - 1 and .start <= $in.start and $in.end <= .end)] | length == 0
            then "region \($in.name) at \($in.start) is inside no region of depth \($in.depth - 1) on its thread" else empty end),
         ([$regions[] | select(.own)] | length) as $own
          | if $own * 2 < ($regions | length) then "only \($own) of \($regions | length) regions on their thread's own track" else empty end,
         ($regions[] | select(.own) | . as $r
          # drawn from 1 ns before its opening call (a mark: 1 ns long)
          | if [$calls[] | select(.track == $r.track and .start == $r.start + 1 and (.end <= $r.end or $r.end == $r.start + 1))] | length == 0
            then "region \($r.name) at \($r.start): no call that opened it nested inside" else empty end)
       else empty end)
    ] | .[]
