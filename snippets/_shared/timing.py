"""The guide's timing method (the Speedups chapter explains it), shared by
every snippet file.

Two measures, and every timed figure in the guide names the one it comes
from:

- latency(): **latency from idle**. One call on an idle GPU, synchronised,
  timed with the host's clock: what a request-serving loop sees, from the
  call to the result being ready. It holds the host's launch time (Python,
  the dispatcher, guards, kernel launches) and the GPU's work, so it depends
  on the host CPU as well as the GPU.
- back_to_back(): **throughput back to back**. Many calls queued without
  synchronising, between two CUDA events: the GPU time per call of a training
  or batch loop, where the host runs ahead of the GPU. Where the host is
  slower than the GPU, the host's time shows through, as it would in such a
  loop.

compare() times several variants with one measure, interleaved in rounds
(A B C A B C ...) after warming every variant, so that drift and order fall
on all of them alike. Every measure returns the median and the 10th-90th
percentile range across rounds, and the number of rounds: a figure in the
guide comes with its spread. first_call() times one call from cold: for a
compiled function, its compilation plus one run.

Without CUDA every measure falls back to the host's clock, so the files also
run (slowly, with small sizes) on a CPU.
"""

import statistics
import time

import torch

CUDA = torch.cuda.is_available()


def sync():
    if CUDA:
        torch.cuda.synchronize()


def summary(times):
    """Per-round times in ms as {"ms": median, "p10", "p90", "min", "max",
    "rounds"}."""
    times = sorted(times)
    deciles = (statistics.quantiles(times, n=10, method="inclusive")
               if len(times) > 1 else times * 9)
    return {"ms": statistics.median(times),
            "p10": deciles[0], "p90": deciles[-1],
            "min": times[0], "max": times[-1], "rounds": len(times)}


def _latency_once(step):
    sync()
    started = time.perf_counter()
    step()
    sync()
    return (time.perf_counter() - started) * 1000


def _back_to_back_once(step, calls):
    if not CUDA:
        started = time.perf_counter()
        for _ in range(calls):
            step()
        return (time.perf_counter() - started) * 1000 / calls
    sync()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        step()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / calls


MEASURES = {
    "latency": lambda step, calls: _latency_once(step),
    "back_to_back": _back_to_back_once,
}


def warm(step, calls=5):
    """Untimed calls (compilation, autotuning, CUDA-graph recording,
    allocator growth), then a sync."""
    for _ in range(calls):
        step()
    sync()


def compare(variants, measure="back_to_back", rounds=15, calls=20, warmup=5):
    """Time each variant (name -> step) with one measure, interleaved in
    rounds.

    Every variant is warmed first; each round then times every variant once,
    in the order given, rotated by one each round, so no variant always
    follows the same one. For "back_to_back", a round queues ``calls`` calls
    between two events and records the time per call; for "latency", a round
    is one synchronised call. Returns name -> summary().
    """
    once = MEASURES[measure]
    for step in variants.values():
        warm(step, warmup)
    names = list(variants)
    times = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(once(variants[name], calls))
    return {name: dict(summary(t), measure=measure)
            for name, t in times.items()}


def latency(step, rounds=15, warmup=5):
    """Latency from idle of one step, in ms (see the module's docstring)."""
    return compare({"step": step}, "latency", rounds=rounds,
                   warmup=warmup)["step"]


def back_to_back(step, rounds=15, calls=20, warmup=5):
    """Throughput back to back of one step: GPU time per call, in ms."""
    return compare({"step": step}, "back_to_back", rounds=rounds,
                   calls=calls, warmup=warmup)["step"]


def first_call(step):
    """Wall time in seconds of one call, the GPU's work included: for a
    compiled step, its compilation."""
    sync()
    started = time.perf_counter()
    step()
    sync()
    return time.perf_counter() - started


def peak_mib(step):
    """Peak GPU memory allocated during one call of step(), in MiB (None
    without CUDA)."""
    if not CUDA:
        step()
        return None
    sync()
    torch.cuda.reset_peak_memory_stats()
    step()
    sync()
    return torch.cuda.max_memory_allocated() / 2**20


def overlap(a, b):
    """Whether two measurements' p10-p90 ranges overlap (then neither is
    shown faster)."""
    return a["p10"] <= b["p90"] and b["p10"] <= a["p90"]


def spread(m):
    """A measurement as text: median, p10-p90 range across rounds, and which
    measure."""
    label = {"latency": "latency from idle",
             "back_to_back": "back to back"}.get(m.get("measure"), "")
    return (f"{m['ms']:.3f} ms ({m['p10']:.3f}–{m['p90']:.3f}, "
            f"{m['rounds']} rounds{', ' + label if label else ''})")
