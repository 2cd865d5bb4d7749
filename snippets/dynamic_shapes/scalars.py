# /// capture
# gpus = 1
# timeout = 300
# exclusive = false
# ///

# %% setup
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def describe(example_inputs):
    """Shapes of a graph's inputs: a tuple per tensor, the value of each
    other input."""
    return [tuple(t.shape) if isinstance(t, torch.Tensor) else t
            for t in example_inputs]


class GraphLog:
    """A backend that records what each graph was compiled for, then hands it
    to Inductor."""

    def __init__(self, verbose=True):
        self.graphs = []
        self.verbose = verbose

    def __call__(self, gm, example_inputs):
        self.graphs.append(describe(example_inputs))
        if self.verbose:
            print(f"  compiling graph {len(self.graphs)} "
                  f"for inputs {describe(example_inputs)}")
        return torch._inductor.compile(gm, example_inputs)


x = torch.randn(16, 32, device=device)

# %% int-argument
def shift_rows(x, n):
    return torch.roll(x, shifts=n, dims=0) * n


graphs = GraphLog()
shift = torch.compile(shift_rows, backend=graphs)

torch._logging.set_logs(recompiles=True)
for n in [2, 3, 4, 5]:
    print(f"call with n={n}")
    shift(x, n)
torch._logging.set_logs()
print("graphs compiled:", len(graphs.graphs))

# %% int-argument-static
torch._dynamo.reset()
graphs = GraphLog()
shift = torch.compile(shift_rows, backend=graphs, dynamic=False)

for n in [2, 3, 4, 5]:
    print(f"call with n={n}")
    shift(x, n)
print("graphs compiled:", len(graphs.graphs))

# %% specialize-int
torch._dynamo.reset()
graphs = GraphLog()
shift = torch.compile(shift_rows, backend=graphs)

with torch._dynamo.config.patch(specialize_int=True):
    for n in [2, 3, 4, 5]:
        print(f"call with n={n}")
        shift(x, n)
print("graphs compiled:", len(graphs.graphs))

# %% float-argument
torch._dynamo.reset()
graphs = GraphLog()


def scale(x, factor):
    return torch.tanh(x * factor)


scale_compiled = torch.compile(scale, backend=graphs)
for factor in [0.5, 0.7, 0.9, 1.1]:
    print(f"call with factor={factor}")
    scale_compiled(x, factor)
print("graphs compiled:", len(graphs.graphs))

# %% tensor-argument
torch._dynamo.reset()
graphs = GraphLog()
scale_compiled = torch.compile(scale, backend=graphs, dynamic=False)

for factor in [0.5, 0.7, 0.9, 1.1]:
    print(f"call with factor=tensor({factor})")
    scale_compiled(x, torch.tensor(factor, device=device))
print("graphs compiled:", len(graphs.graphs))

# %% module-int-attribute
torch._dynamo.reset()
graphs = GraphLog()


class Shifter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.shift = 1

    def forward(self, x):
        return torch.roll(x, shifts=self.shift, dims=0)


module = Shifter()
compiled_module = torch.compile(module, backend=graphs)
torch._logging.set_logs(recompiles=True)
for n in [2, 3, 4, 5]:
    module.shift = n
    print(f"call with module.shift={n}")
    compiled_module(x)
torch._logging.set_logs()
print("graphs compiled:", len(graphs.graphs))

# %% recompile-limit-config
print("recompile_limit:", torch._dynamo.config.recompile_limit)
print("accumulated_recompile_limit:",
      torch._dynamo.config.accumulated_recompile_limit)
print("cache_size_limit (old name):", torch._dynamo.config.cache_size_limit)

# %% recompile-limit-hit
torch._dynamo.reset()
graphs = GraphLog()
shift = torch.compile(shift_rows, backend=graphs, dynamic=False)

with torch._dynamo.config.patch(recompile_limit=2):
    for n in [2, 3, 4, 5]:
        print(f"call with n={n}")
        out = shift(x, n)
        print("  same result as eager:",
              torch.allclose(out, shift_rows(x, n)))
print("graphs compiled:", len(graphs.graphs))

# %% recompile-limit-fail raises="FailOnRecompileLimitHit"
torch._dynamo.reset()
shift = torch.compile(shift_rows, dynamic=False)

with torch._dynamo.config.patch(recompile_limit=2,
                                fail_on_recompile_limit_hit=True):
    for n in [2, 3, 4, 5]:
        print(f"call with n={n}")
        shift(x, n)
