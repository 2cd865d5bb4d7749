# /// capture
# gpus = 1
# timeout = 480     # about 100 s on an H100: three cold compiles of a whole training step
# exclusive = true
# ///

# %% setup
import torch
from tabulate import tabulate
from torch._dynamo.utils import counters

from timing import first_call, measure, peak_mib
from model import build, loss_of

torch.compiler.config.force_disable_caches = True  # every compile below starts cold, as in a new process


def train(model, opt, data):
    """One training step, written as in the tutorial the guide started from."""
    opt.zero_grad(True)
    loss = loss_of(model, *data)
    loss.backward()
    opt.step()


# The ways to run train(): each gets the model and returns (the function to call, the module to pass it).
WAYS = {
    "eager": lambda model: (train, model),
    "compiled_model": lambda model: (train, torch.compile(model)),  # as in the Speedups chapter
    "compiled_train": lambda model: (torch.compile(train), model),  # the whole step
    "compiled_autograd": lambda model: (torch.compile(train), model),  # the same, with compiled autograd on
}
LABELS = {"eager": "eager", "compiled_model": "torch.compile(model)", "compiled_train": "torch.compile(train)",
          "compiled_autograd": "torch.compile(train), compiled autograd"}


def run(way):
    """First call, steady state and peak memory of one way, and what Dynamo compiled."""
    torch._dynamo.reset()
    model, data = build()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    counters.clear()
    # torch.compile reads this flag when it is called, so the flag is set before WAYS[way] runs
    with torch._dynamo.config.patch(compiled_autograd=way == "compiled_autograd"):
        step, module = WAYS[way](model)
        first_s = first_call(lambda: step(module, opt, data))
        # read afresh after the first compile, never through a reference taken before it
        graphs, breaks = counters["stats"]["unique_graphs"], dict(counters["graph_break"])
        captures = counters["compiled_autograd"]["captures"]
        steady = measure(lambda: step(module, opt, data))
        peak = peak_mib(lambda: step(module, opt, data))
    reasons = sorted({reason.splitlines()[0] for reason in breaks})
    return {"first_s": first_s, **steady, "peak_mib": peak, "graphs": graphs,
            "breaks": sum(breaks.values()), "reasons": reasons, "backward_captures": captures}


# %% variants glue=steps
steps = {way: run(way) for way in WAYS}
print(tabulate([[LABELS[way], f"{r['first_s']:.1f}", f"{r['ms']:.2f}", f"{r['p10']:.2f}–{r['p90']:.2f}",
                 "—" if r["peak_mib"] is None else f"{r['peak_mib']:,.0f}", r["graphs"], r["breaks"],
                 r["backward_captures"]] for way, r in steps.items()],
               headers=["step", "first call (s)", "median (ms)", "p10–p90 (ms)", "peak (MiB)", "graphs",
                        "graph breaks", "backward graphs"]))

# %% break-reasons
for name, r in steps.items():
    if r["reasons"]:
        print(f"{LABELS[name]}:")
        for reason in r["reasons"]:
            print("   ", reason)
