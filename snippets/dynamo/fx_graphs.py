# /// capture
# gpus = 1
# timeout = 240
# ///

# %% setup
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

# %% tabular-backend glue=soft_clip_run
graphs_seen = 0


def tabular_backend(gm: torch.fx.GraphModule,
                    example_inputs: list[torch.Tensor]):
    """A backend that prints each FX graph it receives and runs it
    unoptimized."""
    global graphs_seen
    graphs_seen += 1
    shapes = [tuple(t.shape) for t in example_inputs]
    print(f"--- graph {graphs_seen}: {len(example_inputs)} example inputs, "
          f"shapes {shapes}")
    gm.graph.print_tabular()
    return gm.forward  # a callable with the same signature as the graph


def soft_clip(x, scale):
    y = x / (x.abs() + 1)
    return (y * scale).clamp(min=-0.5).sum(dim=-1)


compiled = torch.compile(soft_clip, backend=tabular_backend)
x = torch.randn(4, 8, device=device)
scale = torch.randn(8, device=device)
out = compiled(x, scale)
same_as_eager = torch.allclose(out, soft_clip(x, scale))
print("same as eager:", same_as_eager)
soft_clip_run = {"graphs": graphs_seen, "same_as_eager": same_as_eager}

# %% graph-module-code
# The same graph, as the Python code FX generates for GraphModule.forward
torch._dynamo.reset()
graphs_seen = 0


def keep_graph(gm, example_inputs):
    global captured
    captured = gm
    return gm.forward


torch.compile(soft_clip, backend=keep_graph)(x, scale)
print(type(captured).__name__)
print(captured.code.strip())

# %% first-branch glue=first_call
def bar(a, b):
    x = a / (a.abs() + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


torch._dynamo.reset()
graphs_seen = 0
opt_bar = torch.compile(bar, backend=tabular_backend)

a = torch.randn(10, device=device)
b = torch.rand(10, device=device)  # values in [0, 1): b.sum() >= 0
out = opt_bar(a, b)
print("graphs compiled so far:", graphs_seen)
first_call = {"graphs": graphs_seen}

# %% second-branch glue=other_branch
out_neg = opt_bar(a, -b)  # -b takes the other branch
print("graphs compiled so far:", graphs_seen)
other_branch = {"graphs": graphs_seen}

# %% cached-graphs glue=cached
# New values that take each branch again: every graph is reused
a2 = torch.randn(10, device=device)
b2 = torch.rand(10, device=device)
for args in [(a2, b2), (a2, -b2)]:
    print("same as eager:", torch.allclose(opt_bar(*args), bar(*args)))
print("graphs compiled so far:", graphs_seen)
cached = {"graphs": graphs_seen}
