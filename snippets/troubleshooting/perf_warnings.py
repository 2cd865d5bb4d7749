# /// capture
# gpus = 1
# timeout = 300
# exclusive = false
# ///

# %% setup
import torch
from torch import nn
from torch._dynamo.utils import counters

device = "cuda" if torch.cuda.is_available() else "cpu"

# %% tf32-hint
mlp = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(),
                    nn.Linear(1024, 1024)).to(device)
x = torch.randn(256, 1024, device=device)
with torch.no_grad():
    out_fp32 = torch.compile(mlp)(x)
print(out_fp32.shape)

# %% tf32-enabled glue=tf32
torch.set_float32_matmul_precision("high")  # allow TF32 for float32 matmuls
torch._dynamo.reset()
with torch.no_grad():
    out_tf32 = torch.compile(mlp)(x)
torch.set_float32_matmul_precision("highest")  # back to the default

tf32 = {"difference": (out_tf32 - out_fp32).abs().max().item(),
        "magnitude": out_fp32.abs().max().item()}
tf32["relative"] = tf32["difference"] / tf32["magnitude"]
print(f"largest difference to full float32: {tf32['difference']:.1e}")
print(f"largest output magnitude:           {tf32['magnitude']:.1e}")

# %% cudagraphs-mutated-input glue=mutated
def add_one_then_sin(t):
    t.add_(1.0)  # mutates its input in place
    return t.sin()


counters.clear()
f = torch.compile(add_one_then_sin, mode="reduce-overhead")
for _ in range(3):
    f(torch.randn(1024, device=device))
print("cudagraph skips:", counters["inductor"]["cudagraph_skips"])
mutated = {"cudagraph_skips": counters["inductor"]["cudagraph_skips"]}

# %% cudagraphs-overwritten raises="RuntimeError"
def double(t):
    return t * 2


double_graph = torch.compile(double, mode="reduce-overhead")
first = double_graph(x)
second = double_graph(x + 1)  # a new run reuses the same output memory
print(first.sum())  # reading the first result

# %% cudagraphs-silent glue=silent
for _ in range(3):  # now the recorded graph is simply replayed
    double_graph(x)

first = double_graph(x)
second = double_graph(x + 1)
silent = {"first_holds_x": torch.equal(first, x * 2),
          "first_holds_next": torch.equal(first, (x + 1) * 2)}
print("first still holds x * 2:", silent["first_holds_x"])
print("first now holds (x + 1) * 2:", silent["first_holds_next"])

# %% cudagraphs-clone glue=cloned
first = double_graph(x).clone()  # copy out before the next replay
second = double_graph(x + 1)
cloned = {"first_holds_x": torch.equal(first, x * 2),
          "second_holds_next": torch.equal(second, (x + 1) * 2)}
print("first holds x * 2:", cloned["first_holds_x"])
print("second holds (x + 1) * 2:", cloned["second_holds_next"])
