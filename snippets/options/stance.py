# /// capture
# gpus = 1
# timeout = 300
# exclusive = false
# ///

# %% setup
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


class GraphLog:
    """A backend that reports each graph it is given, then hands it to
    Inductor."""

    def __init__(self):
        self.count = 0

    def __call__(self, gm, example_inputs):
        self.count += 1
        shapes = [tuple(t.shape) for t in example_inputs
                  if isinstance(t, torch.Tensor)]
        print(f"  compiling graph {self.count} for {shapes}")
        return torch._inductor.compile(gm, example_inputs)


def softplus_norm(x):
    y = torch.nn.functional.softplus(x)
    return y / y.sum(dim=-1, keepdim=True)


graphs = GraphLog()
model_fn = torch.compile(softplus_norm, backend=graphs, dynamic=False)
print("first call:")
model_fn(torch.randn(8, 16, device=device))

# %% force-eager glue=force_eager
print("stance: force_eager")
with torch.compiler.set_stance("force_eager"):
    # new shape, but nothing compiles
    out = model_fn(torch.randn(32, 16, device=device))
print("graphs compiled:", graphs.count)
force_eager = {"graphs": graphs.count}

# %% eager-on-recompile glue=eager_on_recompile
print("stance: eager_on_recompile")
with torch.compiler.set_stance("eager_on_recompile"):
    # known shape: the compiled graph runs
    model_fn(torch.randn(8, 16, device=device))
    model_fn(torch.randn(64, 16, device=device))  # new shape: runs eagerly
print("graphs compiled:", graphs.count)
eager_on_recompile = {"graphs_under_stance": graphs.count}

print("stance: default")
# the same new shape compiles now
model_fn(torch.randn(64, 16, device=device))
print("graphs compiled:", graphs.count)
eager_on_recompile["graphs_then_default"] = graphs.count

# %% fail-on-recompile raises="RuntimeError"
with torch.compiler.set_stance("fail_on_recompile"):
    model_fn(torch.randn(8, 16, device=device))  # fine: already compiled
    print("known shape ran")
    model_fn(torch.randn(128, 16, device=device))  # would recompile: raises

# %% stance-decorator glue=decorated
@torch.compiler.set_stance("force_eager")
def reference(x):
    """Always runs the eager version of everything it calls."""
    return model_fn(x)


before = graphs.count
out = reference(torch.randn(256, 16, device=device))
inside = graphs.count - before
print("graphs compiled inside the decorated function:", inside)

print("outside it, the default stance is back:")
model_fn(torch.randn(256, 16, device=device))
print("graphs compiled:", graphs.count)
decorated = {"graphs_inside": inside,
             "graphs_outside": graphs.count - before - inside}
