# /// capture
# gpus = 1
# timeout = 300     # about 40 s on an H100: small compiles, two short profiles
# exclusive = true
# ///

# %% setup
import torch
from torch import nn
from torch._dynamo.utils import counters
from torch._inductor import cudagraph_trees
from torch.profiler import ProfilerActivity, profile

torch.manual_seed(0)
torch._dynamo.config.recompile_limit = 16  # several compiled variants of one function below


def graphs_recorded():
    """CUDA graphs recorded so far: the nodes of the CUDA-graph trees."""
    manager = cudagraph_trees.get_manager(torch.cuda.current_device(), create_if_none_exists=False)
    if manager is None:
        return 0
    count = lambda nodes: sum(1 + count([c for kids in n.children.values() for c in kids]) for n in nodes)
    return count(list(manager.get_roots()))


def run_three_times(name, fn, *args):
    """Three calls (warm-up, record, replay); what they added in recorded graphs and skips."""
    graphs, skips = graphs_recorded(), counters["inductor"]["cudagraph_skips"]  # read afresh each time
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    added = {"graphs": graphs_recorded() - graphs, "skips": counters["inductor"]["cudagraph_skips"] - skips}
    print(f"{name}: {added['graphs']} CUDA graph(s) recorded, {added['skips']} skip(s)")
    return added


x = torch.randn(1024, 1024, device="cuda")

# %% skips glue=skips
torch._logging.set_logs(cudagraphs=True)  # show why a graph is skipped


@torch.compile(mode="reduce-overhead")
def scale(x):
    return torch.relu(x) * 2


@torch.compile(mode="reduce-overhead")
def scale_in_place(x):
    x.mul_(0.5)  # mutates its input, which the graph does not own
    return torch.relu(x) * 2


@torch.compile(mode="reduce-overhead")
def with_cpu_tensor(x, weights):
    return torch.relu(x) * weights.to(x.device)  # weights live on the CPU


skips = {
    "plain": run_three_times("plain", scale, x),
    "mutation": run_three_times("mutates its input", scale_in_place, x.clone()),
    "cpu": run_three_times("CPU tensor input", with_cpu_tensor, x, torch.rand(1024)),
}
torch._logging.set_logs()  # back to the default logging

# %% profile glue=launches
model = nn.Sequential(*[m for _ in range(8) for m in (nn.Linear(256, 256), nn.LayerNorm(256), nn.GELU())]).cuda().eval()
small = torch.randn(8, 256, device="cuda")
LAUNCHES = ("cudaGraphLaunch", "cudaLaunchKernel", "cuLaunchKernel", "cuLaunchKernelEx")


def launches_per_call(fn, calls=10):
    """Host API calls that start GPU work, per call of fn, read from a profile."""
    with torch.no_grad():
        for _ in range(3):  # compiled, recorded, replayed once before the profile
            fn(small)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                fn(small)
            torch.cuda.synchronize()
    counts = {e.key: e.count for e in prof.key_averages() if e.key in LAUNCHES}
    return {name: counts.get(name, 0) / calls for name in LAUNCHES}


launches = {
    "eager": launches_per_call(model),
    "default": launches_per_call(torch.compile(model)),
    "reduce-overhead": launches_per_call(torch.compile(model, mode="reduce-overhead")),
}
print(f"{'per call':<16}" + "".join(f"{name:>18}" for name in LAUNCHES))
for variant, counts in launches.items():
    print(f"{variant:<16}" + "".join(f"{counts[name]:>18.1f}" for name in LAUNCHES))

# %% overwritten glue=overwritten
graphed = torch.compile(model, mode="reduce-overhead")
with torch.no_grad():
    kept = [graphed(small) for _ in range(3)]  # three outputs, kept, of the same replayed graph
try:
    print(kept[0].sum().item())
    overwritten = None
except RuntimeError as error:
    overwritten = str(error).splitlines()[0]
    print("RuntimeError:", overwritten)
with torch.no_grad():
    kept = [graphed(small).clone() for _ in range(3)]  # a copy outside the graph's memory
print("with clone():", kept[0].sum().item() == kept[2].sum().item())

# %% mark-step glue=mark_step


def loop(mark_step, steps=6):
    """Each step reads the previous step's output after calling the graph again."""
    step_fn = torch.compile(lambda t: torch.tanh(t) * 2, mode="reduce-overhead")
    start, previous, error = graphs_recorded(), None, None
    t = torch.randn(256, 256, device="cuda")
    for _ in range(steps):
        if mark_step:
            torch.compiler.cudagraph_mark_step_begin()
        out = step_fn(t)
        try:
            if previous is not None:
                (out - previous).abs().max().item()
        except RuntimeError as e:
            error = str(e).splitlines()[0]
        previous = out
    return {"graphs": graphs_recorded() - start, "error": error}


mark_step = {"without": loop(False), "with": loop(True)}
for name, result in mark_step.items():
    print(f"{name} cudagraph_mark_step_begin(): {result['graphs']} graph(s) recorded, error: {result['error']}")
