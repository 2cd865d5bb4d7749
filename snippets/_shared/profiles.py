"""Reading torch.profiler results: kernels per call, the top kernels,
compiled regions, how busy the GPU was, and a timeline drawn from the events.

On a machine without CUDA the profile holds CPU operators only; the functions
then report CPU operators where they would report kernels, so the files still
run as a smoke test.
"""

from collections import defaultdict

import torch
from torch.autograd import DeviceType
from torch.profiler import (ProfilerActivity, profile, record_function,
                            schedule)

CUDA = torch.cuda.is_available()


def profiled(step, calls=3, warmup=1):
    """Profile `calls` calls of step(), each marked as "step", after `warmup`
    calls that the profiler runs but does not record: its own start-up (which
    leaves the GPU idle for a while) falls into those, as PyTorch's profiler
    recipe advises."""
    step()
    if CUDA:
        torch.cuda.synchronize()
    activities = [ProfilerActivity.CPU] + (
        [ProfilerActivity.CUDA] if CUDA else [])
    plan = schedule(wait=0, warmup=warmup, active=calls, repeat=1)
    # acc_events: one cycle, no warning
    with profile(activities=activities, schedule=plan,
                 acc_events=True) as prof:
        for n in range(warmup + calls):
            with record_function("step"):
                step()
            if CUDA and n in (warmup - 1, warmup + calls - 1):
                # no warm-up kernel runs into the recorded calls, all of
                # theirs end in it
                torch.cuda.synchronize()
            prof.step()
    prof.calls = calls
    return prof


def kernels(prof):
    """The GPU kernels of the profile (CPU operators without a parent,
    without CUDA). A record_function range (ours, "step", or one inside
    PyTorch such as an optimizer's step) also shows up on the GPU's lane as
    an annotation spanning its kernels: that is not a kernel."""
    if CUDA:
        return [e for e in prof.events()
                if e.device_type == DeviceType.CUDA
                and not e.is_user_annotation]
    return [e for e in prof.events()
            if e.cpu_parent is not None and e.cpu_parent.name == "step"]


def summary(prof):
    """Per call: kernels launched, their total time in µs; and the compiled
    regions seen."""
    found = kernels(prof)
    regions = sorted({e.name for e in prof.events() if "Compiled" in e.name})
    return {"kernels": len(found) / prof.calls,
            "kernel_us": sum(e.time_range.elapsed_us() for e in found)
                         / prof.calls,
            "busy": busy_fraction(prof),
            "regions": regions}


def top(prof, count=8, width=60):
    """The kernels that took the most time: rows of (name, launches per call,
    µs per call, share)."""
    total, calls, times = 0.0, defaultdict(int), defaultdict(float)
    for e in kernels(prof):
        calls[e.name] += 1
        times[e.name] += e.time_range.elapsed_us()
        total += e.time_range.elapsed_us()
    rows = sorted(times, key=times.get, reverse=True)[:count]
    return [(name if len(name) <= width else name[: width - 1] + "…",
             calls[name] / prof.calls, times[name] / prof.calls,
             times[name] / total) for name in rows]


def busy_fraction(prof):
    """Share of the profiled time (first step's start to the last kernel's
    end) the GPU was running a kernel."""
    found = sorted((e.time_range.start, e.time_range.end)
                   for e in kernels(prof))
    steps = [e for e in prof.events()
             if e.name == "step" and e.device_type == DeviceType.CPU]
    if not found or not steps:
        return None
    start, end = (min(e.time_range.start for e in steps),
                  max(end for _, end in found))
    covered, last = 0.0, start
    for s, e in found:  # the union of the kernel intervals
        s = max(s, last)
        if e > s:
            covered, last = covered + e - s, e
    return covered / (end - start)


def lanes(prof):
    """For a timeline: (start, duration) in ms of the steps on the CPU and of
    the kernels on the GPU."""
    steps = [e for e in prof.events()
             if e.name == "step" and e.device_type == DeviceType.CPU]
    origin = min(e.time_range.start for e in steps)

    def spans(events):
        return [((e.time_range.start - origin) / 1000,
                 e.time_range.elapsed_us() / 1000) for e in events]

    return {"CPU: step()": spans(steps),
            "GPU: kernels" if CUDA else "CPU: operators":
                spans(kernels(prof))}


def timeline(ax, prof, title):
    """Draw the lanes of a profile on a matplotlib axis."""
    for row, (label, spans) in enumerate(lanes(prof).items()):
        ax.broken_barh(spans, (row - 0.35, 0.7),
                       color=("#ff9800", "#3f51b5")[row], edgecolor="white",
                       linewidth=0.3, label=label)
    ax.set_yticks([0, 1], list(lanes(prof)))
    # the CPU on top, the GPU below it, as trace viewers draw them
    ax.invert_yaxis()
    ax.set_title(title, fontsize=10, loc="left")
