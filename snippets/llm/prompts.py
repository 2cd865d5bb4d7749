# /// capture
# gpus = 1
# timeout = 420     # about 75 s on an H100: three fresh processes, each compiling the prompt pass one way
# exclusive = true
# ///

# %% setup
import json
import os
import subprocess
import sys
import tempfile

from tabulate import tabulate

# the timing helpers (snippets/_shared/timing.py), which the child processes
# import too
import timing
# the decoder of model.py, beside this file, with the three ways to compile
# its prompt pass
import model
from model import BUCKETS, LENGTHS

# What one fresh process does with one way (model.PROMPT_WAYS): build the
# model; run the eager prompt pass once at every length it will meet,
# untimed, so that the attention and matrix libraries have met every shape
# before the first timed request; then send the seven prompts once each,
# timing every first call (compiles included), count the graphs, time the
# steady prompt pass of the 50-token prompt, and compare the logits with
# eager ones.
CHILD = """
import json, sys, torch
from torch._dynamo.utils import counters
from timing import back_to_back, first_call, latency, sync
from model import (BUCKETS, LENGTHS, PROMPT_WAYS, VOCAB, build, device,
                   prefill_logits)

torch.set_grad_enabled(False)
model = build()
prompts = [torch.randint(VOCAB, (1, n), device=device) for n in LENGTHS]
# untimed: every prompt length and every bucket
for n in sorted(set(LENGTHS) | set(BUCKETS)):
    prefill_logits(model, torch.randint(VOCAB, (1, n), device=device))
sync()
# the compiles below start cold
torch.compiler.config.force_disable_caches = True
run = PROMPT_WAYS[sys.argv[1]](model)
counters.clear()
first_s = [first_call(lambda: run(p)) for p in prompts]
# read afresh, after the compiles
graphs = counters["stats"]["unique_graphs"]
fifty = prompts[LENGTHS.index(50)]
result = {"graphs": graphs, "first_s": first_s,
          "total_first_s": sum(first_s),
          **back_to_back(lambda: run(fifty)),
          "latency": latency(lambda: run(fifty)),
          "max_diff": max(
              (run(p).float() - prefill_logits(model, p).float())
              .abs().max().item() for p in prompts)}
print(json.dumps(result))
"""


def serve(way):
    """Run CHILD for one way in a new Python process, with compile cache
    folders of its own."""
    cache = tempfile.mkdtemp()
    env = dict(os.environ,
               PYTHONPATH=os.pathsep.join(
                   os.path.dirname(os.path.abspath(m.__file__))
                   for m in (model, timing)),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"),
               TRITON_CACHE_DIR=os.path.join(cache, "triton"))
    done = subprocess.run([sys.executable, "-c", CHILD, way], env=env,
                          capture_output=True, text=True)
    # reported, so that the other ways are still measured
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines()[-1] if done.stderr.strip()
                else "no message")
        print(f"{way}: the process failed with exit status "
              f"{done.returncode}: {last}")
        return {"error": last}
    return json.loads(done.stdout.strip().splitlines()[-1])


# %% default glue=automatic
# The default (model.default_way): the first length is compiled static; the
# second one fails a guard and is compiled again with the length as a symbol;
# the later lengths reuse that graph.
automatic = serve("default")

# %% mark-dynamic glue=marked
# mark_dynamic (model.marked_way) says ahead of time that dimension 1, the
# length, will vary: one graph from the start.
marked = serve("mark_dynamic")

# %% buckets glue=bucketed
# Padding buckets (model.bucketed_way): each prompt padded after its end to
# the next of BUCKETS, each bucket compiled static (dynamic=False) when first
# used.
bucketed = serve("buckets")

# %% compare glue=same_logits
# Each way ran in a process of its own, after the same untimed eager pass: no
# way pays for the libraries' first use of a shape more than another. The
# steady 50-token prompt pass is timed back to back (GPU time per pass, the
# compiled code's own speed) and as latency from idle (one request, the
# host's launch time included).
results = {"default": automatic, "mark_dynamic": marked, "buckets": bucketed}
print(tabulate([[name, r["graphs"],
                 " ".join(f"{s:.2f}" for s in r["first_s"]),
                 f"{r['total_first_s']:.1f}",
                 f"{r['ms']:.2f}", f"{r['p10']:.2f}–{r['p90']:.2f}",
                 f"{r['latency']['ms']:.2f}",
                 f"{r['latency']['p10']:.2f}–{r['latency']['p90']:.2f}"]
                if "error" not in r else [name, "failed"]
                for name, r in results.items()],
               headers=["prompt lengths", "graphs",
                        "first call per request (s)", "total (s)",
                        "50 tokens, back to back (ms)", "p10–p90",
                        "latency from idle (ms)", "p10–p90"]))
print("requests:", ", ".join(map(str, LENGTHS)), "tokens; buckets:",
      ", ".join(map(str, BUCKETS)))

# the three ways give the same next-token logits for every prompt as eager
# (up to rounding)
same_logits = bucketed.get("max_diff")
for name, r in results.items():
    if "error" not in r:
        print(f"largest difference between {name} and eager logits: "
              f"{r['max_diff']:.3g}")
