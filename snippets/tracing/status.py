# /// capture
# gpus = 1
# timeout = 240
# exclusive = false
# ///

# %% setup
import warnings

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

# %% deprecation-warnings glue=deprecations
def double(x):
    return x * 2


# DeprecationWarnings raised inside libraries are hidden by default:
# record them
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.jit.script(double)
    torch.jit.trace(double, (torch.ones(2, device=device),))

messages = dict.fromkeys(f"{w.category.__name__}: {w.message}"
                         for w in caught)
deprecations = sum(m.startswith("DeprecationWarning") for m in messages)
print(torch.__version__)
print("\n".join(messages))

# %% export-plain-if raises="torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode"
class FlipIfNegative(torch.nn.Module):
    def forward(self, x, y):
        if x.sum() < 0:
            return -y
        return y


x_pos = torch.rand(4, 4, device=device)
x_neg = -x_pos
y = torch.randn(4, 4, device=device)

torch.export.export(FlipIfNegative(), (x_pos, y))

# %% export-cond glue=exported_agrees
class FlipIfNegativeCond(torch.nn.Module):
    def forward(self, x, y):
        # both branches are captured; the choice is made at run time.
        # A branch may not return its input itself, hence clone().
        return torch.cond(x.sum() < 0, lambda t: -t, lambda t: t.clone(),
                          (y,))


exported = torch.export.export(FlipIfNegativeCond(), (x_pos, y))
print(exported.graph_module.code.strip())

runnable = exported.module()
exported_agrees = {"x_pos": torch.equal(runnable(x_pos, y), y),
                   "x_neg": torch.equal(runnable(x_neg, y), -y)}
print("same as eager, x_pos:", exported_agrees["x_pos"])
print("same as eager, x_neg:", exported_agrees["x_neg"])
