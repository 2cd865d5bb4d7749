# /// capture
# gpus = 1
# timeout = 180
# exclusive = false
# ///

# %% environment glue=env,first_call_s
import platform
import time

import torch

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


# A tiny smoke test: compile, run, compare with eager
def smoke(x):
    return torch.sin(x) ** 2 + torch.cos(x) ** 2


x = torch.randn(1024, device=device)
started = time.perf_counter()
compiled_result = torch.compile(smoke)(x)  # the first call compiles
first_call_s = time.perf_counter() - started
compiled_ok = torch.allclose(compiled_result, smoke(x))
rows.append(("torch.compile works", compiled_ok))
rows.append(("first compiled call", f"{first_call_s:.1f} s"))

for name, value in rows:
    print(f"{name:<25}{value}")
env = {key.split(" (")[0].replace(" ", "_"): str(value) for key, value in rows[:-2]}
