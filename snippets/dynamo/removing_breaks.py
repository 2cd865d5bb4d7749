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


a = torch.randn(10, device=device)
b = torch.rand(10, device=device)  # b.sum() >= 0, and -b takes the other branch

# %% with-where
def bar_where(a, b):
    x = a / (a.abs() + 1)
    b = torch.where(b.sum() < 0, -b, b)  # both sides computed, one picked per element
    return x * b


opt_where = torch.compile(bar_where, fullgraph=True)
for b_in in (b, -b):
    print("same as eager:", torch.allclose(opt_where(a, b_in), bar(a, b_in)))

# %% with-cond
def bar_cond(a, b):
    x = a / (a.abs() + 1)
    return torch.cond(
        b.sum() < 0,
        lambda x, b: x * (b * -1),  # runs when the predicate is True
        lambda x, b: x * b,  # runs when it is False
        (x, b),
    )


opt_cond = torch.compile(bar_cond, fullgraph=True)
for b_in in (b, -b):
    print("same as eager:", torch.allclose(opt_cond(a, b_in), bar(a, b_in)))

# %% explain-rewrites
for fn in (bar, bar_where, bar_cond):
    report = torch._dynamo.explain(fn)(a, b)
    print(f"{fn.__name__:10} graphs: {report.graph_count}  breaks: {report.graph_break_count}")

# %% print-breaks
def step_with_print(x):
    h = torch.relu(x)
    print("relu done")  # a side effect on the host, not a tensor operation
    return h * 2


report = torch._dynamo.explain(step_with_print)(a)
print("graph count:", report.graph_count)
for reason in report.break_reasons:
    print("break:", reason.reason)

# %% item-breaks
def step_with_item(x):
    h = torch.relu(x)
    peak = h.max().item()  # a Python float: the value must be copied to the host
    return h / peak


report = torch._dynamo.explain(step_with_item)(a)
print("graph count:", report.graph_count)
for reason in report.break_reasons:
    print("break:", reason.reason)

# %% capture-scalars
# Let Dynamo keep .item() in the graph as a symbolic scalar
with torch._dynamo.config.patch(capture_scalar_outputs=True):
    report = torch._dynamo.explain(step_with_item)(a)
    opt_item = torch.compile(step_with_item, fullgraph=True)
    print("graph count:", report.graph_count)
    print("same as eager:", torch.allclose(opt_item(a), step_with_item(a)))

# %% move-print-out
def quiet_step(x):
    h = torch.relu(x)
    return h * 2, h.mean()  # return the statistic instead of printing it


opt_quiet = torch.compile(quiet_step, fullgraph=True)
out, mean = opt_quiet(a)
print("mean activation:", mean.item())  # .item() and print() now run in eager code

# %% disable-helper
@torch.compiler.disable
def log_mean(h):
    print("mean activation:", h.mean().item())


def logged_step(x):
    h = torch.relu(x)
    log_mean(h)  # runs eagerly; Dynamo does not trace into it
    return h * 2


report = torch._dynamo.explain(logged_step)(a)
print("graph count:", report.graph_count)
for reason in report.break_reasons:
    print("break:", reason.reason)
