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

torch.set_float32_matmul_precision(
    "high"
)  # TF32 for float32 matmuls outside autocast, eager and compiled alike
model = torchvision.models.densenet121(weights=None).cuda().eval()
images = torch.randn(128, 3, 224, 224, device="cuda")
steps = inference_steps(model, images)

# %% measure glue=result
rows = compare("densenet121", steps("bfloat16"), "bfloat16",
               modes=("default", "reduce-overhead"))
print(table(rows))
result = by_mode(rows)

# %% chart
chart(rows, f"densenet121 inference, batch 128, bfloat16, "
            f"{torch.cuda.get_device_name()}")
