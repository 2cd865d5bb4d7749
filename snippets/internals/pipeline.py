# /// capture
# gpus = 1
# timeout = 240
# exclusive = false
# ///

# %% setup
import torch
from torch._decomp import core_aten_decompositions
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

device = "cuda" if torch.cuda.is_available() else "cpu"


def f(x, w):
    y = torch.sin(x) * w
    return torch.nn.functional.silu(y).sum()


x = torch.randn(16, device=device, requires_grad=True)
w = torch.randn(16, device=device, requires_grad=True)

# %% dynamo-graph
def print_dynamo_graph(gm, example_inputs):
    """A backend: receives Dynamo's FX graph, prints it, runs it
    unchanged."""
    print(gm.code.strip())
    return gm.forward


torch.compile(f, backend=print_dynamo_graph)(x, w)

# %% aot-graphs
def printing_compiler(title):
    def compiler(gm, example_inputs):
        print(f"--- {title} graph ---")
        print(gm.code.strip())
        return make_boxed_func(gm.forward)  # run the graph as it is

    return compiler


aot_backend = aot_autograd(
    fw_compiler=printing_compiler("forward"),
    bw_compiler=printing_compiler("backward"),
    decompositions=core_aten_decompositions(),
)

torch._dynamo.reset()
compiled_f = torch.compile(f, backend=aot_backend)
loss = compiled_f(x, w)
print("forward call returned", loss.shape, loss.dtype)

# %% backward-call
loss.backward()
grad_x, grad_w = x.grad.clone(), w.grad.clone()

x.grad = w.grad = None
f(x, w).backward()  # eager reference
print("grad x matches eager:", torch.allclose(grad_x, x.grad, atol=1e-6))
print("grad w matches eager:", torch.allclose(grad_w, w.grad, atol=1e-6))

# %% inference-graph
aot_backend = aot_autograd(
    fw_compiler=printing_compiler("forward"),
    bw_compiler=printing_compiler("backward"),
    inference_compiler=printing_compiler("inference"),
    decompositions=core_aten_decompositions(),
)

torch._dynamo.reset()
with torch.no_grad():
    torch.compile(f, backend=aot_backend)(x, w)
