# /// capture
# gpus = 1
# timeout = 300
# exclusive = false
# ///

# %% setup glue=default_limit
import torch
from torch._dynamo.utils import counters

device = "cuda" if torch.cuda.is_available() else "cpu"


def scaled_softmax(x):
    return torch.softmax(x * 0.5, dim=-1)


default_limit = torch._dynamo.config.recompile_limit
print("recompile limit:", default_limit)

# %% recompile-log glue=new_widths
# every new shape: a new graph
compiled = torch.compile(scaled_softmax, dynamic=False)

torch._logging.set_logs(recompiles=True)  # same as TORCH_LOGS="recompiles"
before = counters["stats"]["unique_graphs"]  # graphs compiled so far
for n in (8, 16, 32):
    compiled(torch.randn(4, n, device=device))
torch._logging.set_logs()
new_widths = {"graphs": counters["stats"]["unique_graphs"] - before}

# %% recompile-limit glue=limited
torch._dynamo.reset()
# default 8; lowered to keep the log short
torch._dynamo.config.recompile_limit = 4
compiled = torch.compile(scaled_softmax, dynamic=False)

counters.clear()
for n in range(1, 8):
    compiled(torch.randn(4, n, device=device))
print("graphs compiled:", counters["stats"]["unique_graphs"])
limited = {"graphs": counters["stats"]["unique_graphs"],
           "limit": torch._dynamo.config.recompile_limit}

# %% dynamic-fix glue=dynamic_graphs
torch._dynamo.reset()
torch._dynamo.config.recompile_limit = 8
# default: a size that changes becomes dynamic
compiled = torch.compile(scaled_softmax)

counters.clear()
torch._logging.set_logs(recompiles=True)
for n in range(1, 8):
    compiled(torch.randn(4, n, device=device))
torch._logging.set_logs()
print("graphs compiled:", counters["stats"]["unique_graphs"])
dynamic_graphs = {"graphs": counters["stats"]["unique_graphs"]}
