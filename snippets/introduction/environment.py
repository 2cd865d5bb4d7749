# /// capture
# gpus = 1
# timeout = 180
# exclusive = false
# ///

# %% environment glue=env,first_call_s,later_call
import platform

import torch

import timing  # the guide's timing helpers (snippets/_shared/timing.py)

device = "cuda" if torch.cuda.is_available() else "cpu"

try:
    import triton
    triton_version = triton.__version__
except ImportError:
    triton_version = "not installed"

rows = [
    ("Python", platform.python_version()),
    ("torch", torch.__version__),
    ("CUDA (torch built with)", torch.version.cuda or "none"),
    ("device", device),
]
if device == "cuda":
    major, minor = torch.cuda.get_device_capability()
    rows += [
        ("GPU", torch.cuda.get_device_name()),
        ("compute capability", f"{major}.{minor}"),
    ]
rows.append(("triton", triton_version))
env = {key.split(" (")[0].replace(" ", "_"): str(value)
       for key, value in rows}


# A tiny smoke test: compile, run, compare with eager
def smoke(x):
    return torch.sin(x) ** 2 + torch.cos(x) ** 2


x = torch.randn(1024, device=device)
compiled = torch.compile(smoke)
first_call_s = timing.first_call(lambda: compiled(x))  # it compiles
later_call = timing.latency(lambda: compiled(x))  # median of 15 rounds
compiled_ok = torch.allclose(compiled(x), smoke(x))
rows.append(("torch.compile works", compiled_ok))
rows.append(("first compiled call", f"{first_call_s:.1f} s"))
rows.append(("later compiled calls", f"{later_call['ms']:.3f} ms"))

for name, value in rows:
    print(f"{name:<25}{value}")
