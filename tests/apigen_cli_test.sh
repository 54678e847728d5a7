#!/bin/sh
# apigen's command line: help, version, usage errors and exit statuses, and how a bare
# spec name is found.
# Usage: apigen_cli_test.sh APIGEN SOURCE_DIR
# ok() only prints, so `test && ok ... || fail ...` is an if-then-else here.
# shellcheck disable=SC2015
set -eu
[ $# -eq 2 ] || { echo "usage: $0 APIGEN SOURCE_DIR" >&2; exit 2; }
apigen=$1
src=$(cd "$2" && pwd)
case $apigen in /*) ;; *) apigen=$(pwd)/$apigen ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# run EXPECTED_STATUS ARGS...: runs apigen, keeps stdout and stderr in $tmp/out, $tmp/err.
run() {
  want=$1
  shift
  got=0
  "$apigen" "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
  if [ "$got" -ne "$want" ]; then
    fail "apigen $*: exit status $got, expected $want"
    sed 's/^/  stderr: /' "$tmp/err" >&2
    return 1
  fi
  return 0
}

# --help: exit 0, on stdout, naming every main option.
if run 0 --help; then
  missing=
  for opt in --spec --all --output --stdout --check-source --print-cflags --quiet --version; do
    grep -q -- "$opt" "$tmp/out" || missing="$missing $opt"
  done
  if [ -n "$missing" ]; then fail "--help does not mention:$missing"; else ok "--help lists the options"; fi
  [ ! -s "$tmp/err" ] || fail "--help wrote to stderr"
  cp "$tmp/out" "$tmp/help"
  if run 0 -h; then
    if cmp -s "$tmp/out" "$tmp/help"; then ok "-h is --help"; else fail "-h differs from --help"; fi
  fi
fi

# --version: the project's version, from the top-level CMakeLists.txt.
version=$(sed -n 's/^project(tracer VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || fail "cannot read the project version from $src/CMakeLists.txt"
if run 0 --version; then
  if [ "$(cat "$tmp/out")" = "apigen $version" ]; then ok "--version prints 'apigen $version'"
  else fail "--version printed '$(cat "$tmp/out")', expected 'apigen $version'"; fi
fi
if run 0 -V; then
  if [ "$(cat "$tmp/out")" = "apigen $version" ]; then ok "-V is --version"
  else fail "-V printed '$(cat "$tmp/out")'"; fi
fi

# Usage errors: status 2, a message on stderr, nothing on stdout.
if run 2; then
  if grep -q "error: Missing --spec" "$tmp/err" && [ ! -s "$tmp/out" ]; then
    ok "no arguments: exit 2, '$(head -n 1 "$tmp/err")'"
  else fail "no arguments: unexpected output: $(cat "$tmp/err")"; fi
fi
if run 2 --no-such-option; then
  if grep -q -- "--no-such-option" "$tmp/err" && grep -q "Try 'apigen --help'" "$tmp/err"; then
    ok "unknown option: exit 2, names the option and points at --help"
  else fail "unknown option: unexpected message: $(cat "$tmp/err")"; fi
fi
if run 2 --spec; then
  grep -q "Try 'apigen --help'" "$tmp/err" && ok "--spec without its argument: exit 2" ||
    fail "--spec without argument: unexpected message: $(cat "$tmp/err")"
fi
if run 2 --spec a.yaml --spec b.yaml --output "$tmp/o"; then
  grep -q "take a single --spec" "$tmp/err" && ok "--output with two specs: exit 2" ||
    fail "--output with two specs: unexpected message: $(cat "$tmp/err")"
fi
[ ! -e "$tmp/o" ] || fail "--output with two specs wrote $tmp/o"

# A spec that does not exist: status 3, a message naming it.
cd "$tmp"
if run 3 --spec no_such_backend; then
  grep -q "^no_such_backend: error: Cannot find spec" "$tmp/err" &&
    ok "unknown spec name: exit 3, '$(cat "$tmp/err")'" ||
    fail "unknown spec name: unexpected message: $(cat "$tmp/err")"
fi

# A bare name is looked up in ./api-specs/: `opencl` and `opencl.yaml` from the source
# tree give the committed model, byte for byte, like the path does.
cd "$src"
[ -f generated/opencl/model.yaml ] || fail "no generated/opencl/model.yaml in $src"
for spec in opencl opencl.yaml api-specs/opencl.yaml; do
  if run 0 --spec "$spec" --stdout; then
    if cmp -s "$tmp/out" generated/opencl/model.yaml; then
      ok "--spec $spec --stdout gives generated/opencl/model.yaml ($(wc -c <"$tmp/out") bytes)"
    else
      fail "--spec $spec --stdout differs from generated/opencl/model.yaml"
      diff -u generated/opencl/model.yaml "$tmp/out" | head -20 >&2 || true
    fi
  fi
done
# A bare name works as a positional argument and with -s as well.
for form in "-s opencl" "opencl"; do
  # shellcheck disable=SC2086
  if run 0 $form --stdout; then
    cmp -s "$tmp/out" generated/opencl/model.yaml && ok "apigen $form --stdout" ||
      fail "apigen $form --stdout differs from generated/opencl/model.yaml"
  fi
done
# --print-cflags gives the spec's defines, which the compiler needs to see the same API.
if run 0 --spec opencl --print-cflags; then
  grep -q -- "-DCL_TARGET_OPENCL_VERSION=300" "$tmp/out" && ok "--print-cflags: $(cut -c1-60 "$tmp/out")..." ||
    fail "--print-cflags lacks the spec's define: $(cat "$tmp/out")"
fi
# --output writes model.yaml there (quietly with -q) and it is the same model.
if run 0 -q --spec opencl --output "$tmp/model"; then
  [ ! -s "$tmp/err" ] || fail "-q still printed: $(cat "$tmp/err")"
  cmp -s "$tmp/model/model.yaml" generated/opencl/model.yaml &&
    ok "--output DIR writes DIR/model.yaml" || fail "--output DIR: wrong or missing model"
fi

# Generated C is laid out by clang-format (CLANG_FORMAT names the program). Without it,
# apigen says what is missing, exits 6 and writes nothing, not even the model.
export CLANG_FORMAT="$tmp/no-such-clang-format"
if run 6 -q --spec opencl --output "$tmp/unformatted"; then
  grep -q "error: Cannot format generated code: $CLANG_FORMAT not found (install the clang-format package" "$tmp/err" &&
    ok "clang-format missing: exit 6, '$(head -n 1 "$tmp/err")'" ||
    fail "clang-format missing: unexpected message: $(cat "$tmp/err")"
fi
[ ! -e "$tmp/unformatted" ] || fail "clang-format missing: apigen wrote $(ls "$tmp/unformatted")"
# A clang-format that fails: its own message is passed on.
printf '#!/bin/sh\necho "unknown key in style" >&2\nexit 1\n' >"$tmp/failing-clang-format"
chmod +x "$tmp/failing-clang-format"
export CLANG_FORMAT="$tmp/failing-clang-format"
if run 6 -q --spec opencl --output "$tmp/unformatted"; then
  grep -q "opencl_interposer.c: .*failing-clang-format exited with status 1: unknown key in style" "$tmp/err" &&
    ok "clang-format failing: exit 6, its message passed on" ||
    fail "clang-format failing: unexpected message: $(cat "$tmp/err")"
fi
[ ! -e "$tmp/unformatted" ] || fail "clang-format failing: apigen wrote $(ls "$tmp/unformatted")"
unset CLANG_FORMAT

# --print KEY reads the spec as YAML, whatever its quoting, comments or flow style: what
# scripts ask instead of reading it with sed.
cat >"$tmp/quirky.yaml" <<'YAML'
backend: "quirky"   # quoted, with a comment
library: 'libz.so.1'
headers: [ "zlib.h" ]  # flow style
defines: ["ZLIB_CONST", "Z_SOLO=1"]
select: {functions: ["deflate*"]}
trace: {}
YAML
for pair in "backend quirky" "library libz.so.1" "headers zlib.h" "trace true"; do
  key=${pair%% *} expect=${pair#* }
  if run 0 --spec "$tmp/quirky.yaml" --print "$key"; then
    [ "$(cat "$tmp/out")" = "$expect" ] && ok "--print $key: $expect" ||
      fail "--print $key printed '$(cat "$tmp/out")', expected '$expect'"
  fi
done
if run 0 --spec "$tmp/quirky.yaml" --print defines; then
  [ "$(cat "$tmp/out")" = "$(printf 'ZLIB_CONST\nZ_SOLO=1')" ] && ok "--print defines: one a line" ||
    fail "--print defines printed '$(cat "$tmp/out")'"
fi
if run 2 --spec "$tmp/quirky.yaml" --print no_such_key; then
  grep -q "Cannot print key=no_such_key" "$tmp/err" && ok "--print of an unknown key: exit 2" ||
    fail "--print no_such_key: unexpected message: $(cat "$tmp/err")"
fi
# What the build needs of a spec (library, trace.hooks, trace.runtime_parts) apigen writes
# as it reads it, quotes and flow style included, into B_build.cmake, which CMake includes
# (generated/CMakeLists.txt); a runtime part that is a path is refused, located. (The
# hooks file lives in ../runtime/hooks/ from the spec's folder.)
mkdir -p "$tmp/fx/specs" "$tmp/fx/runtime/hooks"
: >"$tmp/fx/runtime/hooks/facts_hooks.c"
cat >"$tmp/fx/specs/facts.yaml" <<'YAML'
backend: facts
library: "libz.so.1"  # quoted
headers: [zlib.h]
select: {functions: ["deflateEnd"]}
trace: {hooks: 'facts_hooks.c', runtime_parts: ["one", two]}  # flow style
YAML
if run 0 --quiet --spec "$tmp/fx/specs/facts.yaml" --templates "$src/templates" --output "$tmp/facts"; then
  grep -qx 'set(tracer_library "libz.so.1")' "$tmp/facts/facts_build.cmake" &&
    grep -qx 'set(tracer_hooks "facts_hooks.c")' "$tmp/facts/facts_build.cmake" &&
    grep -qx 'set(tracer_runtime_parts "one;two")' "$tmp/facts/facts_build.cmake" &&
    ok "B_build.cmake: library, hooks and runtime parts as the spec gives them" ||
    fail "B_build.cmake: $(cat "$tmp/facts/facts_build.cmake" 2>&1)"
fi
sed 's|"one"|"../one"|' "$tmp/fx/specs/facts.yaml" >"$tmp/fx/specs/facts_path.yaml"
if run 3 --quiet --spec "$tmp/fx/specs/facts_path.yaml" --templates "$src/templates" \
     --output "$tmp/facts_path"; then
  grep -q "facts_path.yaml:5:[0-9]*: error: Cannot use trace.runtime_parts=../one" "$tmp/err" &&
    [ ! -e "$tmp/facts_path/facts_build.cmake" ] && ok "a runtime part that is a path: refused, located" ||
    fail "a runtime part that is a path: $(cat "$tmp/err")"
fi

# --init HEADER writes a starting spec from the header alone (zstd.h: libzstd-dev, which
# scripts/setup.sh installs): library found from the package, the prefix, the library's
# own test of its size_t results, each inferred line with a comment; and the spec it
# writes is one apigen reads.
if [ -f /usr/include/zstd.h ]; then
  if run 0 --init zstd.h -o "$tmp/zstd.yaml"; then
    for words in "backend: zstd" "library: libzstd.so" 'functions: \["ZSTD_\*"\]' \
                 "is_error: ZSTD_isError" "# size_t: ZSTD_isError(), the header's own test"; do
      grep -q "$words" "$tmp/zstd.yaml" || fail "--init zstd.h: no '$words' in the spec"
    done
    [ ! -s "$tmp/out" ] || fail "--init -o FILE also wrote to stdout"
    run 0 --spec "$tmp/zstd.yaml" --print backend && [ "$(cat "$tmp/out")" = zstd ] &&
      ok "--init zstd.h -o FILE: $(grep -c . "$tmp/zstd.yaml") lines, read back by --print" ||
      fail "--init zstd.h: the spec is not read back"
  fi
  if run 0 --init zstd.h --backend myzstd; then
    grep -q "^backend: myzstd$" "$tmp/out" && ok "--init --backend NAME, to stdout" ||
      fail "--init --backend myzstd: $(head -n 5 "$tmp/out")"
  fi
else
  echo "skipped: --init zstd.h (libzstd-dev not installed)"
fi
# The comment of a rule inferred from a doc comment quotes its clause, lines joined, with
# no comment stars or doxygen commands (seccomp.h, yaml.h: libseccomp-dev, libyaml-dev).
if [ -f /usr/include/seccomp.h ] && [ -f /usr/include/yaml.h ]; then
  run 0 --init seccomp.h -o "$tmp/seccomp.yaml" && run 0 --init yaml.h -o "$tmp/yaml.yaml" &&
    grep -q '^      # its doc comment: "returns __NR_SCMP_ERROR on failure" (__NR_SCMP_ERROR = -1)$' "$tmp/seccomp.yaml" &&
    grep -q '^      seccomp_syscall_resolve_name: {type: "int", error: \[-1\]}$' "$tmp/seccomp.yaml" &&
    grep -q '^    # its doc comment: "Returns zero on success, negative values on failure"$' "$tmp/seccomp.yaml" &&
    grep -q '# its doc comment: "1 if the function succeeded, 0 on error"$' "$tmp/yaml.yaml" &&
    ok "--init quotes the doc comments' clauses" ||
    fail "--init's quotes of doc comments: $(grep -h 'doc comment' "$tmp/seccomp.yaml" "$tmp/yaml.yaml" | head -n 4)"
fi
# A size_t function whose doc comment describes a size and names no error has no status,
# though the header tests such results (lz4frame.h's LZ4F_compressBound); a function with
# no words of its own takes those of the function the header defines to return a call of
# it (webp/decode.h's inline WebPInitDecBuffer: "Returns false in case of version
# mismatch", for the exported WebPInitDecBufferInternal). liblz4-dev, libwebp-dev.
if [ -f /usr/include/lz4frame.h ] && [ -f /usr/include/webp/decode.h ]; then
  run 0 --init lz4frame.h -o "$tmp/lz4frame.yaml" && run 0 --init webp/decode.h -o "$tmp/webp.yaml" &&
    grep -q '^    exclude: \[.*LZ4F_compressBound\]$' "$tmp/lz4frame.yaml" &&
    grep -q '^    is_error: LZ4F_isError$' "$tmp/lz4frame.yaml" &&
    grep -q '# the doc comment of WebPInit[A-Za-z]*, which returns it: "Returns false in case of' "$tmp/webp.yaml" &&
    grep -q '^    error: zero$' "$tmp/webp.yaml" &&
    ok "--init: sizes by their doc comments, the words of an inline wrapper" ||
    fail "--init of lz4frame.h, webp/decode.h: $(sed -n '/^trace:/,$p' "$tmp/lz4frame.yaml" "$tmp/webp.yaml" | head -n 12)"
fi
# The header's sentences that say what a failure or success returns: expat.h's
# XML_SetParamEntityParsing "without support ... will return 0" (error zero), lzma.h's
# lzma_lzma_preset "On success, false is returned" (an lzma_bool: nonzero); a negative
# rule keeps the answers its comment lists (seccomp_arch_exist: -EEXIST "if it is not
# present"), not where the comment names success (seccomp_arch_add); an enum constant whose
# doc comment says lzma_code goes on normally after it is none for lzma_code only
# (LZMA_UNSUPPORTED_CHECK). libexpat1-dev, liblzma-dev, libseccomp-dev.
if [ -f /usr/include/expat.h ] && [ -f /usr/include/lzma.h ] && [ -f /usr/include/seccomp.h ]; then
  eexist=$(/usr/bin/python3 -c 'import errno; print(errno.EEXIST)')
  run 0 --init expat.h -o "$tmp/expat.yaml" && run 0 --init lzma.h -o "$tmp/lzma.yaml" &&
    run 0 --init seccomp.h -o "$tmp/seccomp.yaml" &&
    grep -q '^      XML_SetParamEntityParsing: {type: "int", error: zero}$' "$tmp/expat.yaml" &&
    grep -q '^      # its doc comment: "If the library has been compiled without support' "$tmp/expat.yaml" &&
    grep -q '^      lzma_lzma_preset: {type: "lzma_bool", error: nonzero}$' "$tmp/lzma.yaml" &&
    grep -q '^      lzma_code: {type: "lzma_ret", error: \[LZMA_MEM_ERROR, ' "$tmp/lzma.yaml" &&
    grep -q '^    error: \[LZMA_UNSUPPORTED_CHECK, LZMA_MEM_ERROR, ' "$tmp/lzma.yaml" &&
    grep -q "LZMA_UNSUPPORTED_CHECK is none for lzma_code, its doc comment: \"The decoding can still be continued normally" "$tmp/lzma.yaml" &&
    grep -q "^      seccomp_arch_exist: {type: \"int\", error: negative, success: \[-$eexist\]}$" "$tmp/seccomp.yaml" &&
    ! grep -q "seccomp_arch_add" "$tmp/seccomp.yaml" &&
    ok "--init: what a failure or success returns, a negative rule's answers, an enum constant a function goes on after" ||
    fail "--init of expat.h, lzma.h, seccomp.h: $(sed -n '/^    rules:/,$p' "$tmp/expat.yaml" "$tmp/lzma.yaml" "$tmp/seccomp.yaml")"
  # the spec with success values is one apigen reads: the model's status has them
  run 0 --spec "$tmp/seccomp.yaml" --stdout &&
    grep -q "^  status: {from: result, success: \[-$eexist\], " "$tmp/out" &&
    ok "--init's success values reach the model" ||
    fail "--init seccomp.h: no success [-$eexist] in the model"
fi
# Bad input to --init: no header, a header that does not exist, one that does not parse
# (a located message), a library that does not exist. Never a spec on stdout.
if run 2 --init; then
  grep -q "error: --init needs at least one HEADER" "$tmp/err" && ok "--init without a header: exit 2" ||
    fail "--init without a header: unexpected message: $(cat "$tmp/err")"
fi
if run 4 --init "$tmp/no_such_header.h"; then
  grep -q "no_such_header.h" "$tmp/err" && [ ! -s "$tmp/out" ] &&
    ok "--init of a missing header: exit 4, '$(grep -m1 error "$tmp/err")'" ||
    fail "--init of a missing header: unexpected output: $(cat "$tmp/err")"
fi
printf '/* a header with a mistake */\nint broken(int x;\n' >"$tmp/broken.h"
if run 4 --init "$tmp/broken.h"; then
  grep -q "broken.h:2:[0-9]*: error: " "$tmp/err" && [ ! -s "$tmp/out" ] &&
    ok "--init of a header that does not parse: exit 4, located: '$(grep -m1 'broken.h:2' "$tmp/err")'" ||
    fail "--init of a broken header: unexpected output: $(cat "$tmp/err")"
fi
printf 'int fine(int x);\n' >"$tmp/fine.h"
if run 3 --init "$tmp/fine.h" --library libno_such_library.so.9; then
  grep -q "Cannot find the library of header=.*fine.h" "$tmp/err" && [ ! -s "$tmp/out" ] &&
    ok "--init with a library that does not exist: exit 3" ||
    fail "--init --library libno_such_library.so.9: unexpected output: $(cat "$tmp/err")"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "apigen command line: all checks passed"
