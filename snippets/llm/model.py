# /// capture
# gpus = 1
# timeout = 120     # about 15 s on an H100: builds the model, checks the cache, decodes a few tokens
# exclusive = false
# ///

# %% model
import torch
import torch.nn.functional as F
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
# On a GPU: 4 blocks of width 1024, a vocabulary of 32000 tokens, room for
# 512 tokens of context, bfloat16. Random weights: speed does not depend on
# them. On a CPU: a smoke test.
VOCAB, LAYERS, WIDTH, HEADS, MAX_LEN = (
    (32000, 4, 1024, 16, 512) if device == "cuda" else (256, 2, 64, 4, 128))
DTYPE = torch.bfloat16 if device == "cuda" else torch.float32


class Attention(nn.Module):
    """Causal self-attention that keeps keys and values in a preallocated,
    fixed-size cache."""

    def __init__(self, batch):
        super().__init__()
        self.heads, self.head_dim = HEADS, WIDTH // HEADS
        self.qkv, self.proj = (nn.Linear(WIDTH, 3 * WIDTH, bias=False),
                               nn.Linear(WIDTH, WIDTH, bias=False))
        shape = (batch, HEADS, MAX_LEN, WIDTH // HEADS)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)

    def forward(self, x, pos, mask):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=-1)
        q, k, v = (z.view(b, t, self.heads, self.head_dim).transpose(1, 2)
                   for z in (q, k, v))
        # write the new positions in place: the cache never changes shape
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        out = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache,
                                             attn_mask=mask)
        return self.proj(out.transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    def __init__(self, batch):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(WIDTH), nn.RMSNorm(WIDTH)
        self.attn = Attention(batch)
        self.gate, self.up = (nn.Linear(WIDTH, 4 * WIDTH, bias=False),
                              nn.Linear(WIDTH, 4 * WIDTH, bias=False))
        self.down = nn.Linear(4 * WIDTH, WIDTH, bias=False)

    def forward(self, x, pos, mask):
        x = x + self.attn(self.norm1(x), pos, mask)
        h = self.norm2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Decoder(nn.Module):
    """A decoder-only language model: tokens at positions `pos` in,
    next-token logits out."""

    def __init__(self, batch=1):
        super().__init__()
        self.embed, self.position = (nn.Embedding(VOCAB, WIDTH),
                                     nn.Embedding(MAX_LEN, WIDTH))
        self.blocks = nn.ModuleList([Block(batch) for _ in range(LAYERS)])
        self.norm, self.head = (nn.RMSNorm(WIDTH),
                                nn.Linear(WIDTH, VOCAB, bias=False))
        causal = torch.ones(MAX_LEN, MAX_LEN, dtype=torch.bool).tril()
        self.register_buffer("causal", causal, persistent=False)

    def forward(self, tokens, pos):
        # row p: positions 0..p of the cache
        mask = self.causal[pos].view(1, 1, len(pos), MAX_LEN)
        x = self.embed(tokens) + self.position(pos)
        for block in self.blocks:
            x = block(x, pos, mask)
        return self.head(self.norm(x))


def build(batch=1):
    torch.manual_seed(0)
    with torch.device(device):  # create the weights on the GPU directly
        return Decoder(batch).to(DTYPE).eval()


# %% generation
POSITIONS = torch.arange(MAX_LEN, device=device)


def prefill(model, prompt):
    """Run the whole prompt once, filling the cache; returns the first
    generated token."""
    logits = model(prompt, POSITIONS[: prompt.shape[1]])
    return logits[:, -1].argmax(-1, keepdim=True)


def decode_one(model, token, pos):
    """One step of greedy decoding: the next token after `token`, which sits
    at position `pos`."""
    return model(token, pos)[:, -1].argmax(-1, keepdim=True)


def decode(step, token, start, count):
    """`count` greedy steps from position `start`; step(token, pos) is
    decode_one, compiled or not."""
    out = []
    for i in range(count):
        # clone: see reduce-overhead
        token = step(token, POSITIONS[start + i : start + i + 1]).clone()
        out.append(token)
    return torch.cat(out, dim=1)


@torch.no_grad()
def generate(model, prompt, count, step=None):
    step = step or (lambda token, pos: decode_one(model, token, pos))
    first = prefill(model, prompt)
    return torch.cat(
        [first, decode(step, first, prompt.shape[1], count - 1)], dim=1)


# %% prompt-ways
# Three ways to compile the prompt pass for prompts of many lengths;
# prompts.py compares them, each in a process of its own. Each way takes the
# model and returns run(prompt): the next-token logits after the prompt.
# prompt lengths of successive requests
LENGTHS = (7, 19, 33, 50, 64, 90, 128)
BUCKETS = (32, 64, 128)


def prefill_logits(model, prompt):
    """The prompt pass: fill the cache for every prompt position, return the
    last position's logits."""
    return model(prompt, POSITIONS[: prompt.shape[1]])[:, -1]


def default_way(model):
    """The default: the first length is compiled static; the second one fails
    a guard and is compiled again with the length as a symbol; the later
    lengths reuse that graph."""
    compiled = torch.compile(prefill_logits)
    return lambda prompt: compiled(model, prompt)


def marked_way(model):
    """mark_dynamic says ahead of time that dimension 1 (the length) will
    vary: one graph from the start."""
    compiled = torch.compile(prefill_logits)

    def run(prompt):
        torch._dynamo.mark_dynamic(prompt, 1)
        return compiled(model, prompt)

    return run


def bucketed_way(model):
    """Padding buckets: pad each prompt to the next of a few lengths and
    compile each bucket static (dynamic=False). The padding goes after the
    prompt, so causal attention keeps the prompt's own logits unchanged; the
    answer is read at the last real position."""
    compiled = torch.compile(
        lambda model, padded: model(padded, POSITIONS[: padded.shape[1]]),
        dynamic=False)

    def run(prompt):
        n = prompt.shape[1]
        size = next(b for b in BUCKETS if b >= n)
        padded = F.pad(prompt, (0, size - n))  # token 0 as padding
        return compiled(model, padded)[:, n - 1]

    return run


PROMPT_WAYS = {"default": default_way, "mark_dynamic": marked_way,
               "buckets": bucketed_way}


# %% check glue=check
# the other files of this chapter import the model; this part runs only here
if __name__ == "__main__":
    model = build()
    prompt = torch.randint(VOCAB, (1, 16), device=device)
    with torch.no_grad():
        cached = generate(model, prompt, 8)
        # the same 8 tokens without the cache: run the whole sequence again
        # for every new token
        sequence = prompt
        for _ in range(8):
            logits = model(sequence, POSITIONS[: sequence.shape[1]])
            sequence = torch.cat(
                [sequence, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    check = {
        "params_m": sum(p.numel() for p in model.parameters()) / 1e6,
        "cache_mib": sum(b.numel() * b.element_size()
                         for n, b in model.named_buffers()
                         if "cache" in n) / 2**20,
        "same_tokens": torch.equal(cached, sequence[:, 16:]),
    }
    print(f"{LAYERS} blocks, {check['params_m']:.0f} M parameters, "
          f"a key/value cache of {check['cache_mib']:.0f} MiB")
    print("generated:", cached.tolist()[0])
    print("the same tokens without the cache:", check["same_tokens"])
