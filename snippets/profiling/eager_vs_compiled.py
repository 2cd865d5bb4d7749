# /// capture
# gpus = 1
# timeout = 240     # about 30 s on an H100: one compile, two short profiles
# exclusive = true
# ///

# %% setup
import torch
import torch.nn.functional as F
from tabulate import tabulate
from torch import nn

from profiles import lanes, profiled, summary, timeline, top
from timing import measure, spread

device = "cuda" if torch.cuda.is_available() else "cpu"
dtype = torch.bfloat16 if device == "cuda" else torch.float32
WIDTH, TOKENS = (1024, 4096) if device == "cuda" else (128, 256)


class MLPBlock(nn.Module):
    """LayerNorm, an MLP with a tanh GELU, a residual: a few matrix products and many small steps."""

    def __init__(self):
        super().__init__()
        self.norm, self.up, self.down = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, 4 * WIDTH), nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x)), approximate="tanh"))


torch.manual_seed(0)
model = nn.Sequential(*[MLPBlock() for _ in range(4)]).to(device, dtype).eval()
x = torch.randn(TOKENS, WIDTH, device=device, dtype=dtype)
compiled = torch.compile(model)
torch.set_grad_enabled(False)

# %% profile glue=profiles
eager_prof = profiled(lambda: model(x))
compiled_prof = profiled(lambda: compiled(x))  # its untimed first call compiles
profiles = {"eager": summary(eager_prof), "compiled": summary(compiled_prof)}
for name in profiles:
    profiles[name].update(measure(lambda: (model if name == "eager" else compiled)(x)))
for name, p in profiles.items():
    busy = "—" if p["busy"] is None else f"{p['busy']:.0%}"
    print(f"{name:9} {p['kernels']:4.0f} kernels per call, {p['kernel_us']:8.1f} µs of kernels per call, "
          f"GPU busy {busy}; a call takes {spread(p)}")
print("compiled regions in the compiled profile:", *profiles["compiled"]["regions"], sep="\n    ")

# %% top-kernels
for name, prof in (("eager", eager_prof), ("compiled", compiled_prof)):
    print(f"{name}:")
    print(tabulate([(kernel, f"{n:g}", f"{us:.1f}", f"{share:.0%}") for kernel, n, us, share in top(prof)],
                   headers=["kernel", "per call", "µs per call", "share"]))
    print()

# %% key-averages
# The profiler's own table, sorted by time on the device: the same kernels, plus the operators
# that launched them (for the compiled model, one "Torch-Compiled Region" for the whole model).
sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
print(compiled_prof.key_averages().table(sort_by=sort_by, row_limit=8, max_name_column_width=50))

# %% timeline
import matplotlib.pyplot as plt

fig, axes = plt.subplots(2, 1, figsize=(8, 3), sharex=True)
for ax, (name, prof) in zip(axes, (("eager", eager_prof), ("compiled", compiled_prof))):
    timeline(ax, prof, f"{name}: {len(lanes(prof)['CPU: step()'])} calls")
axes[-1].set_xlabel("time since the first call started (ms)")
fig.tight_layout()
