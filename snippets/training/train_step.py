# /// capture
# gpus = 1
# timeout = 480     # about 110 s on an H100: three cold compiles of a whole training step
# exclusive = true
# ///

# %% setup
import time
import types

import torch
from tabulate import tabulate
from torch._dynamo.utils import counters

from timing import CUDA, compare, first_call, peak_mib, summary, warm
from model import build, loss_of
from _memory import allocated_mib, warm_cublas

# every compile below starts cold, as in a new process
torch.compiler.config.force_disable_caches = True


def train(model, opt, data):
    """One training step, written as in the tutorial the guide started
    from."""
    opt.zero_grad(True)
    loss = loss_of(model, *data)
    loss.backward()
    opt.step()


def copy_of(fn):
    """fn with a code object of its own. Dynamo keeps what it compiles on the
    code object, and two torch.compile calls on one function with the same
    backend share it: each compiled row compiles its own copy of train(), as
    it would alone in a process."""
    return types.FunctionType(fn.__code__.replace(), fn.__globals__,
                              fn.__name__, fn.__defaults__, fn.__closure__)


def compiled_autograd(model):
    # read when torch.compile is called...
    with torch._dynamo.config.patch(compiled_autograd=True):
        compiled = torch.compile(copy_of(train))

    def step(module, opt, data):
        # ...and kept set while the step runs
        with torch._dynamo.config.patch(compiled_autograd=True):
            compiled(module, opt, data)

    return step, model


# The ways to run train(): each gets the model and returns (the function to
# call, the module to pass it).
WAYS = {
    "eager": lambda model: (train, model),
    # as in the Speedups chapter
    "compiled_model": lambda model: (train, torch.compile(model)),
    # the whole step
    "compiled_train": lambda model: (torch.compile(copy_of(train)), model),
    # the same, with compiled autograd on
    "compiled_autograd": compiled_autograd,
}
LABELS = {"eager": "eager", "compiled_model": "torch.compile(model)",
          "compiled_train": "torch.compile(train)",
          "compiled_autograd": "torch.compile(train), compiled autograd"}


# cuBLAS's workspace, allocated once per thread, is part of every way's
# base (_memory.py)
workspace_mib = warm_cublas()


def prepare(way):
    """One way's step, with its first call, what Dynamo compiled, and its
    peak memory.

    All ways stay alive until they are timed together, so the peak is counted
    from what was allocated before this way's model was built, plus cuBLAS's
    workspace: the peak of a process that runs this way alone.
    """
    # the workspace and the ways built before this one
    held = allocated_mib()
    model, data = build()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    counters.clear()
    fn, module = WAYS[way](model)
    step = lambda: fn(module, opt, data)  # noqa: E731
    first_s = first_call(step)
    # read afresh after the first compile, never through a reference
    # taken before it
    graphs, breaks = (counters["stats"]["unique_graphs"],
                      dict(counters["graph_break"]))
    captures = counters["compiled_autograd"]["captures"]
    warm(step, 2)
    peak = peak_mib(step)
    reasons = sorted({reason.splitlines()[0] for reason in breaks})
    return step, {"first_s": first_s,
                  "peak_mib": (None if peak is None
                               else peak - held + workspace_mib),
                  "graphs": graphs, "breaks": sum(breaks.values()),
                  "reasons": reasons, "backward_captures": captures}


# %% variants glue=steps
prepared = {way: prepare(way) for way in WAYS}
calls = {way: step for way, (step, _) in prepared.items()}
# A training loop: steps timed back to back (GPU time per step, or the
# host's time where the host is the slower), the four ways interleaved in
# rounds, each warmed first. A step takes milliseconds, so a round queues
# ten of them.
timed = compare(calls, measure="back_to_back", calls=10)
steps = {way: {**result, **timed[way]}
         for way, (_, result) in prepared.items()}
print(tabulate([[LABELS[way], f"{r['first_s']:.1f}", f"{r['ms']:.2f}",
                 f"{r['p10']:.2f}–{r['p90']:.2f}",
                 "—" if r["peak_mib"] is None else f"{r['peak_mib']:,.0f}",
                 r["graphs"], r["breaks"],
                 r["backward_captures"]] for way, r in steps.items()],
               headers=["step", "first call (s)",
                        "back to back, median (ms)", "p10–p90 (ms)",
                        "peak (MiB)", "graphs", "graph breaks",
                        "backward graphs"]))

# %% break-reasons
for name, r in steps.items():
    if r["reasons"]:
        print(f"{LABELS[name]}:")
        for reason in r["reasons"]:
            print("   ", reason)

# %% host-time glue=host
# The same steps one at a time on an idle GPU, interleaved again (all are
# warm already): the latency from idle of one step, and the part of it that
# passes before the call returns, which is the host's work: Python, Dynamo's
# guards, compiled autograd's cache lookup at the start of the backward pass,
# the kernel launches. The GPU runs the last kernels after that.
returned = {way: [] for way in calls}


def noting_return(way):
    step = calls[way]

    def call():
        started = time.perf_counter()
        step()
        returned[way].append((time.perf_counter() - started) * 1000)

    return call


latency = compare({way: noting_return(way) for way in calls},
                  measure="latency", warmup=0)
host = {way: {"latency": latency[way], "host": summary(returned[way])}
        for way in calls}
print(tabulate([[LABELS[way], f"{steps[way]['ms']:.2f}",
                 f"{h['latency']['ms']:.2f}", f"{h['host']['ms']:.2f}",
                 f"{h['host']['p10']:.2f}–{h['host']['p90']:.2f}"]
                for way, h in host.items()],
               headers=["step", "back to back (ms)",
                        "latency from idle (ms)",
                        "host, until the call returns (ms)",
                        "p10–p90 (ms)"]))
