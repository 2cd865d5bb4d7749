# /// capture
# gpus = 1
# timeout = 120     # about 15 s on an H100: builds the model and runs one eager training step
# exclusive = false
# ///

# %% model
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

device = "cuda" if torch.cuda.is_available() else "cpu"
# On a GPU: a GPT-style model of 4 blocks of width 768 with a vocabulary of
# 8192 tokens, trained on batches of 16 sequences of 512 tokens, in bfloat16
# autocast. On a CPU, a small smoke test.
VOCAB, LAYERS, WIDTH, HEADS, BATCH, TOKENS = (
    (8192, 4, 768, 12, 16, 512) if device == "cuda"
    else (512, 2, 64, 4, 2, 32))


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


class GPT(nn.Module):
    """Token and position embeddings, LAYERS blocks, a final norm and the
    output layer."""

    def __init__(self, checkpointing=False):
        super().__init__()
        # recompute each block's activations in the backward pass
        self.checkpointing = checkpointing
        self.embed, self.position = (nn.Embedding(VOCAB, WIDTH),
                                     nn.Embedding(TOKENS, WIDTH))
        self.blocks = nn.ModuleList(
            [Block(WIDTH, HEADS) for _ in range(LAYERS)])
        self.norm, self.head = (nn.LayerNorm(WIDTH),
                                nn.Linear(WIDTH, VOCAB, bias=False))

    def forward(self, tokens):
        x = self.embed(tokens) + self.position(
            torch.arange(tokens.shape[1], device=tokens.device))
        for block in self.blocks:
            x = (checkpoint(block, x, use_reentrant=False)
                 if self.checkpointing else block(x))
        return self.head(self.norm(x))


def build(checkpointing=False):
    """A fresh model (the same weights every time) and one batch of (inputs,
    targets)."""
    torch.manual_seed(0)
    with torch.device(device):  # create the weights on the GPU directly
        model = GPT(checkpointing).train()
    tokens = torch.randint(VOCAB, (BATCH, TOKENS + 1), device=device)
    return model, (tokens[:, :-1], tokens[:, 1:])


def loss_of(model, inputs, targets):
    with torch.autocast(device, torch.bfloat16, enabled=device == "cuda"):
        logits = model(inputs)
    return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())


# %% summary glue=summary
# the other files of this chapter import the model; this part runs
# only here
if __name__ == "__main__":
    model, (inputs, targets) = build()
    loss = loss_of(model, inputs, targets)
    loss.backward()
    summary = {
        "params_m": sum(p.numel() for p in model.parameters()) / 1e6,
        "tensors": len(list(model.parameters())),
        "layers": LAYERS,
        "loss": loss.item(),
    }
    print(f"{LAYERS} blocks, {summary['params_m']:.1f} M parameters "
          f"in {summary['tensors']} tensors")
    print(f"batch of {BATCH} x {TOKENS} tokens, "
          f"first loss {summary['loss']:.3f} "
          f"(ln {VOCAB} = {torch.tensor(VOCAB).log():.3f})")
