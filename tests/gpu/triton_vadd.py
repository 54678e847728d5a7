"""Two specializations of one Triton vector-add kernel, each named by the kernel's repr
(docs/cuda.md, issue 20): the tracer's device table must list them under those names.

    python3 triton_vadd.py            (under the tracer: tracer -b cuda -j -o t.json ...)

@triton.jit(repr=...) names a compiled specialization: BLOCK_SIZE=128 with 4 warps and 2
stages becomes vadd_bs128_w4_s2, BLOCK_SIZE=256 with 8 warps and 2 stages
vadd_bs256_w8_s2. Warps and stages are launch options, not arguments, so they are passed
a second time as constexprs (W_NAME, S_NAME) that only the name reads. Launches the first
5 times and the second 7 times, checks each result against PyTorch, and prints the count
per name; with $VADD_COUNTS set, writes them there as {"kernels": {name: count}} for
bench/gpu/check_counts.py. Exits 77 without PyTorch, Triton or a GPU, 1 on a failure.
"""
import inspect
import json
import os
import sys

try:
    import torch
    import triton
    import triton.language as tl
except ImportError as error:
    print(f"triton_vadd.py: cannot import PyTorch and Triton: {error}")
    sys.exit(77)
if not torch.cuda.is_available():
    print("triton_vadd.py: no CUDA device for PyTorch")
    sys.exit(77)

# (BLOCK_SIZE, num_warps, num_stages, launches)
CONFIGS = [(128, 4, 2, 5), (256, 8, 2, 7)]
N = (1 << 20) + 17  # not a multiple of either block: the mask is used

# The kernel's parameter names, in order: Triton versions key the specialization's
# constants by name, by position, or by a path of positions ((3,)).
ARG_NAMES = []


def specialization_name(block_size, warps, stages):
    return f"vadd_bs{block_size}_w{warps}_s{stages}"


def _describe(proxy):
    """What the repr was given, for a fix when its constants cannot be read."""
    fields = {}
    for attribute in dir(proxy):
        if attribute.startswith("__"):
            continue
        try:
            value = getattr(proxy, attribute)
        except Exception as error:  # a property that fails: say so, go on
            value = f"<{error!r}>"
        if not callable(value):
            fields[attribute] = repr(value)[:300]
    return f"{type(proxy).__module__}.{type(proxy).__qualname__} {fields}"


def _constant(constants, name):
    index = ARG_NAMES.index(name) if name in ARG_NAMES else None
    for key in (name, index, (index,)):
        if key is not None and key in constants:
            value = constants[key]
            return getattr(value, "value", value)  # a tl.constexpr holds its value
    raise LookupError(f"{name} is not among the constants' keys {list(constants)!r}")


def _vadd_repr(proxy):
    try:
        constants = proxy.constants
        return specialization_name(_constant(constants, "BLOCK_SIZE"),
                                   _constant(constants, "W_NAME"), _constant(constants, "S_NAME"))
    except Exception as error:
        print(f"triton_vadd.py: the repr cannot read the specialization's constants: {error!r}\n"
              f"  it was given: {_describe(proxy)}\n"
              f"  kernel arguments: {ARG_NAMES}", file=sys.stderr)
        raise


try:
    jit_named = triton.jit(repr=_vadd_repr)
except TypeError as error:
    print(f"triton_vadd.py: this Triton ({triton.__version__}) takes no repr in triton.jit: "
          f"{error}", file=sys.stderr)
    sys.exit(1)


@jit_named
def vadd(x_ptr, y_ptr, z_ptr, n, BLOCK_SIZE: tl.constexpr, W_NAME: tl.constexpr,
         S_NAME: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(z_ptr + offsets, x + y, mask=mask)


ARG_NAMES[:] = list(getattr(vadd, "arg_names", None) or inspect.signature(vadd.fn).parameters)


def compiled_name(kernel):
    """The name Triton gave the compiled kernel, where this version says it."""
    metadata = getattr(kernel, "metadata", None)
    for holder in (metadata, kernel):
        name = getattr(holder, "name", None)
        if isinstance(name, str):
            return name
    if isinstance(metadata, dict) and isinstance(metadata.get("name"), str):
        return metadata["name"]
    return None


def main():
    print(f"triton_vadd.py: torch {torch.__version__}, triton {triton.__version__}, "
          f"{torch.cuda.get_device_name(0)}")
    torch.manual_seed(0)
    x = torch.rand(N, device="cuda")
    y = torch.rand(N, device="cuda")
    expected = x + y
    counts = {}
    failed = False
    for block_size, warps, stages, launches in CONFIGS:
        name = specialization_name(block_size, warps, stages)
        grid = (triton.cdiv(N, block_size),)
        for i in range(launches):
            z = torch.empty_like(x)
            kernel = vadd[grid](x, y, z, N, BLOCK_SIZE=block_size, W_NAME=warps, S_NAME=stages,
                                num_warps=warps, num_stages=stages)
            torch.cuda.synchronize()
            if not torch.equal(z, expected):
                bad = (z != expected).sum().item()
                print(f"triton_vadd.py: {name} launch {i + 1}: {bad} of {N} sums wrong",
                      file=sys.stderr)
                failed = True
            counts[name] = counts.get(name, 0) + 1
            if i == 0:
                got = compiled_name(kernel)
                print(f"{name}: compiled as {got!r}" if got else
                      f"{name}: this Triton does not say the compiled name")
                if got and got != name:
                    print(f"triton_vadd.py: compiled name {got!r}, the repr gives {name!r}",
                          file=sys.stderr)
                    failed = True
    for name, count in counts.items():
        print(f"launched {name} {count} times")
    path = os.environ.get("VADD_COUNTS")
    if path:
        with open(path, "w") as f:
            json.dump({"kernels": counts}, f)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
