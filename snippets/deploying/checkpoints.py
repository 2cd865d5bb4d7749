# /// capture
# gpus = 1
# timeout = 240
# exclusive = false
# ///

# %% setup
import os
import tempfile

import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
workdir = tempfile.mkdtemp()  # checkpoints of this page go here


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


model = SmallCNN().to(device).eval()
images = torch.randn(8, 3, 32, 32, device=device)

# %% state-dict-keys
compiled = torch.compile(model)  # a wrapper around model
print(type(compiled).__name__)
print("wrapper keys:  ", list(compiled.state_dict())[:3])
print("original keys: ", list(model.state_dict())[:3])

in_place = SmallCNN().to(device).eval()
in_place.compile()  # compiles forward in place, no wrapper
print("compile() keys:", list(in_place.state_dict())[:3])

# %% save-original-state-dict
with torch.no_grad():
    expected = compiled(images)

# Save the plain module's weights: no prefix, loadable with or without
# compile.
path = os.path.join(workdir, "weights.pt")
torch.save(model.state_dict(), path)

fresh = SmallCNN().to(device).eval()
fresh.load_state_dict(torch.load(path, weights_only=True))
fresh.compile()
with torch.no_grad():
    print("same outputs after reload:",
          torch.allclose(fresh(images), expected, atol=1e-5))

# %% load-prefixed-keys raises="RuntimeError"
# A checkpoint written from the wrapper carries the "_orig_mod." prefix ...
prefixed_path = os.path.join(workdir, "weights_from_wrapper.pt")
torch.save(compiled.state_dict(), prefixed_path)

# ... and a plain model refuses it.
plain = SmallCNN().to(device)
plain.load_state_dict(torch.load(prefixed_path, weights_only=True))

# %% strip-prefix
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

state = torch.load(prefixed_path, weights_only=True)
# edits in place
consume_prefix_in_state_dict_if_present(state, "_orig_mod.")
print(plain.load_state_dict(state))

# %% pickle-whole-module
whole_path = os.path.join(workdir, "whole_module.pt")
# pickles the wrapper and the module inside it
torch.save(compiled, whole_path)
print("saved:", os.path.getsize(whole_path) // 1024, "KiB")

# Since PyTorch 2.6 torch.load only unpickles tensors and plain containers by
# default (weights_only=True), so a whole module needs weights_only=False.
try:
    torch.load(whole_path)
except Exception as exc:
    print(f"default torch.load: {type(exc).__name__}")

# only for files you trust
restored = torch.load(whole_path, weights_only=False)
print(type(restored).__name__, "wrapping", type(restored._orig_mod).__name__)
with torch.no_grad():
    print("same outputs:",
          torch.allclose(restored(images), expected, atol=1e-5))
