# /// capture
# gpus = 1
# timeout = 560
# exclusive = true
# ///

# %% setup
import torch
import torchvision

# helpers from method.py
from method import by_mode, chart, compare, table, training_steps

# TF32 for float32 matmuls outside autocast, eager and compiled alike
torch.set_float32_matmul_precision("high")
model = torchvision.models.densenet121(weights=None).cuda().train()
images = torch.randn(64, 3, 224, 224, device="cuda")
labels = torch.randint(1000, (64,), device="cuda")
steps = training_steps(model, images, labels)

# %% measure glue=result
rows = compare("densenet121", steps("bfloat16"), "bfloat16",
               modes=("default", "reduce-overhead"))
print(table(rows))
result = by_mode(rows)

# %% chart
chart(rows, f"densenet121 training step, batch 64, bfloat16, "
            f"{torch.cuda.get_device_name()}")
