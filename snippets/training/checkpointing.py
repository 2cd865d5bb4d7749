# /// capture
# gpus = 1
# timeout = 420     # about 80 s on an H100: three cold compiles of the forward and backward passes, four small ones
# exclusive = true
# ///

# %% setup glue=workspace_mib
import torch
from tabulate import tabulate

from timing import CUDA, compare, first_call, peak_mib, warm
from model import build, device, loss_of
from _memory import allocated_mib, warm_cublas

# every compile below starts cold, as in a new process
torch.compiler.config.force_disable_caches = True


# cuBLAS's workspace, allocated once per thread, is part of every row's
# base (_memory.py)
workspace_mib = warm_cublas()
if CUDA:
    print(f"left allocated after a throw-away matrix product, "
          f"forward and backward: {workspace_mib:.0f} MiB")


def forward_backward(model, data):
    """Forward and backward passes; the gradients are dropped before the next
    call."""
    model.zero_grad(set_to_none=True)
    loss_of(model, *data).backward()


def with_budget(budget):
    """TorchInductor, with the partitioner's activation memory budget set
    while it compiles.

    The budget is read when the backward graph is partitioned, at compile
    time. As the backend, it goes with this compiled model only: Dynamo
    reuses what it compiled for one instance of a class for another instance
    compiled with an equal backend, and this backend equals no other."""
    inductor = torch._dynamo.lookup_backend("inductor")

    def backend(graph, example_inputs):
        with torch._functorch.config.patch(activation_memory_budget=budget):
            return inductor(graph, example_inputs)

    return backend


def prepare(checkpointing, compiled, budget=None):
    """One way of saving activations: its step, first call and memory.

    All rows stay alive until they are timed together, so memory is counted
    from what was allocated before this row's model was built, plus cuBLAS's
    workspace: the figures of a process that runs this row alone."""
    # the workspace and the rows built before this one
    held = allocated_mib()
    model, data = build(checkpointing)
    base = allocated_mib()  # weights and batch on top of that
    if not compiled:
        net = model
    elif budget is None:
        net = torch.compile(model)
    else:
        net = torch.compile(model, backend=with_budget(budget))
    step = lambda: forward_backward(net, data)  # noqa: E731
    result = {"first_s": first_call(step)}
    warm(step, 2)
    peak = peak_mib(step)
    if CUDA:
        result["peak_mib"] = peak - held + workspace_mib
        result["base_mib"] = base - held + workspace_mib
        result["above_base_mib"] = peak - base
    else:
        result["peak_mib"] = result["base_mib"] = None
    return step, result


# %% variants glue=memory
LABELS = {
    "eager": "eager",
    "eager_checkpoint": "eager, checkpoint per block",
    "compiled": "compiled",
    "compiled_checkpoint": "compiled, checkpoint per block",
    "compiled_budget": "compiled, activation_memory_budget=0.5",
}
prepared = {
    "eager": prepare(checkpointing=False, compiled=False),
    "eager_checkpoint": prepare(checkpointing=True, compiled=False),
    "compiled": prepare(checkpointing=False, compiled=True),
    "compiled_checkpoint": prepare(checkpointing=True, compiled=True),
    "compiled_budget": prepare(checkpointing=False, compiled=True,
                               budget=0.5),
}
# Forward and backward passes are a training loop's: timed back to back (GPU
# time per step), the five rows interleaved in rounds, each warmed first. A
# step takes milliseconds, so a round queues ten of them.
timed = compare({name: step for name, (step, _) in prepared.items()},
                measure="back_to_back", calls=10)
memory = {name: {**result, **timed[name]}
          for name, (_, result) in prepared.items()}


def mib(value):
    return "—" if value is None else f"{value:,.0f}"


