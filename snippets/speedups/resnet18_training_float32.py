# /// capture
# gpus = 1
# timeout = 420
# exclusive = true
# ///

# %% setup
import torch
import torchvision

# helpers from method.py
from method import by_mode, chart, compare, table, training_steps

# TF32 matmuls, in eager and compiled alike
torch.set_float32_matmul_precision("high")
model = torchvision.models.resnet18(weights=None).cuda().train()
images = torch.randn(128, 3, 224, 224, device="cuda")
labels = torch.randint(1000, (128,), device="cuda")
steps = training_steps(model, images, labels)

# %% measure glue=result
rows = compare("resnet18", steps("float32"), "float32",
               modes=("default", "reduce-overhead"))
print(table(rows))
result = by_mode(rows)

# %% chart
chart(rows, f"resnet18 training step, batch 128, float32, "
            f"{torch.cuda.get_device_name()}")
