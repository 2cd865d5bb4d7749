# /// capture
# gpus = 1
# timeout = 400
# exclusive = false
# ///

# %% setup
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.set_float32_matmul_precision("high")  # allow TF32 matmuls

# %% list-mode-options
for mode, settings in torch._inductor.list_mode_options().items():
    print(f"{mode!r}: {settings}")

# %% reduce-overhead
def mlp_step(x, w1, w2):
    return torch.relu(x @ w1) @ w2


w1 = torch.randn(256, 512, device=device)
w2 = torch.randn(512, 256, device=device)
x = torch.randn(64, 256, device=device)

step = torch.compile(mlp_step, mode="reduce-overhead")
for i in range(3):
    out = step(x, w1, w2)
print("same as eager:",
      torch.allclose(out, mlp_step(x, w1, w2), rtol=1e-2, atol=1e-2))

# %% reduce-overhead-overwrite glue=overwritten
first = step(x, w1, w2)
second = step(x + 1, w1, w2)  # replays the graph into the same output memory
shared = first.data_ptr() == second.data_ptr()
print("first and second share memory:", shared)
kept = torch.allclose(first, mlp_step(x, w1, w2), rtol=1e-2, atol=1e-2)
print("first still holds the result for x:", kept)
overwritten = {"shared_memory": shared, "first_holds_x": kept}

# %% reduce-overhead-error raises="RuntimeError"
fresh = torch.compile(lambda x, w1, w2: torch.tanh(x @ w1) @ w2,
                      mode="reduce-overhead")
first = fresh(x, w1, w2)  # the first calls are recorded, and checked
second = fresh(x + 1, w1, w2)
print(first.sum())

# %% reduce-overhead-keep-outputs glue=kept_outputs
first = step(x, w1, w2).clone()  # a copy survives the next replay
second = step(x + 1, w1, w2)
cloned = torch.allclose(first, mlp_step(x, w1, w2), rtol=1e-2, atol=1e-2)
print("cloned first holds the result for x:", cloned)

# several calls in one iteration: mark where each iteration starts
for iteration in range(3):
    torch.compiler.cudagraph_mark_step_begin()
    first = step(x, w1, w2)
    second = step(x + 1, w1, w2)
marked = torch.allclose(first, mlp_step(x, w1, w2), rtol=1e-2, atol=1e-2)
print("with marked steps, first holds the result for x:", marked)
kept_outputs = {"cloned": cloned, "marked_steps": marked}

# %% max-autotune glue=relative_difference
a = torch.randn(1024, 1024, device=device, dtype=torch.float16)
b = torch.randn(1024, 1024, device=device, dtype=torch.float16)


@torch.compile(mode="max-autotune-no-cudagraphs")
def matmul(a, b):
    return a @ b


out, ref = matmul(a, b), a @ b
relative_difference = ((out - ref).abs().max() / ref.abs().max()).item()
print(f"largest difference from eager, relative: {relative_difference:.1e}")
