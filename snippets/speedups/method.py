# /// capture
# gpus = 1
# timeout = 300
# exclusive = true
# ///

# %% measure
import torch

# the guide's shared timing method (snippets/_shared/timing.py)
import timing

MEASURES = ("back_to_back", "latency")


def measure(variants, rounds=15, calls=10):
    """Both of the guide's measures for each variant (name -> step),
    interleaved in rounds.

    timing.compare warms every variant, then times them in rounds, A B C, B C
    A, ..., so that drift falls on all of them alike. Back to back: `calls`
    calls queued between two CUDA events, GPU time per call. Latency from
    idle: one synchronised call. Each is a median with its 10th-90th
    percentile range across the rounds."""
    return {measure: timing.compare(variants, measure, rounds=rounds,
                                    calls=calls)
            for measure in MEASURES}


# %% compare
MODES = ("default", "reduce-overhead", "max-autotune")


def cache_lookups():
    """Inductor's FX graph cache lookups so far: hits, misses, bypasses.

    Read afresh each time: compiling replaces the counter object, so one held
    across a compilation stops counting."""
    inductor = torch._dynamo.utils.counters["inductor"]
    return [inductor[f"fxgraph_cache_{kind}"]
            for kind in ("hit", "miss", "bypass")]


def compare(name, build_step, dtype, modes=MODES):
    """Eager and each compile mode; build_step(wrap) returns a step with the
    model wrapped.

    Each mode's first call (its compilation) is timed on its own with
    timing.first_call; then all variants are measured together, interleaved.
    """
    steps = {"eager": build_step(lambda model: model)}
    rows = {"eager": dict(model=name, dtype=dtype, mode="eager",
                          compile_s=None)}
    for mode in modes:
        steps[mode] = build_step(
            lambda model: torch.compile(model, mode=mode))
        before = cache_lookups()
        compile_s = timing.first_call(steps[mode])
        lookups = [n - m for n, m in zip(cache_lookups(), before)]
        rows[mode] = dict(model=name, dtype=dtype, mode=mode,
                          compile_s=compile_s,
                          cache="/".join(map(str, lookups)))
    measured = measure(steps)
    eager_ms = measured["back_to_back"]["eager"]["ms"]
    for mode, row in rows.items():
        b2b, idle = measured["back_to_back"][mode], measured["latency"][mode]
        row.update(ms=b2b["ms"], p10=b2b["p10"], p90=b2b["p90"],
                   rounds=b2b["rounds"], speedup=eager_ms / b2b["ms"],
                   latency=idle)
    return list(rows.values())


def by_mode(rows):
    """The rows keyed by mode, for the chapter's prose to quote (glued
    values)."""
    return {r["mode"]: r for r in rows}


def inference_steps(model, images):
    """For compare(): a forward pass under no_grad, in float32 or under
    bfloat16 autocast."""

    def for_dtype(dtype):
        def build_step(wrap):
            net = wrap(model)

            def step():
                with torch.no_grad(), torch.autocast(
                        "cuda", torch.bfloat16, enabled=dtype == "bfloat16"):
                    return net(images)

            return step

        return build_step

    return for_dtype


def training_steps(model, images, labels):
    """For compare(): forward, loss, backward and an SGD step; only the model
    is compiled."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def for_dtype(dtype):
        def build_step(wrap):
            net = wrap(model)

            def step():
                optimizer.zero_grad(set_to_none=True)
                with torch.autocast("cuda", torch.bfloat16,
                                    enabled=dtype == "bfloat16"):
                    loss = torch.nn.functional.cross_entropy(
                        net(images), labels)
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
                r["mode"],
                "—" if r["compile_s"] is None else f"{r['compile_s']:.1f}",
                f"{r['ms']:.2f} ({r['p10']:.2f}–{r['p90']:.2f})",
                f"{r['speedup']:.2f}×",
                f"{r['latency']['ms']:.2f} "
                f"({r['latency']['p10']:.2f}–{r['latency']['p90']:.2f})",
                r.get("cache", "—"),
            )
            for r in rows
        ],
        headers=["mode", "first call s", "back to back ms", "speedup",
                 "latency ms", "cache h/m/b"],
    )


def chart(rows, title):
    """Two panels from the measured rows, one above the other (readable on
    a phone): speedup over eager, and the first call's cost."""
    import matplotlib.pyplot as plt

    compiled = [r for r in rows if r["mode"] != "eager"][::-1]
    modes = [r["mode"] for r in compiled]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(4.2, 4.4))
    bars = top.barh(modes, [r["speedup"] for r in compiled],
                    color="#3f51b5")
    top.bar_label(bars, fmt="%.2f×", fontsize=10)
    top.axvline(1.0, color="grey", linewidth=0.8)
    top.set_xlabel("speedup over eager (back to back)")
    bars = bottom.barh(modes, [r["compile_s"] for r in compiled],
                       color="#ff9800")
    bottom.bar_label(bars, fmt="%.0f s", fontsize=10)
    bottom.set_xlabel("first call (s)")
    for ax in (top, bottom):
        ax.tick_params(labelsize=10)
        ax.margins(x=0.2)
    # the device's name on a line of its own
    fig.suptitle("\n".join(title.rsplit(", ", 1)), fontsize=10)
    fig.tight_layout()


# %% demo
# the model files import the helpers above; this part runs only here
if __name__ == "__main__":
    x = torch.randn(1 << 26, device="cuda")

    def pointwise(t):
        return torch.nn.functional.gelu(t) * torch.sigmoid(t) + 0.5 * t

    compiled = torch.compile(pointwise)
    compile_s = timing.first_call(lambda: compiled(x))
    measured = measure({"eager": lambda: pointwise(x),
                        "compiled": lambda: compiled(x)})
    for kind, label in (("back_to_back", "back to back"),
                        ("latency", "latency from idle")):
        eager, fast = measured[kind]["eager"], measured[kind]["compiled"]
        print(f"{label:>17}: eager {timing.spread(eager)}")
        print(f"{'':>17}  compiled {timing.spread(fast)}, "
              f"speedup {eager['ms'] / fast['ms']:.2f}×")
    print(f"first call of the compiled function: {compile_s:.1f} s")
