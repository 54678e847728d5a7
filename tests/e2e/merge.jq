# Adds up the manifests of several processes (jq -s): the tally of a tracer run over a
# process tree counts them all.
def addmaps: reduce .[] as $m ({}; reduce ($m // {} | to_entries[]) as $e (.; .[$e.key] += $e.value));
{
  processes: (map(.processes) | add),
  threads: (map(.threads) | add),
  calls: (map(.calls) | addmaps),
  errors: (map(.errors) | add),
  failed: (map(.failed) | addmaps),
  bytes: (map(.bytes) | addmaps),
  transfers: (map(.transfers) | addmaps),
  kernels: (map(.kernels) | addmaps)
}
