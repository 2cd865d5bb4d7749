"""What the CUDA graphs chapter counts, shared by its two files."""

import torch
from torch._inductor import cudagraph_trees


def graphs_recorded():
    """CUDA graphs recorded so far, all compiled functions together:
    the nodes of the CUDA-graph trees."""
    manager = cudagraph_trees.get_manager(torch.cuda.current_device(),
                                          create_if_none_exists=False)
    if manager is None:
        return 0
    count = lambda nodes: sum(
        1 + count([c for kids in n.children.values() for c in kids])
        for n in nodes)
    return count(list(manager.get_roots()))
