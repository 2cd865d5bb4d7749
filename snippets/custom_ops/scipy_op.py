# /// capture
# gpus = 1
# timeout = 240     # about 30 s on an H100: small compiles and opcheck's tests, nothing timed
# exclusive = false
# ///

# %% setup
import scipy.fft
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def breaks(fn, *args):
    """Graphs and graph breaks TorchDynamo finds in fn(*args)."""
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(fn)(*args)
    return {"graphs": explanation.graph_count,
            "breaks": explanation.graph_break_count}


x = torch.randn(4, 8, device=device)

# %% before glue=before
# The function of the "TorchScript and FX tracing compared" chapter, with
# an orthonormal DCT: SciPy works on NumPy arrays, so TorchDynamo cannot
# put the call into a graph.
def scaled_dct(x):
    x = x * 2
    y = scipy.fft.dct(x.cpu().numpy(), norm="ortho")
    return torch.from_numpy(y).to(x.device) * 2


before = breaks(scaled_dct, x)
print(f"graphs: {before['graphs']}, graph breaks: {before['breaks']}")

# %% custom-op
# The SciPy call becomes one operator. Its body runs as ordinary Python,
# outside any graph; compiled code calls the operator as a whole.
@torch.library.custom_op("guide::dct", mutates_args=())
def dct(x: torch.Tensor) -> torch.Tensor:
    """Orthonormal DCT-II over the last dimension, computed by SciPy on the
    CPU."""
    y = scipy.fft.dct(x.detach().cpu().numpy(), norm="ortho")
    return torch.from_numpy(y).to(device=x.device, dtype=x.dtype)


@dct.register_fake
def _(x):
    # What the compiler sees while tracing: the shape, dtype and device of
    # the result, no values.
    return torch.empty_like(x)


# %% autograd
# The orthonormal DCT is an orthogonal matrix, so its gradient is the
# inverse transform, another SciPy call and so another operator. Each one's
# gradient is the other.
@torch.library.custom_op("guide::idct", mutates_args=())
def idct(x: torch.Tensor) -> torch.Tensor:
    y = scipy.fft.idct(x.detach().cpu().numpy(), norm="ortho")
    return torch.from_numpy(y).to(device=x.device, dtype=x.dtype)


idct.register_fake(lambda x: torch.empty_like(x))
dct.register_autograd(lambda ctx, grad: idct(grad))
idct.register_autograd(lambda ctx, grad: dct(grad))

# %% opcheck glue=checks
# opcheck runs the operator against its registrations: schema, fake
# kernel, autograd, and AOTAutograd with dynamic shapes.
checks = torch.library.opcheck(
    dct, (torch.randn(4, 8, device=device, requires_grad=True),))
for test, outcome in checks.items():
    print(f"{test:30} {outcome}")

# %% opcheck-catches raises="OpCheckError"
# A fake kernel that does not match the real one is caught: this one
# forgets that the real result has the input's dtype.
@torch.library.custom_op("guide::dct_wrong_fake", mutates_args=())
def dct_wrong_fake(x: torch.Tensor) -> torch.Tensor:
    return dct(x)


dct_wrong_fake.register_fake(
    lambda x: torch.empty_like(x, dtype=torch.float64))
torch.library.opcheck(dct_wrong_fake, (torch.randn(4, 8, device=device),))

# %% after glue=after
def scaled_dct_op(x):
    return dct(x * 2) * 2


after = breaks(scaled_dct_op, x)
# would raise if the graph broke
compiled = torch.compile(scaled_dct_op, fullgraph=True)
after["same_as_before"] = torch.allclose(compiled(x), scaled_dct(x),
                                         atol=1e-5)
print(f"graphs: {after['graphs']}, graph breaks: {after['breaks']}, "
      f"same result: {after['same_as_before']}")

# %% gradients glue=gradients
# The backward pass compiles too: AOTAutograd traces the registered
# gradient (the idct operator).
x_eager = torch.randn(4, 8, device=device, requires_grad=True)
x_compiled = x_eager.detach().clone().requires_grad_()
weights = torch.randn(4, 8, device=device)
(scaled_dct_op(x_eager) * weights).sum().backward()
(compiled(x_compiled) * weights).sum().backward()
gradients = {"same": torch.allclose(x_eager.grad, x_compiled.grad,
                                    atol=1e-5)}
print("same gradient, eager and compiled:", gradients["same"])
