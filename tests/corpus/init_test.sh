#!/bin/sh
# A library nobody tuned the tracer for (tests/corpus/init/libraries.txt): `apigen --init`
# writes its spec from its headers alone, and that spec, unedited, must build, trace a
# program (a Debian one, or a client of init/ built here) and count every call the program
# makes and every error, as ltrace's calls and return values say: errors under the spec's
# rules, and under what the library's documentation calls an error (init/documented/NAME
# .yaml, written by hand), so a rule apigen got wrong fails too (scripts/try-backend.sh,
# scripts/ltrace_compare.py).
# Usage: init_test.sh BUILD NAME
set -eu
[ $# -eq 2 ] || { echo "usage: $0 BUILD NAME" >&2; exit 2; }
build=$(cd "$1" && pwd) name=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
line=$(sed -n "s/^$name: //p" "$here/init/libraries.txt")
[ -n "$line" ] || { echo "FAIL: no library $name in init/libraries.txt" >&2; exit 1; }
headers=${line%% | *} command=${line#* | }
for h in $headers; do
  [ -f "/usr/include/$h" ] || { echo "SKIP: /usr/include/$h is not installed (scripts/setup.sh)"; exit 77; }
done
command -v ltrace >/dev/null || { echo "SKIP: ltrace not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086
"$build/bin/apigen" --init $headers -o "$tmp/$name.yaml"
spec=$tmp/$name.yaml
mkdir -p "$tmp/in"
i=0
while [ $i -lt 2000 ]; do echo "line $i of a text that compresses well"; i=$((i + 1)); done \
  >"$tmp/in/text.txt"
printf '<?xml version="1.0"?>\n<notes><note id="1">one</note><note id="2">two</note></notes>\n' \
  >"$tmp/in/doc.xml"
if [ "$command" = CLIENT ]; then
  # shellcheck disable=SC2046
  cc -w $("$build/bin/apigen" --spec "$spec" --print-cflags) "$here/init/$name.c" -o "$tmp/client" \
    -l:"$("$build/bin/apigen" --spec "$spec" --print library)"
  run=$tmp/client
else
  program=${command%% *}
  command -v "$program" >/dev/null || { echo "SKIP: $program not installed"; exit 77; }
  case $command in *image.webp*)
    command -v cwebp >/dev/null || { echo "SKIP: cwebp not installed"; exit 77; }
    { printf 'P6\n16 16\n255\n'; i=0; while [ $i -lt 256 ]; do printf '\120\200\40'; i=$((i + 1)); done; } \
      >"$tmp/in/image.ppm"
    cwebp -quiet "$tmp/in/image.ppm" -o "$tmp/in/image.webp" ;;
  esac
  run=$(echo "$command" | sed "s|INPUT|$tmp/in|g")
fi
# The backend is built and thrown away: its sources' layout is no part of the check.
# shellcheck disable=SC2086
CLANG_FORMAT=$here/unformatted.sh BUILD=$build "$root/scripts/try-backend.sh" --documented "$here/init/documented/$name.yaml" \
  "$spec" $run >"$tmp/compare.txt" 2>&1 ||
  { cat "$spec" "$tmp/compare.txt" >&2; echo "FAIL: $name: traced from its --init spec, counts or errors differ from ltrace's" >&2; exit 1; }
cat "$tmp/compare.txt"
echo "$name: the spec apigen --init wrote, unedited: $(tail -n 1 "$tmp/compare.txt")"
