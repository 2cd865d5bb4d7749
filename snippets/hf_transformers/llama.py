# /// capture
# gpus = 1
# timeout = 600     # not yet timed on an H100; about 2 min expected
# exclusive = true
# ///

# %% setup glue=versions
import logging
import re
from collections import Counter
from contextlib import contextmanager

import torch
import transformers
from tabulate import tabulate
from torch._dynamo.utils import counters
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

from timing import CUDA, compare, first_call

device = "cuda" if CUDA else "cpu"
versions = {"transformers": transformers.__version__,
            "torch": torch.__version__}
print(f"transformers {versions['transformers']}, "
      f"torch {versions['torch']}")

# %% model glue=model_info
# On a GPU: a Llama-style decoder of 12 layers of width 1024, in bfloat16.
# On a CPU: a narrow one, and a few tokens (a smoke test). Random weights:
# speed does not depend on them, but the text they generate means nothing.
if CUDA:
    size = dict(hidden_size=1024, intermediate_size=2816,
                num_hidden_layers=12, num_attention_heads=16,
                num_key_value_heads=8)
    PROMPT, NEW, DTYPE = 32, 128, torch.bfloat16
else:
    size = dict(hidden_size=64, intermediate_size=176,
                num_hidden_layers=4, num_attention_heads=4,
                num_key_value_heads=2)
    PROMPT, NEW, DTYPE = 8, 8, torch.float32
config = LlamaConfig(vocab_size=32000, max_position_embeddings=1024,
                     **size)
torch.manual_seed(0)
model = LlamaForCausalLM(config).to(device, DTYPE).eval()
model.generation_config.eos_token_id = None  # never stop before NEW
model.generation_config.pad_token_id = 0
prompt = torch.randint(config.vocab_size, (1, PROMPT), device=device)

model_info = {
    "params_m": sum(p.numel() for p in model.parameters()) / 1e6,
    "layers": config.num_hidden_layers,
    "attention": model.config._attn_implementation,
    "prompt": PROMPT, "new": NEW,
}
print(f"{model_info['layers']} decoder layers, "
      f"{model_info['params_m']:.0f} M parameters, {DTYPE}, "
      f"attention: {model_info['attention']}")

# %% generate
# generate() compiles the decoding step by itself when the cache is static
# and the model is on a GPU (a CPU needs the flag below, for a smoke test).
# Each variant says explicitly whether it wants that.
AUTO = hasattr(GenerationConfig(), "compile_config")  # this version does it
if AUTO and not CUDA:
    from transformers import CompileConfig

    model.generation_config.compile_config = CompileConfig(mode="default")
    model.generation_config.compile_config._compile_all_devices = True


def generate(auto_compile=False):
    """Greedy decoding of NEW tokens after the prompt, static cache."""
    no_auto = {"disable_compile": True} if AUTO and not auto_compile else {}
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt),
                         do_sample=False, max_new_tokens=NEW,
                         cache_implementation="static", **no_auto)
    return out[:, PROMPT:]


reference = generate()  # eager: the tokens every variant is checked against


def same_tokens(tokens):
    """How many of the NEW tokens match eager's, from the first one."""
    return (tokens == reference)[0].int().cumprod(0).sum().item()


# %% watch
# What TORCH_LOGS="recompiles" reports, kept instead of printed: for each
# recompile, the first guard that failed (text up to its source comment).


class Recompiles(logging.Handler):
    def __init__(self):
        super().__init__()
        self.reasons, self.lines = [], []

    def emit(self, record):
        failed = re.findall(r"^\s*- \d+/\d+: (.*)$", record.getMessage(),
                            re.M)
        if failed:
            self.lines.append(failed[0])
            self.reasons.append(re.split(r"\s+# ", failed[0])[0].strip())


