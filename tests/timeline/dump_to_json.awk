# dump_to_json.awk: pftrace_dump's lines as JSON lines (one object per track, slice and
# counter value), for jq -s. Shared by the timeline tests.
function kv(s,   i, out, parts, n, k) {
  n = split(s, parts, " "); out = ""
  for (i = 2; i <= n; i++) { k = index(parts[i], "="); if (k) out = out sprintf(",\"%s\":\"%s\"", substr(parts[i], 1, k - 1), substr(parts[i], k + 1)) }
  return out
}
$1 == "track" { name = $0; sub(/.* name=/, "", name); line = $0; sub(/ name=.*/, "", line)
  printf "{\"type\":\"track\",\"uuid\":\"%s\"%s,\"name\":\"%s\"}\n", $2, kv(line), name }
$1 == "slice" { name = $0; sub(/.* name=/, "", name); args = name; sub(/ args=.*/, "", name); sub(/^.* args=/, "", args)
  printf "{\"type\":\"slice\",\"track\":\"%s\",\"start\":%s,\"end\":%s%s,\"name\":\"%s\",\"args\":\"%s\"}\n", $2, $3, $4, kv($5 " " $5 " " $6), name, args }
$1 == "counter" { printf "{\"type\":\"counter\",\"track\":\"%s\",\"ts\":%s,\"value\":%s}\n", $2, $3, $4 }
