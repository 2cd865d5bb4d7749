# /// capture
# gpus = 1
# timeout = 240
# exclusive = false
# ///

# %% setup
import torch
from torch._decomp import core_aten_decompositions, get_decompositions
from torch.fx.experimental.proxy_tensor import make_fx

device = "cuda" if torch.cuda.is_available() else "cpu"
aten = torch.ops.aten

# %% count-operators glue=counts
# every operator registered with the dispatcher, e.g. "aten::add.Tensor"
all_ops = torch._C._dispatch_get_all_op_names()
aten_names = sorted({n.split("::")[1].split(".")[0] for n in all_ops
                     if n.startswith("aten::")})
prims_names = {n.split("::")[1].split(".")[0] for n in all_ops
               if n.startswith("prims::")}


def is_core(name):
    packet = getattr(aten, name)
    return any(torch.Tag.core in getattr(packet, o).tags
               for o in packet.overloads())


core_names = [n for n in aten_names if is_core(n)]

print(f"ATen operators (overloads counted once): {len(aten_names)}")
print(f"  of which tagged as core ATen:           {len(core_names)}")
print(f"prims operators:                          {len(prims_names)}")
print(f"entries in core_aten_decompositions():    "
      f"{len(core_aten_decompositions())}")
counts = {"aten": len(aten_names), "core": len(core_names),
          "prims": len(prims_names),
          "core_share": len(core_names) / len(aten_names)}

# %% trace-without-table
def block(x, weight, bias):
    h = torch.nn.functional.layer_norm(x, (8,), weight, bias)
    return torch.nn.functional.silu(h)


x = torch.randn(4, 8, device=device)
weight = torch.ones(8, device=device)
bias = torch.zeros(8, device=device)

print(make_fx(block)(x, weight, bias).code.strip())

# %% trace-with-core-table
gm = make_fx(block,
             decomposition_table=core_aten_decompositions())(x, weight, bias)
print(gm.code.strip())

# %% trace-with-custom-table
table = get_decompositions([aten.native_layer_norm, aten.silu])
gm = make_fx(block, decomposition_table=table)(x, weight, bias)
print(gm.code.strip())
print("same result as eager:",
      torch.allclose(gm(x, weight, bias), block(x, weight, bias),
                     atol=1e-6))

# %% what-inductor-receives
def bias_gelu(x, b):
    return torch.nn.functional.gelu(x + b)


# like TORCH_LOGS="post_grad_graphs"
torch._logging.set_logs(post_grad_graphs=True)
torch.compile(bias_gelu)(torch.randn(64, 256, device=device),
                         torch.randn(256, device=device))
torch._logging.set_logs()
