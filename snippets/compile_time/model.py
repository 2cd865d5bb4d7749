# /// capture
# gpus = 1
# timeout = 120     # about 15 s on an H100: builds the model and runs it once, eagerly
# exclusive = false
# ///

# %% model
import torch
import torch.nn.functional as F
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
# On a GPU: 24 blocks of width 1024, a batch of 8 sequences of 256 tokens,
# in bfloat16. On a CPU (a smoke test) 8 narrow blocks and short sequences.
LAYERS, WIDTH, HEADS, BATCH, TOKENS = ((24, 1024, 16, 8, 256)
                                       if device == "cuda"
                                       else (8, 64, 4, 2, 16))
DTYPE = torch.bfloat16 if device == "cuda" else torch.float32


class Block(nn.Module):
    """A pre-norm transformer block: causal self-attention, then an MLP, each
    added to its input."""

    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = (nn.Linear(width, 3 * width),
                               nn.Linear(width, width))
        self.up, self.down = (nn.Linear(width, 4 * width),
                              nn.Linear(4 * width, width))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(c, dim=-1)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for z in (q, k, v))
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attended.transpose(1, 2).reshape(b, t, c))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Transformer(nn.Module):
    """LAYERS identical blocks, then a final norm."""

    def __init__(self, block=Block):
        super().__init__()
        self.blocks = nn.ModuleList([block(WIDTH, HEADS)
                                     for _ in range(LAYERS)])
        self.norm = nn.LayerNorm(WIDTH)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)


def build(block=Block):
    """The model, for inference, and an input batch; the same weights every
    time."""
    torch.manual_seed(0)
    with torch.device(device):  # create the weights on the GPU directly
        model = Transformer(block).to(DTYPE).eval()
    x = torch.randn(BATCH, TOKENS, WIDTH, device=device, dtype=DTYPE)
    return model, x


# %% strategies
def whole(model):
    """Whole-model compilation: one graph with all the blocks inlined."""
    return torch.compile(model)


def regional(model):
    """Regional compilation: compile each block in place; the loop over
    blocks stays Python."""
    for block in model.blocks:
        block.compile()
    return model


STRATEGIES = {"whole": (Block, whole), "regional": (Block, regional)}

# torch.compiler.nested_compile_region marks a function that torch.compile
# compiles once and reuses at each call, inside one whole-model graph. Not
# every torch version has it.
if hasattr(torch.compiler, "nested_compile_region"):

    class RegionBlock(Block):
        forward = torch.compiler.nested_compile_region(Block.forward)

    STRATEGIES["nested"] = (RegionBlock, whole)

# %% summary glue=summary
# the other files of this chapter import the model; this part runs
# only here
if __name__ == "__main__":
    model, x = build()
    with torch.no_grad():
        out = model(x)
    summary = {
        "layers": LAYERS,
        "params_m": sum(p.numel() for p in model.parameters()) / 1e6,
        "block_params_m":
            sum(p.numel() for p in model.blocks[0].parameters()) / 1e6,
        "strategies": list(STRATEGIES),
    }
    print(f"{LAYERS} blocks, {summary['params_m']:.0f} M parameters "
          f"({summary['block_params_m']:.1f} M per block), "
          f"{str(DTYPE).removeprefix('torch.')}")
    print(f"input {tuple(x.shape)} -> output {tuple(out.shape)}")
    print("ways to compile it here:", ", ".join(STRATEGIES))
