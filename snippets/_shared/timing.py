"""The guide's timing method (the Speedups chapter explains it), shared by the snippet files.

measure() times steady-state calls: untimed warm-up calls first, then each call timed on the
GPU with a pair of CUDA events, summarised as the median and the 10th-90th percentile range.
first_call() times one call on its own with a wall clock: for a compiled function that is
compilation plus one run. On a machine without CUDA both fall back to a wall clock, so the
files also run (slowly, with small sizes) on a CPU.
"""

import statistics
import time

import torch

CUDA = torch.cuda.is_available()


def sync():
    if CUDA:
        torch.cuda.synchronize()


def measure(step, warmup=10, repeats=50):
    """Steady-state time of step() in ms: {"ms": median, "p10": 10th percentile, "p90": 90th}."""
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(repeats):
        if CUDA:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            started = time.perf_counter()
            step()
            times.append((time.perf_counter() - started) * 1000)
    deciles = statistics.quantiles(times, n=10)
    return {"ms": statistics.median(times), "p10": deciles[0], "p90": deciles[-1]}


def first_call(step):
    """Wall time in seconds of one call, the GPU's work included: for a compiled step, its compilation."""
    sync()
    started = time.perf_counter()
    step()
    sync()
    return time.perf_counter() - started


def peak_mib(step):
    """Peak GPU memory allocated during one call of step(), in MiB (None without CUDA)."""
    if not CUDA:
        step()
        return None
    sync()
    torch.cuda.reset_peak_memory_stats()
    step()
    sync()
    return torch.cuda.max_memory_allocated() / 2**20


def spread(m):
    """A measurement as text: median and p10-p90 range."""
    return f"{m['ms']:.2f} ms ({m['p10']:.2f}–{m['p90']:.2f})"
