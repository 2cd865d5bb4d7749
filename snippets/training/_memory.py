"""Where the training chapter's memory figures start, shared by
checkpointing.py and train_step.py."""

import torch

CUDA = torch.cuda.is_available()


def allocated_mib():
    """What the caching allocator holds for tensors now, in MiB (None on
    the CPU)."""
    return torch.cuda.memory_allocated() / 2**20 if CUDA else None


def warm_cublas():
    """A throw-away matrix product, forward and backward, before anything is
    measured. cuBLAS allocates a workspace the first time a thread
    multiplies matrices (this one, and the autograd engine's thread that
    runs the backward pass) and keeps it: it is part of every measurement's
    base, not of the first one's step. Returns what the product left
    allocated, in MiB."""
    if CUDA:
        layer = torch.nn.Linear(64, 64, device="cuda")
        with torch.autocast("cuda", torch.bfloat16):
            out = layer(torch.randn(64, 64, device="cuda"))
            out.float().sum().backward()
        del layer, out
        torch.cuda.synchronize()
    return allocated_mib()
