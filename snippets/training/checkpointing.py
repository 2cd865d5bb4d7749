# /// capture
# gpus = 1
# timeout = 420     # about 65 s on an H100: three cold compiles of the forward and backward passes
# exclusive = true
# ///

# %% setup
import torch
from tabulate import tabulate

from timing import CUDA, first_call, measure, peak_mib
from model import build, loss_of

torch.compiler.config.force_disable_caches = True  # every compile below starts cold, as in a new process


def forward_backward(model, data):
    """Forward and backward passes; the gradients are dropped before the next call."""
    model.zero_grad(set_to_none=True)
    loss_of(model, *data).backward()


def run(checkpointing, compiled, budget=None):
    """Time and peak memory of forward_backward for one way of saving activations."""
    torch._dynamo.reset()
    model, data = build(checkpointing)
    base_mib = torch.cuda.memory_allocated() / 2**20 if CUDA else None  # weights and the batch
    net = torch.compile(model) if compiled else model
    step = lambda: forward_backward(net, data)  # noqa: E731
    # activation_memory_budget is read when the backward graph is partitioned: at compile time
    with torch._functorch.config.patch(activation_memory_budget=1.0 if budget is None else budget):
        first_s = first_call(step)
    result = {"first_s": first_s, **measure(step), "peak_mib": peak_mib(step), "base_mib": base_mib}
    if CUDA:
        result["above_base_mib"] = result["peak_mib"] - base_mib
    return result


# %% variants glue=memory
LABELS = {
    "eager": "eager",
    "eager_checkpoint": "eager, checkpoint per block",
    "compiled": "compiled",
    "compiled_checkpoint": "compiled, checkpoint per block",
    "compiled_budget": "compiled, activation_memory_budget=0.5",
}
memory = {
    "eager": run(checkpointing=False, compiled=False),
    "eager_checkpoint": run(checkpointing=True, compiled=False),
    "compiled": run(checkpointing=False, compiled=True),
    "compiled_checkpoint": run(checkpointing=True, compiled=True),
    "compiled_budget": run(checkpointing=False, compiled=True, budget=0.5),
}


def mib(value):
    return "—" if value is None else f"{value:,.0f}"


print(tabulate([[LABELS[name], f"{r['first_s']:.1f}", f"{r['ms']:.2f}", f"{r['p10']:.2f}–{r['p90']:.2f}",
                 mib(r["peak_mib"]), mib(r.get("above_base_mib"))] for name, r in memory.items()],
               headers=["forward + backward", "first call (s)", "median (ms)", "p10–p90 (ms)", "peak (MiB)",
                        "peak above weights and batch (MiB)"]))

# %% chart
import matplotlib.pyplot as plt

if CUDA:
    names = list(memory)
    fig, ax = plt.subplots(figsize=(6, 3))
    for name in names:
        r = memory[name]
        ax.errorbar(r["above_base_mib"], r["ms"], yerr=[[r["ms"] - r["p10"]], [r["p90"] - r["ms"]]],
                    fmt="o", capsize=3, label=LABELS[name])
    ax.set_xlabel("peak memory above weights and batch (MiB)")
    ax.set_ylabel("forward + backward, median (ms)")
    ax.legend(fontsize=7)
    fig.tight_layout()
else:
    print("no chart without CUDA: peak memory is measured on the GPU")
