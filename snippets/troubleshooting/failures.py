# /// capture
# gpus = 1
# timeout = 300
# exclusive = false
# ///

# %% setup
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def layer(x):
    return torch.relu(x) * 2 + 1


x = torch.randn(4096, device=device)

# %% backend-compiler-failed raises="torch._dynamo.exc.BackendCompilerFailed"
def needs_a_missing_package(gm, example_inputs):
    """A toy backend that imports a package which is not installed."""
    import a_package_that_is_not_installed  # noqa: F401

    return gm.forward


torch.compile(layer, backend=needs_a_missing_package)(x)

# %% inductor-bug raises="torch._inductor.exc.InductorError"
# Plant a bug in Inductor's code generation with a switch that exists for
# PyTorch's own tests: the generated kernel for relu no longer compiles.
torch._inductor.config.triton.inject_relu_bug_TESTING_ONLY = "compile_error"

torch._dynamo.reset()
torch.compile(layer)(x)

# %% suppress-errors glue=suppressed
# on a compile error: log it, run eagerly
torch._dynamo.config.suppress_errors = True
torch._dynamo.reset()
out = torch.compile(layer)(x)
torch._dynamo.config.suppress_errors = False
suppressed = {"result_correct": torch.equal(out, layer(x))}
print("ran eagerly, result correct:", suppressed["result_correct"])

# %% bisect-by-backend glue=backends
def try_backend(backend):
    torch._dynamo.reset()
    try:
        out = torch.compile(layer, backend=backend)(x)
    except Exception as exc:
        return f"fails ({type(exc).__name__})"
    return "ok" if torch.allclose(out, layer(x)) else "wrong result"


backends = {}  # backend -> what happened
for backend in ("eager", "aot_eager", "aot_eager_decomp_partition",
                "inductor"):
    backends[backend] = try_backend(backend)
    print(f"{backend:28} {backends[backend]}")

# %% compiler-bisector glue=bisected
from torch._inductor.compiler_bisector import CompilerBisector

# A quieter but worse bug: relu(x) silently computes x + 1.
torch._inductor.config.triton.inject_relu_bug_TESTING_ONLY = "accuracy"


def compiled_matches_eager():
    torch._dynamo.reset()
    return torch.allclose(torch.compile(layer)(x), layer(x))


result = CompilerBisector.do_bisect(compiled_matches_eager)
print(result)
bisected = vars(result) if result else None  # None: no stage failed
torch._inductor.config.triton.inject_relu_bug_TESTING_ONLY = None
