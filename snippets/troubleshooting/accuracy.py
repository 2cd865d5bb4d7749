# /// capture
# gpus = 1
# timeout = 240
# exclusive = false
# ///

# %% setup
import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"


class Block(nn.Module):
    def __init__(self, dim=512):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))


model = Block().to(device).eval()
x = torch.randn(64, 512, device=device)

# %% compare-with-eager glue=float32_gap
with torch.no_grad():
    eager = model(x)
    compiled = torch.compile(model)(x)

print("bitwise equal:", torch.equal(eager, compiled))
float32_gap = (eager - compiled).abs().max().item()
print(f"largest difference: {float32_gap:.1e}")
# float32 default: rtol 1.3e-6, atol 1e-5
torch.testing.assert_close(compiled, eager)
print("assert_close passed")

# %% float64-reference glue=float32_error
# Which one is "right"? Neither exactly: compare both with a float64 run.
reference = Block().to(device, torch.float64).eval()
reference.load_state_dict(model.state_dict())
with torch.no_grad():
    truth = reference(x.double())
float32_error = {"eager": (eager.double() - truth).abs().max().item(),
                 "compiled": (compiled.double() - truth).abs().max().item()}
print(f"eager    vs float64: {float32_error['eager']:.1e}")
print(f"compiled vs float64: {float32_error['compiled']:.1e}")

# %% bfloat16 glue=bfloat16_error
model_bf16 = Block().to(device, torch.bfloat16).eval()
model_bf16.load_state_dict(model.state_dict())
with torch.no_grad():
    eager_bf16 = model_bf16(x.bfloat16())
    compiled_bf16 = torch.compile(model_bf16)(x.bfloat16())
bfloat16_error = {
    "gap": (eager_bf16 - compiled_bf16).abs().max().item(),
    "eager": (eager_bf16.double() - truth).abs().max().item(),
    "compiled": (compiled_bf16.double() - truth).abs().max().item()}
print(f"bfloat16 eager vs compiled: {bfloat16_error['gap']:.1e}")
print(f"bfloat16 eager    vs float64: {bfloat16_error['eager']:.1e}")
print(f"bfloat16 compiled vs float64: {bfloat16_error['compiled']:.1e}")

# %% dropout-random glue=inductor_mask_same
def noisy(t):
    return torch.nn.functional.dropout(t, p=0.5, training=True)


torch.manual_seed(0)
eager_mask = noisy(x) != 0
torch.manual_seed(0)
compiled_mask = torch.compile(noisy)(x) != 0
inductor_mask_same = torch.equal(eager_mask, compiled_mask)
print("same dropout mask:", inductor_mask_same)

# %% dropout-fallback-random glue=fallback_mask_same
# use eager's random number generator
torch._inductor.config.fallback_random = True
torch._dynamo.reset()
torch.manual_seed(0)
compiled_mask = torch.compile(noisy)(x) != 0
fallback_mask_same = torch.equal(eager_mask, compiled_mask)
print("same dropout mask:", fallback_mask_same)
torch._inductor.config.fallback_random = False
