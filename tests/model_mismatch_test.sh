#!/bin/sh
# The exactness check (apigen --check-source) must catch a wrong model: each corruption
# below changes one line of a correct model, and the check must then fail, at compile
# time or at run time, naming the declaration that is wrong.
# Usage: model_mismatch_test.sh APIGEN SOURCE_DIR
# Uses generated/opencl/model.yaml; OpenCL has no bit-fields and no enums, so those are
# corrupted in the golden cases tests/golden/records and tests/golden/enums_and_macros.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 APIGEN SOURCE_DIR" >&2; exit 2; }
apigen=$1
src=$(cd "$2" && pwd)
case $apigen in /*) ;; *) apigen=$(pwd)/$apigen ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# check SPEC DIR: builds and runs the check of DIR/model.yaml; its compiler messages and
# output go to DIR/log. Returns 0 only when it compiled, ran and printed "checked: exact".
check() {
  cflags=$("$apigen" --spec "$1" --print-cflags)
  "$apigen" --spec "$1" --output "$2" --check-source "$2/check.c" >"$2/log" 2>&1 || return 1
  # shellcheck disable=SC2086
  ${CC:-cc} -w $cflags "$2/check.c" -o "$2/check" >>"$2/log" 2>&1 || return 1
  "$2/check" >>"$2/log" 2>&1 || return 1
  grep -q 'checked: exact$' "$2/log"
}

# corrupt NAME SPEC MODEL EXPECT SED: the model with the sed script applied must change
# in exactly one line, and its check must fail with a message matching EXPECT (a grep
# -E pattern).
corrupt() {
  name=$1 spec=$2 model=$3 expect=$4 script=$5
  dir=$tmp/$name
  mkdir -p "$dir"
  sed -e "$script" "$model" >"$dir/model.yaml"
  changed=$(diff "$model" "$dir/model.yaml" | grep -c '^>' || true)
  if [ "$changed" -ne 1 ]; then
    fail "$name: the corruption changed $changed lines, not 1 (has the model format changed?)"
    return
  fi
  what=$(diff "$model" "$dir/model.yaml" | sed -n 's/^> *//p' | cut -c1-90)
  if check "$spec" "$dir"; then
    fail "$name: the check still says exact after: $what"
  elif grep -Eq "$expect" "$dir/log"; then
    echo "ok: $name: caught ($(grep -Eo "$expect" "$dir/log" | head -n 1)) after: $what"
  else
    fail "$name: the check failed, but not with /$expect/:"
    sed 's/^/  /' "$dir/log" | head -n 20 >&2
  fi
}

# baseline NAME SPEC MODEL: the uncorrupted model must be exact, or the failures above
# would prove nothing.
baseline() {
  mkdir -p "$tmp/$1"
  cp "$3" "$tmp/$1/model.yaml"
  if check "$2" "$tmp/$1"; then
    echo "ok: $1: the unchanged model checks exact"
  else
    fail "$1: the unchanged model does not check exact:"
    sed 's/^/  /' "$tmp/$1/log" | tail -n 20 >&2
    exit 1
  fi
}

spec=$src/api-specs/opencl.yaml
model=$src/generated/opencl/model.yaml
baseline opencl "$spec" "$model"

# Functions: a param's signedness (cl_uint -> cl_int) and the result type.
corrupt param_signedness "$spec" "$model" '"function clGetPlatformIDs"' \
  '/^- name: clGetPlatformIDs$/,/^- name: /s/^    decl: cl_uint num_entries$/    decl: cl_int num_entries/'
corrupt result_type "$spec" "$model" '"function clGetPlatformIDs"' \
  '/^- name: clGetPlatformIDs$/,/^- name: /s/^  result: {type: cl_int,/  result: {type: cl_uint,/'
# Records: a field's offset, a field's type of the same size, the record's size.
corrupt field_offset "$spec" "$model" '"offset of struct _cl_image_format.image_channel_data_type"' \
  '/^- name: struct _cl_image_format$/,/^- name: /s/^    offset: 4$/    offset: 8/'
corrupt field_type "$spec" "$model" '"type of struct _cl_image_format.image_channel_data_type"' \
  '/^- name: struct _cl_image_format$/,/^- name: /s/^    type: {type: cl_channel_type,/    type: {type: cl_int,/'
corrupt record_size "$spec" "$model" '"size of struct _cl_image_format"' \
  '/^- name: struct _cl_image_format$/,/^- name: /s/^  size: 8$/  size: 12/'
# Typedefs: what a name stands for.
corrupt typedef_type "$spec" "$model" '"typedefs cl_uint"' \
  '/^- name: cl_uint$/,/^- name: /s/^  type: {type: uint32_t,/  type: {type: int32_t,/'
# Constants: an integer's value and type, and a string's text (checked at run time).
corrupt constant_value "$spec" "$model" '"value of CL_SUCCESS"' \
  's/^- {name: CL_SUCCESS, type: int, value: 0,/- {name: CL_SUCCESS, type: int, value: 1,/'
corrupt constant_type "$spec" "$model" '"type of CL_SUCCESS"' \
  's/^- {name: CL_SUCCESS, type: int, value: 0,/- {name: CL_SUCCESS, type: long, value: 0,/'
corrupt constant_string "$spec" "$model" 'MISMATCH constant CL_KHR_COMMAND_BUFFER_EXTENSION_NAME' \
  's/^\(- {name: CL_KHR_COMMAND_BUFFER_EXTENSION_NAME, .*string: "cl_khr_command_buffer\)"/\1s"/'

# Bit-fields (found at run time) and members of anonymous records, in a golden case.
spec=$src/tests/golden/records/spec.yaml
model=$src/tests/golden/records/expected.yaml
baseline records "$spec" "$model"
corrupt bit_offset "$spec" "$model" 'MISMATCH bit-field struct rec_flags_s.level' \
  '/^  - name: level$/,/^  - name: /s/^    bit_offset: 16$/    bit_offset: 17/'
corrupt bit_width "$spec" "$model" 'MISMATCH bit-field struct rec_flags_s.wide' \
  '/^  - name: wide$/,/^  - name: /s/^    bit_width: 6$/    bit_width: 5/'
corrupt nested_member_offset "$spec" "$model" '"offset of struct rec_event.where.point.y"' \
  '/^          - name: y$/,/^          - name: /s/^            offset: 22$/            offset: 24/'

# Enum constants at the 64-bit edges, in a golden case.
spec=$src/tests/golden/enums_and_macros/spec.yaml
model=$src/tests/golden/enums_and_macros/expected.yaml
baseline enums "$spec" "$model"
corrupt enum_u64_max "$spec" "$model" '"enum constant EM_WIDE_MAX"' \
  's/{name: EM_WIDE_MAX, value: 18446744073709551615}/{name: EM_WIDE_MAX, value: 18446744073709551614}/'
corrupt enum_s64_min "$spec" "$model" '"enum constant EM_S64_MIN"' \
  's/{name: EM_S64_MIN, value: -9223372036854775808}/{name: EM_S64_MIN, value: -9223372036854775807}/'
corrupt enum_negative "$spec" "$model" '"enum constant EM_ERROR_NEXT"' \
  's/{name: EM_ERROR_NEXT, value: -99}/{name: EM_ERROR_NEXT, value: 4294967197}/'

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "the exactness check caught every corruption"
