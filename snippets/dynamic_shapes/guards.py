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

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(describe(example_inputs))
        print(f"  compiling graph {len(self.graphs)} "
              f"for inputs {describe(example_inputs)}")
        return torch._inductor.compile(gm, example_inputs)


# %% show-guards
def scale_rows(x):
    return x * 2 + 1


torch._logging.set_logs(guards=True)
torch.compile(scale_rows)(torch.randn(4, 8, device=device))
torch._logging.set_logs()

# %% automatic-dynamic
torch._dynamo.reset()
graphs = GraphLog()


def normalize_rows(x):
    return ((x - x.mean(dim=1, keepdim=True))
            / (x.std(dim=1, keepdim=True) + 1e-5))


normalize = torch.compile(normalize_rows, backend=graphs)

torch._logging.set_logs(recompiles=True)
for rows in [4, 6, 10, 100]:
    print(f"call with {rows} rows")
    normalize(torch.randn(rows, 8, device=device))
torch._logging.set_logs()
print("graphs compiled:", len(graphs.graphs))

# %% new-column-count
torch._logging.set_logs(recompiles=True)
print("call with 16 columns")
normalize(torch.randn(10, 16, device=device))
print("call with 32 columns")
normalize(torch.randn(10, 32, device=device))
torch._logging.set_logs()
print("graphs compiled:", len(graphs.graphs))

# %% dynamic-true
torch._dynamo.reset()
graphs = GraphLog()
normalize_dynamic = torch.compile(normalize_rows, backend=graphs,
                                  dynamic=True)

for rows in [4, 6, 10, 100]:
    print(f"call with {rows} rows")
    normalize_dynamic(torch.randn(rows, 8, device=device))
print("graphs compiled:", len(graphs.graphs))

# %% size-one
torch._logging.set_logs(recompiles=True)
print("call with 1 row")
normalize_dynamic(torch.randn(1, 8, device=device))
torch._logging.set_logs()
print("graphs compiled:", len(graphs.graphs))

# %% dynamic-false
torch._dynamo.reset()
graphs = GraphLog()
normalize_static = torch.compile(normalize_rows, backend=graphs,
                                 dynamic=False)

torch._logging.set_logs(recompiles_verbose=True)
for rows in [4, 6, 10]:
    print(f"call with {rows} rows")
    normalize_static(torch.randn(rows, 8, device=device))
torch._logging.set_logs()
print("graphs compiled:", len(graphs.graphs))

# %% mark-dynamic
torch._dynamo.reset()
graphs = GraphLog()
normalize = torch.compile(normalize_rows, backend=graphs)

x = torch.randn(4, 8, device=device)
torch._dynamo.mark_dynamic(x, 0)  # dimension 0 of this tensor is dynamic
for batch in [x, torch.randn(6, 8, device=device),
              torch.randn(10, 8, device=device)]:
    print(f"call with {batch.shape[0]} rows")
    normalize(batch)
print("graphs compiled:", len(graphs.graphs))

# %% mark-dynamic-range
torch._dynamo.reset()
graphs = GraphLog()
normalize = torch.compile(normalize_rows, backend=graphs)

x = torch.randn(4, 8, device=device)
torch._dynamo.mark_dynamic(x, 0, min=2, max=64)

torch._logging.set_logs(recompiles=True)
for batch in [x, torch.randn(30, 8, device=device),
              torch.randn(100, 8, device=device)]:
    print(f"call with {batch.shape[0]} rows")
    normalize(batch)
torch._logging.set_logs()
print("graphs compiled:", len(graphs.graphs))

# %% mark-dynamic-conflict raises="ConstraintViolationError"
torch._dynamo.reset()


def pad_to_eight(x):
    if x.shape[0] == 8:  # code that needs one exact size
        return x
    return torch.nn.functional.pad(x, (0, 0, 0, 8 - x.shape[0]))


x = torch.randn(8, 8, device=device)
torch._dynamo.mark_dynamic(x, 0)
torch.compile(pad_to_eight)(x)
