# /// capture
# gpus = 1
# timeout = 240
# exclusive = false
# ///

# %% setup
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def positives_doubled(x):
    kept = x[x > 0]  # how many elements survive depends on the data
    return kept * 2


x = torch.randn(1000, device=device)

# %% default-graph-break
torch._logging.set_logs(graph_breaks=True)
out = torch.compile(positives_doubled)(x)
torch._logging.set_logs()
print(out.shape, "same as eager:", torch.equal(out, positives_doubled(x)))

# %% fullgraph
torch._dynamo.reset()
out = torch.compile(positives_doubled, fullgraph=True)(x)
print(out.shape)

# %% capture-dynamic-output-shapes glue=unbacked
torch._dynamo.reset()
torch._dynamo.config.capture_dynamic_output_shape_ops = True

from torch._dynamo.utils import counters

torch._logging.set_logs(graph_breaks=True, recompiles=True)
before = counters["stats"]["unique_graphs"]  # graphs compiled so far
compiled = torch.compile(positives_doubled)
# same size, different data: a different number kept each time
for _ in range(3):
    t = torch.randn(1000, device=device)
    print("kept", compiled(t).shape[0], "of 1000")
torch._logging.set_logs()
unbacked = {"graphs": counters["stats"]["unique_graphs"] - before}

# %% capture-scalar-outputs
torch._dynamo.reset()
torch._dynamo.config.capture_scalar_outputs = True


def normalize(x):
    return x / x.abs().max().item()  # .item() now stays inside the graph


torch._logging.set_logs(graph_breaks=True)
out = torch.compile(normalize, fullgraph=True)(x)
torch._logging.set_logs()
print("same as eager:", torch.allclose(out, normalize(x)))
