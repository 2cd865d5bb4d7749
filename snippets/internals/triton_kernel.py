# /// capture
# gpus = 1
# timeout = 240
# exclusive = false
# ///

# %% setup
import re
import textwrap

import torch
from torch._inductor.utils import run_and_get_code

device = "cuda" if torch.cuda.is_available() else "cpu"


def cut(code, first, last):
    """Lines of `code` from the first one containing `first` to the next
    containing `last`."""
    lines = code.splitlines()
    start = next(i for i, line in enumerate(lines) if first in line)
    stop = next(i for i in range(start, len(lines)) if last in lines[i])
    return textwrap.dedent("\n".join(lines[start : stop + 1]))


# %% generate-code glue=module_lines
def pointwise(x, y):
    return torch.sin(x) + torch.cos(y) * 2


x = torch.randn(1_000_000, device=device)
y = torch.randn(1_000_000, device=device)

result, sources = run_and_get_code(torch.compile(pointwise), x, y)
print("same as eager:", torch.allclose(result, pointwise(x, y), atol=1e-6))
print("generated modules:", len(sources))
module_lines = len(sources[0].splitlines())
print("lines of Python in the module:", module_lines)

# %% the-kernel
code = sources[0]
print(cut(code, "@triton.jit", "tl.store("))

# %% the-launcher
print(cut(code, "def call(", "return ("))

# %% kernel-names
def kernels_in(code):
    """Names of generated Triton kernels and of library calls in the output
    code."""
    generated = re.findall(r"^def (triton_\w+)\(", code, flags=re.M)
    library = sorted(set(re.findall(r"extern_kernels\.(\w+)\(", code)))
    return generated, library


def layer_norm_gelu(x, w, b):
    return torch.nn.functional.gelu(
        torch.nn.functional.layer_norm(x, (1024,), w, b))


def linear_gelu(x, weight, bias):
    return torch.nn.functional.gelu(x @ weight.T + bias)


h = torch.randn(512, 1024, device=device)
w = torch.randn(1024, device=device)
weight = torch.randn(1024, 1024, device=device)

examples = {
    "sin(x) + cos(y) * 2": (pointwise, (x, y)),
    "gelu(layer_norm(x))": (layer_norm_gelu, (h, w, w)),
    "gelu(x @ W.T + b)": (linear_gelu, (h, weight, w)),
}
for title, (fn, args) in examples.items():
    _, (code,) = run_and_get_code(torch.compile(fn), *args)
    generated, library = kernels_in(code)
    print(f"{title}:")
    print("    generated:", ", ".join(generated))
    print("    library:  ", ", ".join(library) or "-")
