# /// capture
# gpus = 1
# timeout = 420     # about 90 s on an H100: five compiles of a small model, sixteen batch sizes each
# exclusive = true
# ///

# %% setup
import time

import torch
from tabulate import tabulate
from torch import nn
from torch._dynamo.utils import counters

import timing
from _graphs import graphs_recorded  # the chapter's counter, in _graphs.py

torch.manual_seed(0)
# five compiled variants of one model below: room for all their graphs
torch._dynamo.config.recompile_limit = 16
WIDTH = 1024
# sixteen batch sizes, as a server sees them
SIZES = list(range(16, 257, 16))
model = nn.Sequential(
    *[m for _ in range(4) for m in (nn.Linear(WIDTH, WIDTH), nn.GELU())]
).cuda().eval()
batches = {size: torch.randn(size, WIDTH, device="cuda") for size in SIZES}



def state():
    """What one variant's warm-up adds: recorded graphs, Dynamo graphs, skips
    and reserved memory."""
    return {"graphs": graphs_recorded(),
            "dynamo": counters["stats"]["unique_graphs"],
            "skips": counters["inductor"]["cudagraph_skips"],
            "mib": torch.cuda.memory_reserved() / 2**20}


def serve(fn, prepare=lambda x: x, inputs=batches):
    """One pass over every batch size, the way a server meets them; outputs
    are not kept."""
    def one_pass():
        with torch.no_grad():
            for size in SIZES:
                fn(prepare(inputs[size]))[:size]
    return one_pass


def warm_up(name, fn, prepare=lambda x: x, inputs=batches, passes=3):
    """From a clean slate (no compiled code, no CUDA graphs, no cached
    memory), three passes (a CUDA graph is recorded on a size's second call
    and replayed from its third), each timed from idle; returns what the
    variant added and the passes' seconds."""
    # also frees the CUDA-graph trees and what Dynamo learnt about shapes
    torch._dynamo.reset()
    torch.cuda.empty_cache()
    before, seconds = state(), []
    step = serve(fn, prepare, inputs)
    for _ in range(passes):
        timing.sync()
        started = time.perf_counter()
        step()
        timing.sync()
        seconds.append(time.perf_counter() - started)
    after = state()
    added = {key: after[key] - before[key] for key in after}
    return dict(added, name=name, seconds=seconds), step


# %% varying glue=varying
ro = torch.compile(model, mode="reduce-overhead")
varying, ro_pass = warm_up("reduce-overhead", ro)
print(f"{len(SIZES)} batch sizes, three passes each:")
print(f"  CUDA graphs recorded:  {varying['graphs']}")
print(f"  Dynamo graphs:         {varying['dynamo']}")
print(f"  memory reserved added: {varying['mib']:.0f} MiB")
print("  seconds per pass:      "
      + ", ".join(f"{s:.2f}" for s in varying["seconds"]))


# %% fixes glue=fixes
def next_bucket(x):
    """Pad the batch up to the next power of two: 16, 32, 64, 128 or 256
    rows."""
    rows = 1 << (x.shape[0] - 1).bit_length()
    return torch.nn.functional.pad(x, (0, 0, 0, rows - x.shape[0]))


marked = torch.compile(model, mode="reduce-overhead")
marked_batches = {size: x.clone() for size, x in batches.items()}
for x in marked_batches.values():
    # dynamic from the first call: no static graph, no recompile
    torch._dynamo.mark_dynamic(x, 0)
marked_result, marked_pass = warm_up("mark_dynamic", marked,
                                     inputs=marked_batches)
buckets = torch.compile(model, mode="reduce-overhead")
skip_dynamic = torch.compile(model, mode="reduce-overhead")
# read when a graph compiles
torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True
skip_result, _ = warm_up("skip dynamic graphs", skip_dynamic)
torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = False
buckets_result, buckets_pass = warm_up("padded to 5 buckets", buckets,
                                       next_bucket)
default = torch.compile(model)
default_result, default_pass = warm_up("default mode", default)

rows = [varying, marked_result, buckets_result, skip_result, default_result]
print(tabulate([(r["name"], r["graphs"], r["dynamo"], r["skips"],
                 f"{r['mib']:.0f}",
                 " / ".join(f"{s:.2f}" for s in r["seconds"]))
                for r in rows],
               headers=["variant", "CUDA graphs", "Dynamo graphs", "skips",
                        "MiB added", "s per pass 1 / 2 / 3"]))
fixes = {r["name"]: r for r in rows}

# %% replay-time glue=replay
# Each variant recompiles and records again during compare()'s untimed
# warm-up (warm_up reset them). "skip dynamic graphs" is left out: its
# setting is read when a graph compiles, and it is off again.
passes = {"eager": serve(model), "default mode": default_pass,
          "reduce-overhead": ro_pass,
          "padded to 5 buckets": buckets_pass}
replay = timing.compare(passes, "back_to_back", rounds=10, calls=3)
print("one pass over the sixteen sizes, back to back (GPU time per pass):")
for name, m in replay.items():
    print(f"  {name:<20} {timing.spread(m)}")
