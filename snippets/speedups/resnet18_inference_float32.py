# /// capture
# gpus = 1
# timeout = 420
# exclusive = true
# ///

# %% setup
import torch
import torchvision

# helpers from method.py
from method import by_mode, chart, compare, inference_steps, table

# TF32 matmuls, in eager and compiled alike
torch.set_float32_matmul_precision("high")
model = torchvision.models.resnet18(weights=None).cuda().eval()
images = torch.randn(256, 3, 224, 224, device="cuda")
steps = inference_steps(model, images)

# %% measure glue=result
rows = compare("resnet18", steps("float32"), "float32",
               modes=("default", "reduce-overhead"))
print(table(rows))
result = by_mode(rows)

# %% chart
chart(rows, f"resnet18 inference, batch 256, float32, "
            f"{torch.cuda.get_device_name()}")
