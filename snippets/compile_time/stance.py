# /// capture
# gpus = 1
# timeout = 300     # about 40 s on an H100: one regional compile, one recompile, a few timings
# exclusive = true
# ///

# %% setup glue=warmup_s
import torch
from torch._dynamo.utils import counters

from timing import first_call, measure, spread
from model import BATCH, DTYPE, TOKENS, WIDTH, build, device, regional


def batch(tokens, size=BATCH):
    return torch.randn(size, tokens, WIDTH, device=device, dtype=DTYPE)


net, x = build()
net = regional(net)  # the blocks compile on the first call
torch.set_grad_enabled(False)  # inference only: every call below runs without autograd
warmup_s = first_call(lambda: net(x))
print(f"warm-up: {warmup_s:.1f} s to compile for {TOKENS}-token sequences")

# %% eager-on-recompile glue=eager_on_recompile
# A request with shorter sequences arrives. Under "eager_on_recompile" nothing compiles:
# the blocks run eagerly for a shape they were not compiled for.
short = batch(TOKENS // 2)
with torch.compiler.set_stance("eager_on_recompile"):
    eager_on_recompile = {"first_s": first_call(lambda: net(short)), **measure(lambda: net(short))}
print(f"{TOKENS // 2}-token request, eager_on_recompile: first {eager_on_recompile['first_s'] * 1000:.1f} ms, "
      f"then {spread(eager_on_recompile)}")

# %% fail-on-recompile raises="RuntimeError"
# Where a recompile would be a bug (after a complete warm-up), make it an error instead.
with torch.compiler.set_stance("fail_on_recompile"):
    net(x)  # the warmed-up shape: fine
    net(short)  # a new shape: raises instead of compiling

# %% default-stance glue=recompile
# The default stance compiles for the new shape, while the request waits.
recompile = {"first_s": first_call(lambda: net(short)), **measure(lambda: net(short))}
print(f"{TOKENS // 2}-token request, default stance: first {recompile['first_s']:.1f} s, then {spread(recompile)}")

# %% skip-guards glue=guards,tiny_graphs
# A small request, where Python, not the GPU, sets the pace: each of the blocks checks its guards
# on every call. skip_guard_eval_unsafe keeps only the checks that tell compiled graphs apart;
# it is safe only once every shape that will come has been compiled.
tiny = batch(16)
counters.clear()
net(tiny)  # warm-up for this shape too
tiny_graphs = counters["stats"]["unique_graphs"]  # read afresh after the call
print("graphs compiled for 16-token requests:", tiny_graphs)
guards = {}
with torch.compiler.set_stance("force_eager"):
    guards["eager"] = measure(lambda: net(tiny))
guards["default"] = measure(lambda: net(tiny))
with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    guards["skip_guards"] = measure(lambda: net(tiny))
for name, m in guards.items():
    print(f"{name:12} {spread(m)}")