class LimitHit(logging.Filter):
    """Keeps, instead of printing, the warning of a recompile limit hit."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def filter(self, record):
        message = record.getMessage()
        if "hit config." not in message:
            return True
        self.messages.append(message)
        return False


@contextmanager
def watch():
    """Graphs, graph breaks and recompiles of the compiles inside."""
    handler = Recompiles()
    loggers = [logging.getLogger(name)
               for name in list(logging.root.manager.loggerDict)
               if name.endswith("__recompiles")]
    limit = LimitHit()
    logging.getLogger("torch._dynamo.convert_frame").addFilter(limit)
    torch._logging.set_logs(recompiles=True)
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False  # kept, not printed
    counters.clear()
    found = {}
    try:
        yield found
    finally:
        torch._logging.set_logs()  # back to the defaults
        for logger in loggers:
            logger.removeHandler(handler)
            logger.propagate = True
        logging.getLogger("torch._dynamo.convert_frame").removeFilter(limit)
    breaks = counters["graph_break"]  # read afresh, after the compiles
    kinds = Counter(re.sub(r"\d+", "N", r) for r in handler.reasons)
    found.update(
        graphs=counters["stats"]["unique_graphs"],
        graph_breaks=sum(breaks.values()),
        break_reasons=sorted(breaks),
        recompiles=len(handler.reasons),
        reasons=dict(kinds.most_common()),
        layer_idx=sum(n for r, n in kinds.items() if "layer_idx" in r),
        lazy_init=sum(n for r, n in kinds.items()
                      if "is_initialized" in r),
        example=next((line for line in handler.lines
                      if "layer_idx" in line), ""),
        cudagraph_skips=counters["inductor"]["cudagraph_skips"],
        limit_hit=limit.messages[0].splitlines()[0] if limit.messages
        else None,
    )


def show(found):
    print(f"graphs {found['graphs']}, graph breaks {found['graph_breaks']}"
          f", recompiles {found['recompiles']}")
    for reason in found["break_reasons"]:
        print("  graph break:", reason.splitlines()[0])
    for reason, n in found["reasons"].items():
        print(f"  recompiled {n}× because this guard failed: {reason}")


# %% compile-forward glue=forward
# torch.compile the model's forward: generate() then calls the compiled
# forward for the prompt and for every new token. Two generate() calls:
# the second one shows what a later request compiles (nothing, at best).
compiled_forward = torch.compile(model.forward)


def with_compiled_forward():
    model.forward = compiled_forward  # what model(...) calls from now on
    try:
        return generate()
    finally:
        del model.forward  # back to the class's own forward


with watch() as forward:
    forward["compile_s"] = first_call(with_compiled_forward)
    forward["same_tokens"] = same_tokens(with_compiled_forward())
show(forward)
print(f"first call {forward['compile_s']:.1f} s, "
      f"{forward['same_tokens']} of {NEW} tokens as eager")

# %% speed glue=speed
# A whole generate() call is one request: latency from idle, eager and
# compiled interleaved over 10 rounds, after 2 untimed calls each.


def tokens_per_s(times):
    return {name: dict(m, tok_s=NEW / m["ms"] * 1000,
                       tok_s_p10=NEW / m["p90"] * 1000,
                       tok_s_p90=NEW / m["p10"] * 1000)
            for name, m in times.items()}


def table(speed):
    print(tabulate(
        [[name, f"{s['ms']:.1f}", f"{s['p10']:.1f}–{s['p90']:.1f}",
          f"{s['tok_s']:,.0f}", f"{speed['eager']['ms'] / s['ms']:.2f}×"]
         for name, s in speed.items()],
        headers=["generate()", "ms", "p10–p90", "tokens/s", "vs eager"]))
    print(f"{PROMPT}-token prompt, {NEW} new tokens, latency from idle, "
          f"{speed['eager']['rounds']} rounds")


speed = tokens_per_s(compare(
    {"eager": generate, "compiled forward": with_compiled_forward},
    "latency", rounds=10, warmup=2))
table(speed)

# %% compile-generate glue=auto
# generate()'s own compile: the decoding step only, with its CompileConfig
# (mode="reduce-overhead" by default: CUDA graphs); the prompt runs eager.
# Its compiled code and the one above would share entries of the same
# forward, so the graphs above are forgotten first.
torch._dynamo.reset()
with watch() as auto:
    auto["compile_s"] = first_call(lambda: generate(auto_compile=True))
    auto["same_tokens"] = same_tokens(generate(auto_compile=True))
show(auto)
print(f"first call {auto['compile_s']:.1f} s, "
      f"{auto['same_tokens']} of {NEW} tokens as eager, "
      f"CUDA graphs skipped {auto['cudagraph_skips']}")
auto["speed"] = tokens_per_s(compare(
    {"eager": generate,
     "auto-compiled": lambda: generate(auto_compile=True)},
    "latency", rounds=10, warmup=2))
table(auto["speed"])

# %% layers glue=layers
# Regional compilation: each decoder layer compiled on its own. The layers
# share one code object, so Dynamo keeps one list of compiled entries for
# all of them, and the recompile limit counts them all together.
# backend="eager": Dynamo only, the same graphs and guards, no Inductor.
torch._dynamo.reset()  # forget the graphs compiled above
for layer in model.model.layers:
    layer.compile(backend="eager")
with watch() as layers:
    layers["same_tokens"] = same_tokens(generate())
show(layers)
layers["limit"] = torch._dynamo.config.recompile_limit
print(f"recompile limit {layers['limit']}; the warning when it was hit: "
      f"{layers['limit_hit']}")

# %% all-layers glue=every
# The same with a limit high enough for every layer to get its graphs:
# now the recompiles of the decoding steps show too.
torch._dynamo.reset()
with torch._dynamo.config.patch(recompile_limit=64), watch() as every:
    every["same_tokens"] = same_tokens(generate())
show(every)
case = "shown" if every["layer_idx"] else "not shown"
every["case"] = case
print(f"the per-layer layer_idx recompile is {case} with transformers "
      f"{versions['transformers']}: {every['layer_idx']} recompiles "
      f"name layer_idx")
if every["example"]:  # the guard, the line it comes from, Dynamo's hint
    guard, source, *_ = re.split(r"\s+# ", every["example"]) + [""]
    hint = re.search(r"\(HINT: (.*)\)", every["example"])
    print("one of them:", guard)
    print("  from:", source)
    print("  Dynamo's hint:", hint[1] if hint else "none")
    every["example"] = guard

# %% fix glue=hint
# Dynamo's hint: treat integer attributes of modules as dynamic. Tried
# only where the layer_idx recompiles showed; then the whole forward,
# compiled as one frame (the compile-forward cell), for comparison.
fix = {"regional": layers, "every": every}
hint = {"tried": False}
if every["layer_idx"]:
    torch._dynamo.reset()
    with torch._dynamo.config.patch(recompile_limit=64,
                                    allow_unspec_int_on_nn_module=True), \
            watch() as hint:
        hint["same_tokens"] = same_tokens(generate())
    hint["tried"] = True
    fix["hint"] = hint
    # where the guard on layer_idx comes from now: the last "(... in ...)"
    at = re.findall(r"\(([^()]* in \w+)\)", hint["example"])
    hint["specialized_at"] = at[-1] if at else ""
    hint["example"] = re.split(r"\s+# ", hint["example"])[0]
    print("with the flag, the guard on layer_idx is made at:",
          hint["specialized_at"] or "(not given)")
fix["forward"] = forward
labels = {"regional": "each layer, recompile limit 8",
          "every": "each layer, limit 64",
          "hint": "each layer, limit 64, allow_unspec_int_on_nn_module",
          "forward": "the whole forward"}
print(tabulate([[labels[k], f["graphs"], f["recompiles"], f["layer_idx"]]
                for k, f in fix.items()],
               headers=["compiled", "graphs", "recompiles",
                        "of them on layer_idx"]))
