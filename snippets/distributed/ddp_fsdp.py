# /// capture
# gpus = 2
# launcher = "torchrun"
# timeout = 540
# exclusive = true
# machine = "2xh200"
# ///

# %% setup
import os
import statistics
import time

import torch
import torch.distributed as dist
from tabulate import tabulate

# torchrun sets LOCAL_RANK, RANK, WORLD_SIZE
device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)
rank, world = dist.get_rank(), dist.get_world_size()
torch.set_float32_matmul_precision("high")
print(f"{world} processes, one per GPU "
      f"({torch.cuda.get_device_name(device)}); output from rank {rank}")


def compare(setups, unit, samples_per_step, rounds=7, steps=20):
    """Time training setups ({name: step}) against each other; returns, per
    setup, its first step's time and the median, slowest and fastest round's
    rate.

    Each setup's first step is timed on its own: for a compiled one it
    includes compilation. After a short warm-up the setups take turns,
    `steps` steps each per round, so that a drift in clocks or in the load
    around them hits all setups alike. Rates count samples over all GPUs; the
    table shows the median round and the slowest and fastest ones.
    """
    first, rates = {}, {name: [] for name in setups}
    for name, step in setups.items():
        torch.cuda.synchronize()
        started = time.perf_counter()
        step()
        torch.cuda.synchronize()
        first[name] = time.perf_counter() - started
        for _ in range(5):
            step()
    for _ in range(rounds):
        for name, step in setups.items():
            torch.cuda.synchronize()
            dist.barrier()
            started = time.perf_counter()
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
            rates[name].append(samples_per_step * world * steps
                               / (time.perf_counter() - started))
    stats = {name: {"first_s": first[name], "median": statistics.median(r),
                    "slowest": min(r), "fastest": max(r)}
             for name, r in rates.items()}
    rows = [(name, s["first_s"], s["median"],
             f"{s['slowest']:,.0f}–{s['fastest']:,.0f}")
            for name, s in stats.items()]
    headers = ["setup", "first step (s)", f"{unit}/s, all GPUs",
               "slowest–fastest round"]
    print(tabulate(rows, headers=headers, floatfmt=("", ".1f", ",.0f")))
    return stats


def train_step(net, optimizer, inputs, targets):
    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(net(inputs), targets)
        loss.backward()
        optimizer.step()

    return step


# %% ddp glue=ddp
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

torch.manual_seed(0)
images = torch.randn(64, 3, 224, 224, device=device)  # 64 images per GPU
labels = torch.randint(1000, (64,), device=device)
ddp = {}  # per wrapper: each setup's figures and compiled / eager
# alone: no gradient exchange, the upper bound for DDP
for wrapper in ("each GPU alone", "DDP"):
    # forget the first pair's graphs: the DDP-wrapped model is traced anew
    torch._dynamo.reset()
    setups = {}
    for compiled in (False, True):
        model = torchvision.models.resnet50(weights=None).to(device)
        if wrapper == "DDP":
            model = DDP(model, device_ids=[device.index])
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        # compile the DDP-wrapped module
        net = torch.compile(model) if compiled else model
        setups[f"{wrapper}, {'compiled' if compiled else 'eager'}"] = (
            train_step(net, optimizer, images, labels))
    stats = compare(setups, "images", samples_per_step=64)
    eager, compiled = (stats[f"{wrapper}, eager"],
                       stats[f"{wrapper}, compiled"])
    ratio = compiled["median"] / eager["median"]
    print(f"{wrapper}: compiled / eager {ratio:.2f}×\n")
    ddp["alone" if wrapper == "each GPU alone" else "ddp"] = {
        "eager": eager, "compiled": compiled, "ratio": ratio}


# %% fsdp2 glue=fsdp
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard


class Block(torch.nn.Module):
    """A pre-norm transformer block: causal self-attention, then an MLP."""

    def __init__(self, dim=1024, heads=16):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = (torch.nn.LayerNorm(dim),
                                  torch.nn.LayerNorm(dim))
        self.qkv, self.out = (torch.nn.Linear(dim, 3 * dim),
                              torch.nn.Linear(dim, dim))
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim),
                                       torch.nn.GELU(),
                                       torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (self.qkv(self.norm1(x))
                   .view(b, t, 3, self.heads, d // self.heads)
                   .permute(2, 0, 3, 1, 4))
        attention = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(attention.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


# 8 sequences of 1024 tokens per GPU
tokens = torch.randn(8, 1024, 1024, device=device)
targets = torch.randint(1000, (8 * 1024,), device=device)
setups = {}
torch._dynamo.reset()
counters = torch._dynamo.utils.counters
counters.clear()
for compiled in (False, True):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Block() for _ in range(12)],
                                torch.nn.Flatten(0, 1),
                                torch.nn.Linear(1024, 1000))
    model.to(device)
    for i in range(12):
        if compiled:
            # compile each block on its own
            model[i] = torch.compile(model[i], fullgraph=True)
        # then shard it: its parameters are split across the GPUs
        fully_shard(model[i])
    fully_shard(model)  # the root takes the rest (the output layer)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    setups["compiled" if compiled else "eager"] = train_step(
        model, optimizer, tokens, targets)
stats = compare(setups, "tokens", samples_per_step=8 * 1024)
fsdp = {**stats,
        "ratio": stats["compiled"]["median"] / stats["eager"]["median"],
        # graphs Dynamo compiled for the twelve blocks
        "graphs": counters["stats"]["unique_graphs"]}
print(f"compiled / eager: {fsdp['ratio']:.2f}×")
print(f"graphs compiled for the twelve blocks: {fsdp['graphs']}")


# %% teardown
dist.destroy_process_group()
