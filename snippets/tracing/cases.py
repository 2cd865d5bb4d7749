# /// capture
# gpus = 1
# timeout = 300
# exclusive = false
# ///

# %% setup
import scipy.fft
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def agree(candidate, reference, *args):
    """True when the captured function gives the eager function's result."""
    return torch.allclose(candidate(*args), reference(*args))


# %% control-flow-function glue=eager_branches
def flip_if_negative(x, y):
    if x.sum() < 0:  # the branch depends on the values in x
        return -y
    return y


x_pos = torch.rand(4, 4, device=device)  # sum > 0: keeps y
x_neg = -x_pos                           # sum < 0: flips y
y = torch.randn(4, 4, device=device)

eager_branches = {"x_pos": torch.equal(flip_if_negative(x_pos, y), y),
                  "x_neg": torch.equal(flip_if_negative(x_neg, y), -y)}
print("eager, x_pos:", eager_branches["x_pos"])
print("eager, x_neg:", eager_branches["x_neg"])

# %% control-flow-trace glue=traced_agrees
traced = torch.jit.trace(flip_if_negative, (x_pos, y))
print(traced.code)
traced_agrees = {"x_pos": agree(traced, flip_if_negative, x_pos, y),
                 "x_neg": agree(traced, flip_if_negative, x_neg, y)}
print("same as eager, x_pos:", traced_agrees["x_pos"])
print("same as eager, x_neg:", traced_agrees["x_neg"])

# %% control-flow-fx raises="torch.fx.proxy.TraceError"
torch.fx.symbolic_trace(flip_if_negative)

# %% control-flow-fx-concrete glue=fx_agrees
# Fix x to a real tensor so that the branch can be decided while tracing
fx_module = torch.fx.symbolic_trace(flip_if_negative,
                                    concrete_args={"x": x_pos})
print(fx_module.code.strip())
fx_agrees = {"x_neg": agree(fx_module, flip_if_negative, x_neg, y)}
print("same as eager, x_neg:", fx_agrees["x_neg"])

# %% control-flow-script glue=scripted_agrees
scripted = torch.jit.script(flip_if_negative)
print(scripted.code)
scripted_agrees = {"x_pos": agree(scripted, flip_if_negative, x_pos, y),
                   "x_neg": agree(scripted, flip_if_negative, x_neg, y)}
print("same as eager, x_pos:", scripted_agrees["x_pos"])
print("same as eager, x_neg:", scripted_agrees["x_neg"])

# %% control-flow-compile glue=compiled_agrees
compiled = torch.compile(flip_if_negative)
compiled_agrees = {"x_pos": agree(compiled, flip_if_negative, x_pos, y),
                   "x_neg": agree(compiled, flip_if_negative, x_neg, y)}
print("same as eager, x_pos:", compiled_agrees["x_pos"])
print("same as eager, x_neg:", compiled_agrees["x_neg"])

# %% arguments-function
def scale_and_clip(x, factor, clip):
    out = x * factor
    if clip:  # a plain Python flag, not a tensor
        out = out.clamp(-1, 1)
    return out


x = torch.randn(4, 4, device=device)

# %% arguments-trace raises="RuntimeError"
torch.jit.trace(scale_and_clip, (x, 3, True))

# %% arguments-script raises="RuntimeError"
# compiles: untyped arguments become Tensor
scripted = torch.jit.script(scale_and_clip)
scripted(x, 3, True)                         # fails at the call

# %% arguments-fx raises="torch.fx.proxy.TraceError"
torch.fx.symbolic_trace(scale_and_clip)

# %% arguments-compile glue=arguments_agree
compiled = torch.compile(scale_and_clip)
arguments_agree = [agree(compiled, scale_and_clip, x, 3, True),
                   agree(compiled, scale_and_clip, x, 0.5, False)]
print("same as eager, (3, True):   ", arguments_agree[0])
print("same as eager, (0.5, False):", arguments_agree[1])

# %% scipy-function
def scaled_dct(x):
    x = x * 2
    # leaves PyTorch: SciPy works on a NumPy array
    y = scipy.fft.dct(x.cpu().numpy())
    return torch.from_numpy(y).to(x.device) * 2


a = torch.randn(4, 8, device=device)
b = torch.randn(4, 8, device=device)

# %% scipy-trace glue=scipy_traced
traced = torch.jit.trace(scaled_dct, (a,))
scipy_traced = {"traced_input": agree(traced, scaled_dct, a),
                "new_input": agree(traced, scaled_dct, b),
                "old_output": torch.equal(traced(b), traced(a))}
print("same as eager, input used for tracing:", scipy_traced["traced_input"])
print("same as eager, new input:             ", scipy_traced["new_input"])
print("new input gives the old output:       ", scipy_traced["old_output"])

# %% scipy-script raises="TypeError"
torch.jit.script(scaled_dct)

# %% scipy-fx raises="ValueError"
torch.fx.symbolic_trace(scaled_dct)

# %% scipy-compile glue=scipy_compiled_agrees
compiled = torch.compile(scaled_dct)
scipy_compiled_agrees = {"a": agree(compiled, scaled_dct, a),
                         "b": agree(compiled, scaled_dct, b)}
print("same as eager, a:", scipy_compiled_agrees["a"])
print("same as eager, b:", scipy_compiled_agrees["b"])

# %% scipy-explain glue=scipy_explained
explanation = torch._dynamo.explain(scaled_dct)(a)
print("graphs:      ", explanation.graph_count)
print("graph breaks:", explanation.graph_break_count)
scipy_explained = {"graphs": explanation.graph_count,
                   "breaks": explanation.graph_break_count}
