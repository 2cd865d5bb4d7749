# /// capture
# gpus = 1
# timeout = 360
# exclusive = false
# ///

# %% setup
import os
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter

import torch
from torch import nn

import timing  # the guide's timing helpers (snippets/_shared/timing.py)

device = "cuda" if torch.cuda.is_available() else "cpu"
workdir = tempfile.mkdtemp()


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
example = torch.randn(8, 3, 32, 32, device=device)

# %% export
ep = torch.export.export(model, (example,))

sig = ep.graph_signature
print(dict(Counter(spec.kind.name for spec in sig.input_specs)))
print("user inputs:", sig.user_inputs, " outputs:", sig.user_outputs)
ops = [str(node.target) for node in ep.graph.nodes
       if node.op == "call_function"]
print(len(ops), "operator calls, the first ones:", ops[:4])

# %% export-static-shapes raises="AssertionError"
# batch size 8 was baked in
ep.module()(torch.randn(2, 3, 32, 32, device=device))

# %% export-dynamic
batch = torch.export.Dim("batch", min=1, max=256)
ep = torch.export.export(model, (example,), dynamic_shapes={"x": {0: batch}})
print(ep.range_constraints)
print(ep.module()(torch.randn(2, 3, 32, 32, device=device)).shape)

# %% save-exported-program
ep_path = os.path.join(workdir, "small_cnn_ep.pt2")
torch.export.save(ep, ep_path)
loaded = torch.export.load(ep_path)  # no SmallCNN class needed to load it
with torch.no_grad():
    print("same as eager:", torch.allclose(loaded.module()(example),
                                           model(example), atol=1e-5))

# %% aoti-compile glue=build
package_path = os.path.join(workdir, "small_cnn.pt2")
seconds = timing.first_call(  # the build: one call, start to end
    lambda: torch._inductor.aoti_compile_and_package(
        ep, package_path=package_path))
build = {"seconds": seconds, "kib": os.path.getsize(package_path) / 1024}
print(f"AOTInductor build: {build['seconds']:.0f} s, "
      f"package of {build['kib']:.0f} KiB")

# %% aoti-run
# A serving process: it gets the package and the inputs, none of the
# model's code.
SERVE = textwrap.dedent("""
    import sys, torch

    runner = torch._inductor.aoti_load_package(sys.argv[1])
    inputs = torch.load(sys.argv[2])
    with torch.no_grad():
        torch.save([runner(x) for x in inputs], sys.argv[3])
""")

inputs = [torch.randn(bs, 3, 32, 32, device=device) for bs in (1, 8, 100)]
inputs_path = os.path.join(workdir, "inputs.pt")
outputs_path = os.path.join(workdir, "outputs.pt")
torch.save(inputs, inputs_path)

done = subprocess.run([sys.executable, "-c", SERVE, package_path,
                       inputs_path, outputs_path],
                      capture_output=True, text=True)
if done.returncode != 0:
    print("the serving process failed with exit status "
          f"{done.returncode}; the end of its stderr:")
    print("\n".join(done.stderr.splitlines()[-30:]))
else:
    outputs = torch.load(outputs_path)
    with torch.no_grad():
        for x, out in zip(inputs, outputs):
            print(f"batch {x.shape[0]:3}: output {tuple(out.shape)}, "
                  "matches eager: "
                  f"{torch.allclose(out, model(x), atol=1e-4)}")
