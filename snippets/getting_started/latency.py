# /// capture
# gpus = 1
# timeout = 400
# exclusive = true
# ///

# %% setup
import time

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def timed(fn, *args):
    """Run fn(*args) once and return its wall time in milliseconds, waiting for the GPU."""
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    fn(*args)
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1000


model = torch.nn.Sequential(
    *[torch.nn.Sequential(torch.nn.Linear(2048, 2048), torch.nn.GELU()) for _ in range(6)]
).to(device)
x = torch.randn(512, 2048, device=device)

# %% first-calls
compiled = torch.compile(model)

with torch.no_grad():
    for i in range(5):
        print(f"compiled call {i}: {timed(compiled, x):9.1f} ms")
    for i in range(5):
        print(f"eager call {i}:    {timed(model, x):9.1f} ms")

# %% new-shape
with torch.no_grad():
    bigger = torch.randn(1024, 2048, device=device)
    print(f"first call with a new batch size: {timed(compiled, bigger):9.1f} ms")
    print(f"second call with it:              {timed(compiled, bigger):9.1f} ms")