print(tabulate([[LABELS[name], f"{r['first_s']:.1f}", f"{r['ms']:.2f}",
                 f"{r['p10']:.2f}–{r['p90']:.2f}",
                 mib(r["peak_mib"]), mib(r["base_mib"]),
                 mib(r.get("above_base_mib"))]
                for name, r in memory.items()],
               headers=["forward + backward", "first call (s)",
                        "back to back, median (ms)", "p10–p90 (ms)",
                        "peak (MiB)", "weights, batch, workspace (MiB)",
                        "peak above them (MiB)"]))

# %% chart
import matplotlib.pyplot as plt

if CUDA:
    names = list(memory)
    # narrow, large type and the legend below: readable on a phone. The
    # constrained layout fills the whole figure, so it is drawn narrower than
    # the other charts, whose empty margins are cropped.
    fig, ax = plt.subplots(figsize=(3.95, 4.4), layout="constrained")
    for name in names:
        r = memory[name]
        ax.errorbar(r["above_base_mib"], r["ms"],
                    yerr=[[r["ms"] - r["p10"]], [r["p90"] - r["ms"]]],
                    fmt="o", capsize=3, label=LABELS[name])
    ax.set_xlabel("peak memory above weights,\nbatch and workspace (MiB)")
    ax.set_ylabel("forward + backward,\nback to back, median (ms)")
    ax.tick_params(labelsize=10)
    fig.legend(fontsize=10, loc="outside lower left")
else:
    print("no chart without CUDA: peak memory is measured on the GPU")

# %% dropout glue=dropout_grads
# Dropout inside the compiled region. Its mask is random: the backward pass
# must apply the mask that the forward pass drew. Each variant's gradients
# are compared with eager's; the seed is set before every forward pass, and
# fallback_random makes the compiled code draw its random numbers as eager
# PyTorch does, so a correct variant draws eager's mask.
import warnings

from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(256, 1024), nn.Dropout(p=0.1),
                    nn.Linear(1024, 256)).to(device)
x = torch.randn(64, 256, device=device)


def gradients(fn):
    """All of mlp's gradients after one forward and backward pass of fn, as
    one flat tensor."""
    mlp.zero_grad(set_to_none=True)
    torch.manual_seed(1)  # the same random numbers for every variant
    fn(x).square().mean().backward()
    return torch.cat([p.grad.flatten() for p in mlp.parameters()])


eager = gradients(mlp)
variants = {
    "budget_1_0": torch.compile(mlp, backend=with_budget(1.0)),
    "budget_0_5": torch.compile(mlp, backend=with_budget(0.5)),
    "budget_0_0": torch.compile(mlp, backend=with_budget(0.0)),
    # explicit checkpointing of the same layers, under compile, with the
    # default budget
    "checkpoint": torch.compile(
        lambda inputs: checkpoint(mlp, inputs, use_reentrant=False)),
}
dropout_grads = {}
# read at compile time
with (torch._inductor.config.patch(fallback_random=True),
      warnings.catch_warnings()):
    # The products stay in full float32 on purpose, so that a difference of
    # 0.1 % stands out; Inductor's note that TF32 tensor cores are left
    # unused is silenced here.
    warnings.filterwarnings("ignore", "TensorFloat32", UserWarning)
    for name, fn in variants.items():
        grads = gradients(fn)
        # off by more than 1e-6 + 0.1 %
        differ = ~torch.isclose(grads, eager, rtol=1e-3, atol=1e-6)
        largest = (grads - eager).abs().max().item()
        dropout_grads[name] = {
            # the share of gradient elements
            "differ": differ.float().mean().item(),
            "max_abs": largest,
            # of eager's largest gradient
            "max_rel": largest / eager.abs().max().item()}

print(f"{eager.numel():,} gradient elements; "
      f"eager's largest is {eager.abs().max().item():.2e}")
print(tabulate([[name, f"{r['differ']:.1%}", f"{r['max_abs']:.2e}",
                 f"{r['max_rel']:.1%}"]
                for name, r in dropout_grads.items()],
               headers=["compiled", "elements unlike eager's",
                        "largest difference", "of eager's largest"],
               disable_numparse=True))
