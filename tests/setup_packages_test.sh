#!/bin/sh
# Every header a spec parses (api-specs/ and the corpus tests' specs), and every header
# those include, comes from a Debian package that scripts/setup.sh installs or from one
# of their dependencies: a fresh Debian 12 has nothing else. Headers outside any package
# (the CUDA toolkit in /usr/local/cuda, the project's own api-specs/include) are left out.
# Usage: setup_packages_test.sh APIGEN SOURCE_DIR
set -eu
apigen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$2"
command -v dpkg-query >/dev/null && command -v apt-cache >/dev/null ||
  { echo "SKIP: not a Debian system (no dpkg-query or apt-cache)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The list in setup.sh, and everything it pulls in (virtual packages named as <name>).
sed -n '/^packages="/,/^"/p' scripts/setup.sh | sed 's/packages="//; s/"//' | tr -s ' \n' '\n' |
  grep -v '^$' >"$tmp/listed"
[ -s "$tmp/listed" ] || { echo "FAIL: no package list found in scripts/setup.sh"; exit 1; }
# shellcheck disable=SC2046
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances $(cat "$tmp/listed") 2>/dev/null | grep -v '^ ' | tr -d '<>' |
  sort -u >"$tmp/closure"
grep -qx "$(head -1 "$tmp/listed")" "$tmp/closure" ||
  { echo "FAIL: apt-cache gave no dependency closure for the setup list"; exit 1; }

# Every file each spec's headers include, as "SPEC FILE" lines: one preprocessor run a
# spec, over all its headers, with the flags apigen parses them with.
for spec in api-specs/*.yaml tests/corpus/*.yaml; do
  cflags=$("$apigen" --quiet --print-cflags --spec "$spec" 2>/dev/null) || continue
  list=$("$apigen" --quiet --print headers --spec "$spec")
  [ -n "$list" ] || { echo "FAIL: $spec: no headers found"; exit 1; }
  # shellcheck disable=SC2086
  printf '#include <%s>\n' $list | cpp -H -x c $cflags - -o /dev/null 2>&1 >/dev/null |
    sed -n 's/^\.\.* //p' | sort -u | xargs -r readlink -f | sed "s|^|$spec |"
done | sort -u >"$tmp/used"
cut -d' ' -f2 "$tmp/used" | sort -u >"$tmp/files"
headers=$(wc -l <"$tmp/files")
[ "$headers" -gt 50 ] || { echo "FAIL: only $headers headers found: the check did not run"; exit 1; }
# One query for all files: "package[:arch]: file" for those that a package owns.
# shellcheck disable=SC2046
dpkg-query -S $(cat "$tmp/files") 2>/dev/null | sed 's/:[a-z0-9]*: /: /' >"$tmp/owners" || true
# The owner of each file (none: the CUDA toolkit, the project's own) against the closure,
# in one pass.
awk -v owners="$tmp/owners" -v closure="$tmp/closure" '
  BEGIN {
    while ((getline line < owners) > 0) {
      i = index(line, ": ")
      if (!(substr(line, i + 2) in owner)) owner[substr(line, i + 2)] = substr(line, 1, i - 1)
    }
    while ((getline line < closure) > 0) installed[line] = 1
  }
  ($2 in owner) && !(owner[$2] in installed) {
    print "FAIL: " $1 ": " $2 " comes from " owner[$2] ", which scripts/setup.sh does not install"
    failed = 1
  }
  END { exit failed }' "$tmp/used" && status=0 || status=1
[ "$status" -eq 0 ] && echo "every one of $headers headers the specs parse comes from a package scripts/setup.sh installs"
exit $status
