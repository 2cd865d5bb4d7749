# /// capture
# gpus = 1
# timeout = 540
# exclusive = true
# ///

# %% setup
import torch
import torchvision

# helpers from method.py
from method import by_mode, chart, compare, table, training_steps

# TF32 for float32 matmuls outside autocast, eager and compiled alike
torch.set_float32_matmul_precision("high")
model = torchvision.models.resnet18(weights=None).cuda().train()
images = torch.randn(128, 3, 224, 224, device="cuda")
labels = torch.randint(1000, (128,), device="cuda")
steps = training_steps(model, images, labels)

# %% measure glue=result
rows = compare("resnet18", steps("bfloat16"), "bfloat16")  # all three modes
print(table(rows))
result = by_mode(rows)

# %% chart
chart(rows, f"resnet18 training step, batch 128, bfloat16, "
            f"{torch.cuda.get_device_name()}")
