# /// capture
# gpus = 1
# timeout = 300
# exclusive = false
# ///

# %% setup
import time

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.randn(4096, device=device)

# %% item-warning glue=result_ok
def normalize(x):
    scale = x.abs().max().item()  # a Python float: the graph must end here
    return x / scale


out = torch.compile(normalize)(x)
result_ok = torch.allclose(out, normalize(x))
print("result ok:", result_ok)

# %% print-graph-break
def noisy(x):
    y = torch.sin(x)
    print("debug: y is ready")  # Python side effect
    return torch.cos(y)


# same as TORCH_LOGS="graph_breaks"
torch._logging.set_logs(graph_breaks=True)
torch.compile(noisy)(x)
torch._logging.set_logs()  # back to the defaults

# %% unsupported-builtin
def stamped(x):
    y = torch.sin(x)
    started = time.time()  # a C function Dynamo cannot look into
    return torch.cos(y), started


_ = torch.compile(stamped)(x)

# %% explain glue=messy_explained
def messy(x):
    y = torch.sin(x)
    print("step done")
    scale = y.abs().max().item()
    z = torch.cos(y) / scale
    if z.sum() > 0:
        return z.clamp(max=1.0)
    return z


explanation = torch._dynamo.explain(messy)(x)
print("graphs:", explanation.graph_count,
      " graph breaks:", explanation.graph_break_count)
for reason in explanation.break_reasons:
    # the source line of the break
    where = reason.user_stack[-1].line.strip()
    print(f"- {where:32} {reason.reason.splitlines()[0]}")
messy_explained = {"graphs": explanation.graph_count,
                   "breaks": explanation.graph_break_count}

# %% fullgraph-unsupported raises="torch._dynamo.exc.Unsupported"
def clip_if_positive(x):
    if x.sum() > 0:  # the branch depends on tensor data
        return x.clamp(max=1.0)
    return x


torch.compile(clip_if_positive, fullgraph=True)(x)

# %% fullgraph-fixed
def clip_if_positive_traceable(x):
    # Both branches are computed; torch.where picks one on the GPU.
    return torch.where(x.sum() > 0, x.clamp(max=1.0), x)


compiled = torch.compile(clip_if_positive_traceable, fullgraph=True)
print("same as eager:", torch.allclose(compiled(x), clip_if_positive(x)))
