# /// capture
# gpus = 1
# timeout = 300
# ///

# %% setup
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"torch {torch.__version__}, running on {device}")

# %% compile-a-function
def sin_plus_cos(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


compiled_fn = torch.compile(sin_plus_cos)

x = torch.randn(3, 4, device=device)
y = torch.randn(3, 4, device=device)
result = compiled_fn(x, y)
print(result)
print("same as eager:", torch.allclose(result, sin_plus_cos(x, y)))

# %% decorator
@torch.compile
def tanh_gelu(x):
    return 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x**3)))


print(tanh_gelu(torch.linspace(-3, 3, 7, device=device)))

# %% compile-a-module
class TinyMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 128)
        self.fc2 = torch.nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = TinyMLP().to(device)
compiled_model = torch.compile(model)
batch = torch.randn(8, 64, device=device)

print(type(compiled_model).__name__)
print(compiled_model(batch).shape)
print("shares weights with model:",
      compiled_model.fc1.weight is model.fc1.weight)
print("state_dict keys:", list(compiled_model.state_dict())[:2])

# %% module-compile-in-place
model = TinyMLP().to(device)
model.compile()  # compiles forward in place; the object stays a TinyMLP

print(type(model).__name__)
print(model(batch).shape)
print("state_dict keys:", list(model.state_dict())[:2])

# %% nested-calls
def show_graph(gm, example_inputs):
    """A toy backend: print the FX graph Dynamo captured, then run it as
    is."""
    print(gm.code.strip(), end="\n\n")
    return gm.forward


def scale(x):
    return torch.relu(x) * 2


def outer(x):
    return scale(x) + 1  # scale() is traced into the same graph


torch.compile(outer, backend=show_graph)(x)

# %% disable
@torch.compiler.disable
def log_mean(t):
    print(f"mean of the activations: {t.mean().item():.4f}")


def step(x):
    h = torch.sin(x)
    log_mean(h)  # runs eagerly; the graph is split around it
    return torch.cos(h)


torch.compile(step, backend=show_graph)(x)
