# /// capture
# gpus = 1
# timeout = 300
# exclusive = true
# ///

# %% setup
import torch
from tabulate import tabulate
from torch import nn

import timing  # the guide's timing helpers (snippets/_shared/timing.py)

device = "cuda" if torch.cuda.is_available() else "cpu"


def build_model():
    return nn.Sequential(
        nn.Linear(512, 1024), nn.GELU(),
        nn.Linear(1024, 1024), nn.GELU(),
        nn.Linear(1024, 10),
    ).to(device).eval()


def request(model, batch_size):
    """A request of batch_size rows: a function that serves it."""
    x = torch.randn(batch_size, 512, device=device)

    def serve():
        with torch.inference_mode():
            return model(x)

    return serve


def first_request_ms(model, batch_size):
    """Latency from idle of one request, in milliseconds: wait for the GPU,
    start the clock, serve, wait for the GPU again, stop the clock."""
    return timing.first_call(request(model, batch_size)) * 1000


SERVED_BATCH_SIZES = [1, 8, 32]  # the sizes this service will see

# %% cold-server glue=cold
model = build_model()
server = torch.compile(model)

rows, cold = [], {}
for bs in SERVED_BATCH_SIZES:
    first = first_request_ms(server, bs)
    later = timing.latency(request(server, bs))  # 15 rounds, once warmed
    spread = f"({later['p10']:.2f}–{later['p90']:.2f})"
    rows.append([bs, f"{first:.1f}", f"{later['ms']:.2f} {spread}"])
    cold[f"bs{bs}"] = {"first_ms": first, "next_ms": later["ms"],
                       "next": later}
print(tabulate(rows, headers=["batch size", "first request ms",
                              "later requests ms"]))

# %% warm-up-at-startup glue=warm
torch._dynamo.reset()  # forget the compiled code: a new server process
server = torch.compile(build_model())


def warm_up():
    for bs in SERVED_BATCH_SIZES:  # the sizes, device and grad mode of
        for _ in range(2):         # real traffic
            request(server, bs)()


warm = {"warmup_s": timing.first_call(warm_up)}
print(f"warm-up at startup: {warm['warmup_s']:.1f} s")

rows = []
for bs in SERVED_BATCH_SIZES + [17]:  # 17: a size the warm-up never used
    warm[f"bs{bs}_ms"] = first_request_ms(server, bs)
    rows.append([bs, f"{warm[f'bs{bs}_ms']:.2f}"])
print(tabulate(rows, headers=["batch size", "first user request ms"]))

# %% warm-up-mismatch glue=mismatch_ms
torch._dynamo.reset()
server = torch.compile(build_model())
x = torch.randn(8, 512, device=device)
server(x)  # warm-up by mistake with autograd enabled

torch._logging.set_logs(recompiles=True)
mismatch_ms = first_request_ms(server, 8)
print(f"first request under inference_mode: {mismatch_ms:.1f} ms")
torch._logging.set_logs()
