# /// capture
# gpus = 2
# launcher = "torchrun"
# timeout = 900
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
    """Samples per second over all GPUs, after warm-up; also the first call's wall time."""
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
    return first, samples_per_step * world * steps / elapsed


def train_step(net, optimizer, inputs, targets):
    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(net(inputs), targets)
        loss.backward()
        optimizer.step()

    return step


# %% ddp
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

torch.manual_seed(0)
images = torch.randn(64, 3, 224, 224, device=device)
labels = torch.randint(1000, (64,), device=device)
results = []
for compiled in (False, True):
    torch._dynamo.reset()
    model = DDP(torchvision.models.resnet50(weights=None).to(device), device_ids=[device.index])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    net = torch.compile(model) if compiled else model  # compile the DDP-wrapped module
    first, rate = throughput(train_step(net, optimizer, images, labels), samples_per_step=64)
    results.append(("DDP resnet50", "compiled" if compiled else "eager", f"{first:.1f}", f"{rate:,.0f}"))
print(tabulate(results, headers=["setup", "mode", "first step (s)", "images/s, all GPUs"]))
print(f"speedup: {float(results[1][3].replace(',', '')) / float(results[0][3].replace(',', '')):.2f}×")

# %% fsdp2
from torch.distributed.fsdp import fully_shard


def transformer():
    layer = torch.nn.TransformerEncoderLayer(
        d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True, norm_first=True
    )
    return torch.nn.Sequential(
        *[torch.nn.TransformerEncoder(layer, num_layers=1) for _ in range(12)], torch.nn.Linear(1024, 1000)
    )


tokens = torch.randn(16, 512, 1024, device=device)
targets = torch.randint(1000, (16, 512), device=device)
results = []
for compiled in (False, True):
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = transformer().to(device)
    for block in model[:-1]:
        if compiled:
            block.compile()  # compile each block; FSDP's hooks stay between the compiled blocks
        fully_shard(block)  # each block's parameters are sharded across the GPUs
    fully_shard(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    step = train_step(lambda x: model(x).flatten(0, 1), optimizer, tokens, targets.flatten())
    first, rate = throughput(step, samples_per_step=16 * 512)
    results.append(("FSDP2 transformer", "compiled" if compiled else "eager", f"{first:.1f}", f"{rate:,.0f}"))
print(tabulate(results, headers=["setup", "mode", "first step (s)", "tokens/s, all GPUs"]))
print(f"speedup: {float(results[1][3].replace(',', '')) / float(results[0][3].replace(',', '')):.2f}×")

# %% teardown
dist.destroy_process_group()
