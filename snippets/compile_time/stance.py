# /// capture
# gpus = 1
# timeout = 300     # about 40 s on an H100: one regional compile, one recompile, a few timings
# exclusive = true
# ///

# %% setup glue=warmup_s
import torch
from torch._dynamo.utils import counters

from timing import compare, first_call, latency, spread
from model import BATCH, DTYPE, TOKENS, WIDTH, build, device, regional


def batch(tokens, size=BATCH):
    return torch.randn(size, tokens, WIDTH, device=device, dtype=DTYPE)


net, x = build()
net = regional(net)  # the blocks compile on the first call
# inference only: every call below runs without autograd
torch.set_grad_enabled(False)
warmup_s = first_call(lambda: net(x))
print(f"warm-up: {warmup_s:.1f} s to compile for {TOKENS}-token sequences")

# %% eager-on-recompile glue=eager_on_recompile
# A request with shorter sequences arrives. Under "eager_on_recompile"
# nothing compiles: the blocks run eagerly for a shape they were not
# compiled for.
short = batch(TOKENS // 2)
with torch.compiler.set_stance("eager_on_recompile"):
    # A request's time, from an idle GPU to its result: latency from idle.
    eager_on_recompile = {"first_s": first_call(lambda: net(short)),
                          **latency(lambda: net(short))}
print(f"{TOKENS // 2}-token request, eager_on_recompile: "
      f"first {eager_on_recompile['first_s'] * 1000:.1f} ms, "
      f"then {spread(eager_on_recompile)}")

# %% fail-on-recompile raises="RuntimeError"
# Where a recompile would be a bug (after a complete warm-up), make it an
# error instead.
with torch.compiler.set_stance("fail_on_recompile"):
    net(x)  # the warmed-up shape: fine
    net(short)  # a new shape: raises instead of compiling

# %% default-stance glue=recompile,short_request
# The default stance compiles for the new shape, while the request waits.
recompile = {"first_s": first_call(lambda: net(short))}


def eager_blocks():
    with torch.compiler.set_stance("force_eager"):
        return net(short)


def compiled_blocks():
    # the same context around both, so both pay it
    with torch.compiler.set_stance("default"):
        return net(short)


# Eager and compiled blocks for the same 128-token requests, interleaved in
# rounds, two ways: one request at a time from an idle GPU (what a serving
# loop sees), and back to back (the GPU's time).
short_request = {measure: compare({"eager": eager_blocks,
                                   "compiled": compiled_blocks}, measure)
                 for measure in ("latency", "back_to_back")}
recompile.update(short_request["latency"]["compiled"])
print(f"{TOKENS // 2}-token request, default stance: "
      f"first {recompile['first_s']:.1f} s")
for measure, found in short_request.items():
    for name, m in found.items():
        print(f"  {name:9} {spread(m)}")

# %% skip-guards glue=guards,tiny_graphs
# A small request, where Python, not the GPU, sets the pace: each of the
# blocks checks its guards on every call. skip_guard_eval_unsafe keeps only
# the checks that tell compiled graphs apart; it is safe only once every
# shape that will come has been compiled.
tiny = batch(16)
counters.clear()
net(tiny)  # warm-up for this shape too
# read afresh after the call
tiny_graphs = counters["stats"]["unique_graphs"]
print("graphs compiled for 16-token requests:", tiny_graphs)


def under(stance=None, **flags):
    """A step that runs one 16-token request under a stance (or the default
    one)."""
    def step():
        with torch.compiler.set_stance(stance or "default", **flags):
            return net(tiny)
    return step


# The same blocks compiled again, keeping only the guards on tensors (a
# guard_filter_fn helper): checks on globals, module attributes and Python
# values are dropped at compile time.
filtered, _ = build()
for block in filtered.blocks:
    block.compile(options={
        "guard_filter_fn": torch.compiler.keep_tensor_guards_unsafe})
filtered(tiny)


def tensor_guards_only():
    with torch.compiler.set_stance("default"):
        return filtered(tiny)


# Latency from idle: for a request this small the host's time is the
# request's time.
guards = compare({"eager": under("force_eager"), "default": under(),
                  "skip_guards": under(skip_guard_eval_unsafe=True),
                  "tensor_guards_only": tensor_guards_only},
                 "latency", rounds=30)
for name, m in guards.items():
    print(f"{name:18} {spread(m)}")

# %% guard-latency glue=guard_us
# Dynamo times the guards of each graph it compiles (it runs them on the
# inputs it compiled for): the direct measure of what a call spends
# checking that its graph still applies.
from torch._dynamo.utils import get_compilation_metrics

metrics = [m for m in get_compilation_metrics()
           if getattr(m, "guard_latency_us", None) is not None]
guard_us = {"graphs": len(metrics),
            "per_graph_us": [round(m.guard_latency_us, 2)
                             for m in metrics[-4:]],
            "median_us": (sorted(m.guard_latency_us for m in metrics)
                          [len(metrics) // 2] if metrics else None)}
print(f"guard latency of the last {len(guard_us['per_graph_us'])} graphs "
      "compiled, µs each:", guard_us["per_graph_us"])
print("median over all", guard_us["graphs"], "graphs:",
      guard_us["median_us"], "µs")
