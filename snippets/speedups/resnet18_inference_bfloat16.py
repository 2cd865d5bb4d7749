# /// capture
# gpus = 1
# timeout = 600
# exclusive = true
# ///

# %% setup
import torch
import torchvision

# helpers from method.py
from method import by_mode, chart, compare, inference_steps, table

torch.set_float32_matmul_precision(
    "high"
)  # TF32 for float32 matmuls outside autocast, eager and compiled alike
model = torchvision.models.resnet18(weights=None).cuda().eval()
images = torch.randn(256, 3, 224, 224, device="cuda")
steps = inference_steps(model, images)

# %% measure glue=result
rows = compare("resnet18", steps("bfloat16"), "bfloat16")
print(table(rows))
result = by_mode(rows)

# %% chart
chart(rows, f"resnet18 inference, batch 256, bfloat16, "
            f"{torch.cuda.get_device_name()}")
