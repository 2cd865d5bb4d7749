# /// capture
# gpus = 1
# timeout = 300     # about 40 s on an H100: small compiles, two short profiles
# exclusive = true
# ///

# %% setup
import torch
from torch import nn
from torch._dynamo.utils import counters
from torch.profiler import ProfilerActivity, profile

from _graphs import graphs_recorded  # the chapter's counter, in _graphs.py

torch.manual_seed(0)
# several compiled variants of one function below
torch._dynamo.config.recompile_limit = 16


def run_three_times(name, fn, *args):
    """Three calls (warm-up, record, replay); what they added in recorded
    graphs and skips."""
    # read afresh each time
    graphs, skips = (graphs_recorded(),
                     counters["inductor"]["cudagraph_skips"])
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    added = {"graphs": graphs_recorded() - graphs,
             "skips": counters["inductor"]["cudagraph_skips"] - skips}
    print(f"{name}: {added['graphs']} CUDA graph(s) recorded, "
          f"{added['skips']} skip(s)")
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
    "mutation": run_three_times("mutates its input", scale_in_place,
                                x.clone()),
    "cpu": run_three_times("CPU tensor input", with_cpu_tensor, x,
                           torch.rand(1024)),
}
torch._logging.set_logs()  # back to the default logging

# %% profile glue=launches
model = nn.Sequential(
    *[m for _ in range(8)
      for m in (nn.Linear(256, 256), nn.LayerNorm(256), nn.GELU())]
).cuda().eval()
small = torch.randn(8, 256, device="cuda")
LAUNCHES = ("cudaGraphLaunch", "cudaLaunchKernel", "cuLaunchKernel",
            "cuLaunchKernelEx")


def launches_per_call(fn, calls=10):
    """Host API calls that start GPU work, per call of fn, read from a
    profile."""
    with torch.no_grad():
        # compiled, recorded, replayed once before the profile
        for _ in range(3):
            fn(small)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU,
                                 ProfilerActivity.CUDA],
                     acc_events=True) as prof:
            for _ in range(calls):
                fn(small)
            torch.cuda.synchronize()
    counts = {e.key: e.count for e in prof.key_averages()
              if e.key in LAUNCHES}
    return {name: counts.get(name, 0) / calls for name in LAUNCHES}


launches = {
    "eager": launches_per_call(model),
    "default": launches_per_call(torch.compile(model)),
    "reduce-overhead": launches_per_call(
        torch.compile(model, mode="reduce-overhead")),
}
print(f"{'per call':<16}" + "".join(f"{name:>18}" for name in LAUNCHES))
for variant, counts in launches.items():
    print(f"{variant:<16}"
          + "".join(f"{counts[name]:>18.1f}" for name in LAUNCHES))

# %% step-marks glue=step_marks


def two_calls_per_step(mark_steps, steps=4):
    """Each step calls one compiled function twice and adds the results; a
    and b should give 2a + 2b."""
    double = torch.compile(lambda t: t * 2, mode="reduce-overhead")
    a, b = (torch.full((4,), 1.0, device="cuda"),
            torch.full((4,), 10.0, device="cuda"))
    start, results, error = graphs_recorded(), [], None
    for _ in range(steps):
        if mark_steps:
            torch.compiler.cudagraph_mark_step_begin()
        try:
            results.append((double(a) + double(b))[0].item())
        except RuntimeError as e:
            error = str(e).splitlines()[0]
            break
    return {"graphs": graphs_recorded() - start, "results": results,
            "error": error}


torch._dynamo.reset()
step_marks = {"without": two_calls_per_step(False)}
torch._dynamo.reset()
step_marks["with"] = two_calls_per_step(True)
for name, result in step_marks.items():
    print(f"{name} cudagraph_mark_step_begin(): "
          f"{result['graphs']} graph(s) recorded, "
          f"2·1 + 2·10 gave {result['results']}, error: {result['error']}")
