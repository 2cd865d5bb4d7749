# /// capture
# gpus = 1
# timeout = 240
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
b = torch.randn(10, device=device)

# %% explain glue=explained
explanation = torch._dynamo.explain(bar)(a, b)
print("graph count:", explanation.graph_count)
print("graph break count:", explanation.graph_break_count)
for number, reason in enumerate(explanation.break_reasons, start=1):
    print(f"break {number}: {reason.reason}")
    for frame in reason.user_stack:
        print(f"  at {frame.name}, line {frame.lineno}: {frame.line}")
explained = {"graphs": explanation.graph_count,
             "breaks": explanation.graph_break_count}

# %% explain-old-form glue=old_form
# Deprecated form: the arguments passed straight to explain()
old_style = torch._dynamo.explain(bar, a, b)
print("graph count:", old_style.graph_count)
old_form = {"graphs": old_style.graph_count}

# %% fullgraph raises="torch._dynamo.exc.Unsupported"
opt_bar = torch.compile(bar, fullgraph=True)
opt_bar(a, b)
