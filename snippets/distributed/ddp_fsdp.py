# /// capture
# gpus = 2
# launcher = "torchrun"
# timeout = 540
# exclusive = true
# ///

# %% setup
import os
import time

import torch
import torch.distributed as dist
from tabulate import tabulate

dist.init_process_group("nccl")  # torchrun sets RANK, LOCAL_RANK, WORLD_SIZE and the rendezvous
rank, world = dist.get_rank(), dist.get_world_size()
device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
torch.cuda.set_device(device)
torch.set_float32_matmul_precision("high")
print(f"{world} processes, one per GPU ({torch.cuda.get_device_name(device)}); output from rank {rank}")


def throughput(step, samples_per_step, warmup=5, steps=20):
    """First step's wall time (s), samples per second over all GPUs, peak memory per GPU (GiB)."""
    torch.cuda.reset_peak_memory_stats(device)
    torch.cuda.synchronize()
    started = time.perf_counter()
    step()
    torch.cuda.synchronize()
    first = time.perf_counter() - started
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    started = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - started
    peak = torch.cuda.max_memory_allocated(device) / 2**30
    return first, samples_per_step * world * steps / elapsed, peak


def train_step(net, optimizer, inputs, targets):
    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(net(inputs), targets)
        loss.backward()
        optimizer.step()

    return step


def report(results, unit):
    print(tabulate(results, headers=["setup", "first step (s)", f"{unit}/s, all GPUs", "peak GiB per GPU"],
                   floatfmt=("", ".1f", ",.0f", ".2f")))
    print(f"compiled / eager throughput: {results[1][2] / results[0][2]:.2f}×")


# %% ddp
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

torch.manual_seed(0)
images = torch.randn(64, 3, 224, 224, device=device)  # 64 images per GPU
labels = torch.randint(1000, (64,), device=device)
results = []
for compiled in (False, True):
    torch._dynamo.reset()
    model = DDP(torchvision.models.resnet50(weights=None).to(device), device_ids=[device.index])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    net = torch.compile(model) if compiled else model  # compile the DDP-wrapped module
    first, rate, peak = throughput(train_step(net, optimizer, images, labels), samples_per_step=64)
    results.append(("DDP resnet50, " + ("compiled" if compiled else "eager"), first, rate, peak))
report(results, "images")

# %% fsdp2
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard


class Block(torch.nn.Module):
    """A pre-norm transformer block: causal self-attention, then an MLP."""

    def __init__(self, dim=1024, heads=16):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)
        self.qkv, self.out = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attention = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(attention.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


tokens = torch.randn(8, 1024, 1024, device=device)  # 8 sequences of 1024 tokens per GPU
targets = torch.randint(1000, (8 * 1024,), device=device)
results = []
for compiled in (False, True):
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Block() for _ in range(12)], torch.nn.Linear(1024, 1000)).to(device)
    for i in range(12):
        if compiled:
            model[i] = torch.compile(model[i], fullgraph=True)  # compile each block on its own
        fully_shard(model[i])  # then shard it: its parameters are split across the GPUs
    fully_shard(model)  # the root takes the remaining parameters (the output layer)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    step = train_step(lambda x: model(x).flatten(0, 1), optimizer, tokens, targets)
    first, rate, peak = throughput(step, samples_per_step=8 * 1024)
    results.append(("FSDP2 transformer, " + ("compiled" if compiled else "eager"), first, rate, peak))
report(results, "tokens")

# %% teardown
dist.destroy_process_group()
