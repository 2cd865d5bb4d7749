# /// capture
# gpus = 1
# timeout = 240     # about 40 s on an H100: three small compiles, opcheck, a few timings
# exclusive = true
# ///

# %% setup
import torch
import torch.nn.functional as F
from torch._inductor.utils import run_and_get_code

from timing import compare, spread

device = "cuda" if torch.cuda.is_available() else "cpu"
# Triton kernels run on GPUs; on a CPU the Triton cells only say so
TRITON = device == "cuda"
SKIP = "skipped: Triton kernels need a CUDA GPU"
if TRITON:
    import triton
    import triton.language as tl

dtype, rows = (torch.bfloat16, 8192) if TRITON else (torch.float32, 512)
a = torch.randn(rows, 4096, device=device, dtype=dtype)
b = torch.randn(rows, 4096, device=device, dtype=dtype)


def breaks(fn, *args):
    """Graphs and graph breaks TorchDynamo finds in fn(*args)."""
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(fn)(*args)
    return {"graphs": explanation.graph_count,
            "breaks": explanation.graph_break_count}


def lines_with(code, word):
    return [line.strip() for line in code.splitlines() if word in line]


# %% kernel
# silu(a) * b, the activation of a SwiGLU MLP, as one Triton kernel
if TRITON:

    @triton.jit
    def silu_mul_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(a_ptr + offsets, mask=mask).to(tl.float32)
        y = tl.load(b_ptr + offsets, mask=mask).to(tl.float32)
        tl.store(out_ptr + offsets,
                 (x * tl.sigmoid(x) * y).to(out_ptr.dtype.element_ty),
                 mask=mask)

    def silu_mul(a, b):
        out = torch.empty_like(a)
        silu_mul_kernel[(triton.cdiv(a.numel(), 1024),)](
            a, b, out, a.numel(), BLOCK=1024)
        return out

    print("same as F.silu(a) * b:",
          torch.allclose(silu_mul(a, b), F.silu(a) * b, atol=1e-2,
                         rtol=1e-2))
else:
    print(SKIP)

# %% kernel-in-compile glue=plain_kernel
# A compiled function may launch a user Triton kernel directly: TorchDynamo
# traces the launch.
def activation(x, y):
    return silu_mul(x * 2, y) + 1


if TRITON:
    plain_kernel = breaks(activation, a, b)
    _, codes = run_and_get_code(torch.compile(activation), a, b)
    code = "\n".join(codes)
    print(f"graphs: {plain_kernel['graphs']}, "
          f"graph breaks: {plain_kernel['breaks']}")
    print("in the generated code:", *lines_with(code, "silu_mul_kernel")[:3],
          sep="\n    ")
else:
    plain_kernel = {"skipped": SKIP}
    print(SKIP)

# %% triton-op glue=op_checks
# triton_op makes the kernel a PyTorch operator (torch.ops.guide.silu_mul)
# whose body the compiler can still see; no fake kernel is needed, the body
# is traced with fake tensors.
if TRITON:

    @torch.library.triton_op("guide::silu_mul", mutates_args={})
    def silu_mul_op(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(a)
        torch.library.wrap_triton(silu_mul_kernel)[
            (triton.cdiv(a.numel(), 1024),)
        ](a, b, out, a.numel(), BLOCK=1024)
        return out

    try:
        op_checks = torch.library.opcheck(silu_mul_op, (a[:64], b[:64]))
    except Exception as exc:  # reported, so that the cells below still run
        op_checks = {"error": f"{type(exc).__name__}: "
                              f"{str(exc).splitlines()[0]}"}
    for test, outcome in op_checks.items():
        print(f"{test:30} {outcome}")
else:
    op_checks = {"skipped": SKIP}
    print(SKIP)

# %% op-in-compile glue=op_graph
def activation_op(x, y):
    return torch.ops.guide.silu_mul(x * 2, y) + 1


if TRITON:
    op_graph = breaks(activation_op, a, b)
    _, codes = run_and_get_code(torch.compile(activation_op, fullgraph=True),
                                a, b)
    code = "\n".join(codes)
    print(f"graphs: {op_graph['graphs']}, "
          f"graph breaks: {op_graph['breaks']}")
    print("in the generated code:", *lines_with(code, "silu_mul_kernel")[:3],
          sep="\n    ")
else:
    op_graph = {"skipped": SKIP}
    print(SKIP)

# %% timings glue=timings,per_call
# silu(a) * b on 8192 x 4096 bfloat16 values: eager PyTorch, Inductor's own
# kernel, ours. Back to back: calls queued on the GPU, so each figure is the
# kernels' time per call.
inductor = torch.compile(lambda a, b: F.silu(a) * b)
variants = {"eager": lambda: F.silu(a) * b,
            "inductor": lambda: inductor(a, b)}
if TRITON:
    our_op_compiled = torch.compile(
        lambda a, b: torch.ops.guide.silu_mul(a, b))
    variants["our_kernel"] = lambda: silu_mul(a, b)
    variants["our_op_compiled"] = lambda: our_op_compiled(a, b)
timings = compare(variants, "back_to_back")
# Latency from idle: one synchronised call at a time, the host's way to the
# kernel included.
per_call = compare(variants, "latency", rounds=30)
for name in variants:
    print(f"{name:16} {spread(timings[name])}")
    print(f"{'':16} {spread(per_call[name])}")
