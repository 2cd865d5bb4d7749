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


# %% control-flow-function
def flip_if_negative(x, y):
    if x.sum() < 0:  # the branch depends on the values in x
        return -y
    return y


x_pos = torch.rand(4, 4, device=device)  # sum > 0: keeps y
x_neg = -x_pos                           # sum < 0: flips y
y = torch.randn(4, 4, device=device)

print("eager, x_pos:", torch.equal(flip_if_negative(x_pos, y), y))
print("eager, x_neg:", torch.equal(flip_if_negative(x_neg, y), -y))

# %% control-flow-trace
traced = torch.jit.trace(flip_if_negative, (x_pos, y))
print(traced.code)
print("same as eager, x_pos:", agree(traced, flip_if_negative, x_pos, y))
print("same as eager, x_neg:", agree(traced, flip_if_negative, x_neg, y))

# %% control-flow-fx raises="torch.fx.proxy.TraceError"
torch.fx.symbolic_trace(flip_if_negative)

# %% control-flow-fx-concrete
# Fix x to a real tensor so that the branch can be decided while tracing
fx_module = torch.fx.symbolic_trace(flip_if_negative, concrete_args={"x": x_pos})
print(fx_module.code.strip())
print("same as eager, x_neg:", agree(fx_module, flip_if_negative, x_neg, y))

# %% control-flow-script
scripted = torch.jit.script(flip_if_negative)
print(scripted.code)
print("same as eager, x_pos:", agree(scripted, flip_if_negative, x_pos, y))
print("same as eager, x_neg:", agree(scripted, flip_if_negative, x_neg, y))

# %% control-flow-compile
compiled = torch.compile(flip_if_negative)
print("same as eager, x_pos:", agree(compiled, flip_if_negative, x_pos, y))
print("same as eager, x_neg:", agree(compiled, flip_if_negative, x_neg, y))

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
scripted = torch.jit.script(scale_and_clip)  # compiles: untyped arguments become Tensor
scripted(x, 3, True)                         # fails at the call

# %% arguments-fx raises="torch.fx.proxy.TraceError"
torch.fx.symbolic_trace(scale_and_clip)

# %% arguments-compile
compiled = torch.compile(scale_and_clip)
print("same as eager, (3, True):   ", agree(compiled, scale_and_clip, x, 3, True))
print("same as eager, (0.5, False):", agree(compiled, scale_and_clip, x, 0.5, False))

# %% scipy-function
def scaled_dct(x):
    x = x * 2
    y = scipy.fft.dct(x.cpu().numpy())  # leaves PyTorch: SciPy works on a NumPy array
    return torch.from_numpy(y).to(x.device) * 2


a = torch.randn(4, 8, device=device)
b = torch.randn(4, 8, device=device)

# %% scipy-trace
traced = torch.jit.trace(scaled_dct, (a,))
print("same as eager, input used for tracing:", agree(traced, scaled_dct, a))
print("same as eager, new input:             ", agree(traced, scaled_dct, b))
print("new input gives the old output:       ", torch.equal(traced(b), traced(a)))

# %% scipy-script raises="TypeError"
torch.jit.script(scaled_dct)

# %% scipy-fx raises="ValueError"
torch.fx.symbolic_trace(scaled_dct)

# %% scipy-compile
compiled = torch.compile(scaled_dct)
print("same as eager, a:", agree(compiled, scaled_dct, a))
print("same as eager, b:", agree(compiled, scaled_dct, b))

# %% scipy-explain
explanation = torch._dynamo.explain(scaled_dct)(a)
print("graphs:      ", explanation.graph_count)
print("graph breaks:", explanation.graph_break_count)
