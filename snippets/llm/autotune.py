# /// capture
# gpus = 1
# timeout = 420     # about 75 s on an H100 (up to 150): max-autotune benchmarks matrix kernels while compiling
# exclusive = true
# ///

# %% setup
import torch
from torch._dynamo.utils import counters

from timing import CUDA, first_call, measure
from model import POSITIONS, VOCAB, build, decode, decode_one, device, prefill

torch.set_grad_enabled(False)
model = build()
prompt = torch.randint(VOCAB, (1, 16), device=device)
START, NEW = prompt.shape[1], (128 if CUDA else 16)
first = prefill(model, prompt)
reference = decode(lambda token, pos: decode_one(model, token, pos), first, START, NEW)

# %% max-autotune glue=autotuned
# The same decoding step as in decode.py, compiled with mode="max-autotune": Inductor times
# candidate kernels for every matrix multiplication, then records CUDA graphs as reduce-overhead does.
step_fn = torch.compile(decode_one, mode="max-autotune", fullgraph=True)
step = lambda token, pos: step_fn(model, token, pos)  # noqa: E731
counters.clear()
compile_s = first_call(lambda: step(first, POSITIONS[START : START + 1]))
m = measure(lambda: decode(step, first, START, NEW), warmup=2, repeats=10)
tokens = decode(step, first, START, NEW)
autotuned = {
    "compile_s": compile_s,
    "tok_s": NEW / m["ms"] * 1000, "tok_s_p10": NEW / m["p90"] * 1000, "tok_s_p90": NEW / m["p10"] * 1000,
    "ms_per_token": m["ms"] / NEW,
    "graphs": counters["stats"]["unique_graphs"],
    "same_tokens": (tokens == reference)[0].int().cumprod(0).sum().item(), "of": NEW,
}
print(f"max-autotune: compile {compile_s:.1f} s, {autotuned['tok_s']:,.0f} tokens/s "
      f"({autotuned['tok_s_p10']:,.0f}–{autotuned['tok_s_p90']:,.0f}), {autotuned['ms_per_token']:.3f} ms per token, "
      f"{autotuned['same_tokens']}/{NEW} tokens as eager")
