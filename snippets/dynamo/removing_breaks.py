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
# b.sum() >= 0, and -b takes the other branch
b = torch.rand(10, device=device)

# %% with-where glue=where_agrees
def bar_where(a, b):
    x = a / (a.abs() + 1)
    # both sides computed, one picked per element
    b = torch.where(b.sum() < 0, -b, b)
    return x * b


opt_where = torch.compile(bar_where, fullgraph=True)
where_agrees = []  # same as eager, for b and for -b
for b_in in (b, -b):
    where_agrees.append(torch.allclose(opt_where(a, b_in), bar(a, b_in)))
    print("same as eager:", where_agrees[-1])

# %% with-cond glue=cond_agrees
def bar_cond(a, b):
    x = a / (a.abs() + 1)
    return torch.cond(
        b.sum() < 0,
        lambda x, b: x * (b * -1),  # runs when the predicate is True
        lambda x, b: x * b,  # runs when it is False
        (x, b),
    )


opt_cond = torch.compile(bar_cond, fullgraph=True)
cond_agrees = []  # same as eager, for b and for -b
for b_in in (b, -b):
    cond_agrees.append(torch.allclose(opt_cond(a, b_in), bar(a, b_in)))
    print("same as eager:", cond_agrees[-1])

# %% explain-rewrites glue=rewrites
rewrites = {}
for fn in (bar, bar_where, bar_cond):
    report = torch._dynamo.explain(fn)(a, b)
    print(f"{fn.__name__:10} graphs: {report.graph_count}  "
          f"breaks: {report.graph_break_count}")
    rewrites[fn.__name__] = {"graphs": report.graph_count,
                             "breaks": report.graph_break_count}

# %% print-breaks glue=print_step
def step_with_print(x):
    h = torch.relu(x)
    print("relu done")  # a side effect on the host, not a tensor operation
    return h * 2


report = torch._dynamo.explain(step_with_print)(a)
print("graph count:", report.graph_count)
for reason in report.break_reasons:
    print("break:", reason.reason)
print_step = {"graphs": report.graph_count}

# %% item-breaks glue=item_step
def step_with_item(x):
    h = torch.relu(x)
    # a Python float: the value must be copied to the host
    peak = h.max().item()
    return h / peak


report = torch._dynamo.explain(step_with_item)(a)
print("graph count:", report.graph_count)
for reason in report.break_reasons:
    print("break:", reason.reason)
item_step = {"graphs": report.graph_count}

# %% capture-scalars glue=scalar_step
# Let Dynamo keep .item() in the graph as a symbolic scalar
with torch._dynamo.config.patch(capture_scalar_outputs=True):
    report = torch._dynamo.explain(step_with_item)(a)
    opt_item = torch.compile(step_with_item, fullgraph=True)
    print("graph count:", report.graph_count)
    print("same as eager:", torch.allclose(opt_item(a), step_with_item(a)))
scalar_step = {"graphs": report.graph_count}

# %% move-print-out
def quiet_step(x):
    h = torch.relu(x)
    return h * 2, h.mean()  # return the statistic instead of printing it


opt_quiet = torch.compile(quiet_step, fullgraph=True)
out, mean = opt_quiet(a)
# .item() and print() now run in eager code
print("mean activation:", mean.item())

# %% disable-helper glue=disabled_step
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
disabled_step = {"graphs": report.graph_count}
