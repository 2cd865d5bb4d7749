# /// capture
# gpus = 1
# timeout = 300
# exclusive = true
# ///

# %% measure
import statistics
import time

import torch


def measure(step, warmup=10, repeats=50):
    """Steady-state time of step() in ms: (median, 10th percentile, 90th percentile).

    Each call is timed with CUDA events after `warmup` untimed calls, so compilation,
    autotuning and CUDA-graph recording are not part of the numbers.
    """
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    deciles = statistics.quantiles(times, n=10)
    return statistics.median(times), deciles[0], deciles[-1]


def first_call(step):
    """Wall time in seconds of the first call: compilation plus one run."""
    torch.cuda.synchronize()
    started = time.perf_counter()
    step()
    torch.cuda.synchronize()
    return time.perf_counter() - started


# %% compare
MODES = ("default", "reduce-overhead", "max-autotune")


def compare(name, build_step, dtype, modes=MODES):
    """Time eager and each compile mode; build_step(wrap) returns a step with the model wrapped."""
    eager_ms, lo, hi = measure(build_step(lambda model: model))
    rows = [
        dict(model=name, dtype=dtype, mode="eager", compile_s=None, ms=eager_ms, p10=lo, p90=hi, speedup=1.0)
    ]
    for mode in modes:
        torch._dynamo.reset()  # forget earlier compilations: every mode starts cold
        step = build_step(lambda model: torch.compile(model, mode=mode))
        cache = torch._dynamo.utils.counters["inductor"]  # Inductor's FX graph cache: lookups during the first call
        before = [cache[f"fxgraph_cache_{kind}"] for kind in ("hit", "miss", "bypass")]
        compile_s = first_call(step)
        lookups = [cache[f"fxgraph_cache_{kind}"] - n for kind, n in zip(("hit", "miss", "bypass"), before)]
        ms, lo, hi = measure(step)
        rows.append(
            dict(
                model=name,
                dtype=dtype,
                mode=mode,
                compile_s=compile_s,
                ms=ms,
                p10=lo,
                p90=hi,
                speedup=eager_ms / ms,
                cache="/".join(map(str, lookups)),
            )
        )
    return rows


def by_mode(rows):
    """The rows keyed by mode, for the chapter's prose to quote (glued values)."""
    return {r["mode"]: r for r in rows}


def inference_steps(model, images):
    """For compare(): a forward pass under no_grad, in float32 or under bfloat16 autocast."""

    def for_dtype(dtype):
        def build_step(wrap):
            net = wrap(model)

            def step():
                with torch.no_grad(), torch.autocast("cuda", torch.bfloat16, enabled=dtype == "bfloat16"):
                    return net(images)

            return step

        return build_step

    return for_dtype


def training_steps(model, images, labels):
    """For compare(): forward, loss, backward and an SGD step; only the model is compiled."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def for_dtype(dtype):
        def build_step(wrap):
            net = wrap(model)

            def step():
                optimizer.zero_grad(set_to_none=True)
                with torch.autocast("cuda", torch.bfloat16, enabled=dtype == "bfloat16"):
                    loss = torch.nn.functional.cross_entropy(net(images), labels)
                loss.backward()
                optimizer.step()

            return step

        return build_step

    return for_dtype


def table(rows):
    from tabulate import tabulate

    return tabulate(
        [
            (
                r["model"],
                r["dtype"],
                r["mode"],
                "—" if r["compile_s"] is None else f"{r['compile_s']:.1f}",
                f"{r['ms']:.2f}",
                f"{r['p10']:.2f}–{r['p90']:.2f}",
                f"{r['speedup']:.2f}×",
                r.get("cache", "—"),
            )
            for r in rows
        ],
        headers=["model", "dtype", "mode", "first call (s)", "median (ms)", "p10–p90 (ms)", "speedup",
                 "FX graph cache hit/miss/bypass"],
    )


def chart(rows, title):
    """Two panels from the measured rows: speedup over eager, and the first call's cost."""
    import matplotlib.pyplot as plt

    compiled = [r for r in rows if r["mode"] != "eager"]
    modes = [r["mode"] for r in compiled]
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 2.8))
    bars = left.bar(modes, [r["speedup"] for r in compiled], color="#3f51b5")
    left.bar_label(bars, fmt="%.2f×", fontsize=8)
    left.axhline(1.0, color="grey", linewidth=0.8)
    left.set_ylabel("speedup over eager")
    bars = right.bar(modes, [r["compile_s"] for r in compiled], color="#ff9800")
    right.bar_label(bars, fmt="%.0f s", fontsize=8)
    right.set_ylabel("first call (s)")
    for ax in (left, right):
        ax.tick_params(axis="x", labelsize=8)
        ax.margins(y=0.15)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()


# %% demo
if __name__ == "__main__":  # the model files import the helpers above; this part runs only here
    torch.set_float32_matmul_precision("high")
    x = torch.randn(1 << 26, device="cuda")

    def pointwise(t):
        return torch.nn.functional.gelu(t) * torch.sigmoid(t) + 0.5 * t

    eager_ms, _, _ = measure(lambda: pointwise(x))
    compiled = torch.compile(pointwise)
    compile_s = first_call(lambda: compiled(x))
    compiled_ms, lo, hi = measure(lambda: compiled(x))
    print(f"eager:    {eager_ms:6.2f} ms per call")
    print(
        f"compiled: {compiled_ms:6.2f} ms per call (p10–p90 {lo:.2f}–{hi:.2f}), "
        f"first call {compile_s:.1f} s, speedup {eager_ms / compiled_ms:.2f}×"
    )
