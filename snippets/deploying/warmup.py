# /// capture
# gpus = 1
# timeout = 300
# exclusive = true
# ///

# %% setup
import time

import torch
from tabulate import tabulate
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"


def build_model():
    return nn.Sequential(
        nn.Linear(512, 1024), nn.GELU(),
        nn.Linear(1024, 1024), nn.GELU(),
        nn.Linear(1024, 10),
    ).to(device).eval()


def request_ms(model, batch_size):
    """Serve one request of batch_size rows; return its latency in milliseconds."""
    x = torch.randn(batch_size, 512, device=device)
    torch.cuda.synchronize()
    start = time.perf_counter()
    with torch.inference_mode():
        model(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1000


SERVED_BATCH_SIZES = [1, 8, 32]  # the sizes this service will see

# %% cold-server glue=cold
model = build_model()
server = torch.compile(model)

rows, cold = [], {}
for bs in SERVED_BATCH_SIZES:
    first = request_ms(server, bs)
    second = request_ms(server, bs)
    rows.append([bs, f"{first:.1f}", f"{second:.2f}"])
    cold[f"bs{bs}"] = {"first_ms": first, "next_ms": second}
print(tabulate(rows, headers=["batch size", "first request ms", "next request ms"]))

# %% warm-up-at-startup glue=warm
torch._dynamo.reset()  # forget the compiled code: a new server process
server = torch.compile(build_model())

start = time.perf_counter()
for bs in SERVED_BATCH_SIZES:  # the sizes, device and grad mode of real traffic
    for _ in range(2):
        request_ms(server, bs)
warm = {"warmup_s": time.perf_counter() - start}
print(f"warm-up at startup: {warm['warmup_s']:.1f} s")

warm.update({f"bs{bs}_ms": request_ms(server, bs) for bs in SERVED_BATCH_SIZES + [17]})
rows = [[bs, f"{warm[f'bs{bs}_ms']:.2f}"] for bs in SERVED_BATCH_SIZES + [17]]
print(tabulate(rows, headers=["batch size", "first user request ms"]))

# %% warm-up-mismatch glue=mismatch_ms
torch._dynamo.reset()
server = torch.compile(build_model())
x = torch.randn(8, 512, device=device)
server(x)  # warm-up by mistake with autograd enabled

torch._logging.set_logs(recompiles=True)
mismatch_ms = request_ms(server, 8)
print(f"first request under inference_mode: {mismatch_ms:.1f} ms")
torch._logging.set_logs()
