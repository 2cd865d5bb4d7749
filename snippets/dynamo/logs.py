# /// capture
# gpus = 1
# timeout = 300
# ///

# %% setup
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def bar(a, b):
    x = a / (a.abs() + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


opt_bar = torch.compile(bar)
a = torch.randn(10, device=device)
b = torch.rand(10, device=device)

# %% graph-break-logs
torch._logging.set_logs(graph_breaks=True)
opt_bar(a, b)
torch._logging.set_logs()  # back to the defaults

# %% guard-logs
torch._dynamo.reset()  # forget compiled code so the next call compiles again
torch._logging.set_logs(guards=True)
opt_bar(a, b)
torch._logging.set_logs()

# %% recompile-logs glue=new_graphs
from torch._dynamo.utils import counters

torch._logging.set_logs(recompiles=True)
before = counters["stats"]["unique_graphs"]  # graphs compiled so far
# the other branch: a new resume function, compiled for the first time
opt_bar(a, -b)
between = counters["stats"]["unique_graphs"]
opt_bar(a.double(), b.double())  # float64 inputs fail the float32 guards
torch._logging.set_logs()
new_graphs = {"other_branch": between - before,
              "float64": counters["stats"]["unique_graphs"] - between}
