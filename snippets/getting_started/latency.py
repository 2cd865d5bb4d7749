# /// capture
# gpus = 1
# timeout = 400
# exclusive = true
# ///

# %% setup
import torch

import timing  # the guide's timing helpers (snippets/_shared/timing.py)

device = "cuda" if torch.cuda.is_available() else "cpu"


def timed(fn, *args):
    """Latency from idle of one call, in milliseconds: wait for the GPU,
    start the clock, call, wait for the GPU again, stop the clock."""
    return timing.first_call(lambda: fn(*args)) * 1000


model = torch.nn.Sequential(
    *[torch.nn.Sequential(torch.nn.Linear(2048, 2048), torch.nn.GELU())
      for _ in range(6)]
).to(device)
x = torch.randn(512, 2048, device=device)

# %% first-calls glue=calls
compiled = torch.compile(model)

with torch.no_grad():
    compiled_ms = [timed(compiled, x) for _ in range(5)]
    eager_ms = [timed(model, x) for _ in range(5)]
    # then the steady state: 15 rounds of one call each, the two interleaved
    later = timing.compare({"compiled": lambda: compiled(x),
                            "eager": lambda: model(x)}, "latency")
for i, ms in enumerate(compiled_ms):
    print(f"compiled call {i}: {ms:9.1f} ms")
for i, ms in enumerate(eager_ms):
    print(f"eager call {i}:    {ms:9.1f} ms")
print("later compiled calls:", timing.spread(later["compiled"]))
print("later eager calls:   ", timing.spread(later["eager"]))
calls = {"compiled_ms": compiled_ms, "eager_ms": eager_ms, **later}

# %% new-shape glue=new_shape
with torch.no_grad():
    bigger = torch.randn(1024, 2048, device=device)
    first, second = timed(compiled, bigger), timed(compiled, bigger)
    later = timing.latency(lambda: compiled(bigger))
print(f"first call with a new batch size: {first:9.1f} ms")
print(f"second call with it:              {second:9.1f} ms")
print("later calls with it:", timing.spread(later))
new_shape = {"first_ms": first, "second_ms": second, "later": later}
