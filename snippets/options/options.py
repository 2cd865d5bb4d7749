# /// capture
# gpus = 1
# timeout = 300
# exclusive = false
# ///

# %% setup
import inspect

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.randn(64, 128, device=device)


def gelu_mix(x):
    return torch.nn.functional.gelu(x) * torch.sigmoid(x) + x

# %% signature
print(inspect.signature(torch.compile))

# %% list-backends
print(torch.compiler.list_backends())
print(torch.compiler.list_backends(exclude_tags=()))

# %% try-backends
expected = gelu_mix(x)
for backend in ["inductor", "aot_eager", "eager", "cudagraphs"]:
    torch._dynamo.reset()
    out = torch.compile(gelu_mix, backend=backend)(x)
    print(f"{backend:>10}: matches eager = "
          f"{torch.allclose(out, expected, atol=1e-6)}")

# %% custom-backend
def count_ops(gm, example_inputs):
    """A custom backend: look at the graph, then return something
    callable."""
    calls = [node.target for node in gm.graph.nodes
             if node.op == "call_function"]
    print(f"graph with {len(calls)} calls: "
          f"{[getattr(c, '__name__', str(c)) for c in calls]}")
    return gm.forward  # run the captured graph as it is


out = torch.compile(gelu_mix, backend=count_ops)(x)
print("matches eager:", torch.allclose(out, expected))

# %% fullgraph-off glue=split
def with_print(x):
    y = torch.relu(x)
    print("a Python side effect inside the function")
    return y * 2


from torch._dynamo.utils import counters

torch._dynamo.reset()
before = counters["stats"]["unique_graphs"]  # graphs compiled so far
torch.compile(with_print, backend=count_ops)(x)
split = {"graphs": counters["stats"]["unique_graphs"] - before}

# %% fullgraph-on raises="torch._dynamo.exc.Unsupported"
torch._dynamo.reset()
torch.compile(with_print, fullgraph=True)(x)

# %% list-options
options = torch._inductor.list_options()
print(len(options), "Inductor options")
for key in ["max_autotune", "epilogue_fusion", "triton.cudagraphs",
            "coordinate_descent_tuning"]:
    print(f"{key} = {torch._inductor.config.get_config_copy()[key]!r}")

# %% pass-options glue=passed
torch._dynamo.reset()
tuned = torch.compile(gelu_mix, options={"coordinate_descent_tuning": True,
                                         "epilogue_fusion": False})
print("matches eager:", torch.allclose(tuned(x), expected, atol=1e-6))
print("global coordinate_descent_tuning:",
      torch._inductor.config.coordinate_descent_tuning)
passed = {"global_tuning": torch._inductor.config.coordinate_descent_tuning}

# %% mode-and-options raises="RuntimeError"
torch.compile(gelu_mix, mode="max-autotune",
              options={"epilogue_fusion": False})

# %% unknown-option
try:
    torch.compile(gelu_mix, options={"max_autotuning": True})
except RuntimeError as error:
    print(type(error).__name__, str(error)[:70], "...")

# %% disable glue=disabled
not_compiled = torch.compile(gelu_mix, disable=True)
print(type(not_compiled).__name__, not_compiled is gelu_mix)
print("matches eager:", torch.allclose(not_compiled(x), expected))
disabled = {"unchanged": not_compiled is gelu_mix}

# %% reset glue=reset_graphs
graphs = []


def remember(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


compiled = torch.compile(gelu_mix, backend=remember)
compiled(x)
compiled(x)
print("graphs after two calls:", len(graphs))
reset_graphs = {"two_calls": len(graphs)}
torch.compiler.reset()  # drop every compiled graph and guard
compiled(x)
print("graphs after reset and one more call:", len(graphs))
reset_graphs["after_reset"] = len(graphs)
