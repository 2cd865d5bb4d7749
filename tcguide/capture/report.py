"""``python3 -m tcguide report --against REF``: what a recapture changed, as Markdown for its review.

The glued figures follow every recapture; what a reviewer must still judge is how far they
moved and what that does to the sentences around them. The report compares the captured
outputs of the working tree with those at a git commit, branch or tag (REF):

- the environment of each side (GPU, torch, CUDA, host CPU, when it was captured) and the
  output files added, removed or unreadable;
- glued values that moved: a timing summary (an object with ``ms``, ``p10`` and ``p90``)
  when either median left the other side's p10-p90 range, any other number when it moved
  by more than 15 %, and glued text that changed; with the count the project tracks, every
  numeric leaf of every glued value ("N of M glued numbers moved by more than 15 %");
- claims (``claims``) of the English pages that no longer hold, or newly hold, each side's
  declarations evaluated against that side's outputs;
- per file and cell, warnings (category and message, numbers masked), errors (by name) and
  glued graph, recompile and graph-break counts that appeared, disappeared or changed.

Values are read from the stored files as they are: freshness does not matter for a
comparison, and REF's outputs would be stale against this checkout's snippet files anyway.
REF's ``snippets/``, ``claims/`` and English pages are taken from git into a temporary
folder. Stdlib only: it runs where capture runs.
"""

from __future__ import annotations

import io
import math
import re
import subprocess
import tarfile
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tcguide.core import claims as claims_mod
from tcguide.core import glue, store
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError
from tcguide.core.labels import DEFAULT as SOURCE_LANGUAGE

MOVE = 0.15  # a number moved when it changed by more than this fraction of its earlier value
COUNT_WORDS = ("graph", "recompile", "break")  # a glued key naming one of these holds a count to compare exactly
TIMING_KEYS = ("ms", "p10", "p90")
SNIPPETS, CLAIMS, DOCS = "snippets", claims_mod.FOLDER, "docs"
NUMBER = re.compile(r"\d+(?:\.\d+)?")


# ---- one side: the outputs and claims of a tree ------------------------------------------------

@dataclass(frozen=True)
class _StoredSnippet:
    """What glue needs of a snippet file, taken from its stored output instead of its source."""
    path: str
    cells: tuple[store.CellRecord, ...]

    def glued_by(self, name: str) -> store.CellRecord | None:
        return next((c for c in self.cells if name in c.glue), None)


class StoredValues(Catalog):
    """A catalog of stored outputs as they are: glued values without freshness or snippet sources."""

    def __init__(self, root: Path, captures: dict[str, store.Capture]):
        super().__init__(root, SNIPPETS)
        self.stored = captures

    def files(self) -> list[str]:
        return sorted(self.stored)

    def snippet(self, name: str) -> _StoredSnippet:
        found = self.stored.get(name)
        if found is None:
            raise GuideError(f"{SNIPPETS}/{name}", None, "has no readable captured output here")
        return _StoredSnippet(f"{SNIPPETS}/{name}", found.cells)

    def capture(self, name: str) -> tuple[store.Capture | None, GuideError | None]:
        found = self.stored.get(name)
        return found, None if found else GuideError(f"{SNIPPETS}/{name}", None, "has no readable captured output")


@dataclass
class ClaimState:
    page: str
    line: int
    claim: claims_mod.Claim | None
    verdict: claims_mod.Verdict | None = None
    problem: str = ""  # why it could not be evaluated

    @property
    def state(self) -> str:
        return "holds" if self.verdict and self.verdict.holds else "false" if self.verdict else "unchecked"


@dataclass
class Side:
    name: str  # "HEAD~5 (1a2b3c4)" or "the working tree"
    root: Path
    captures: dict[str, store.Capture] = field(default_factory=dict)  # "topic/file.py" -> its output
    unreadable: dict[str, str] = field(default_factory=dict)  # "topic/file.py" -> why
    claims: dict[tuple[str, str], ClaimState] = field(default_factory=dict)  # (page, claim id) -> its state
    quoted: dict[str, set[str]] = field(default_factory=dict)  # "topic/file.py:name.key" -> pages quoting it


def read_side(root: Path, name: str) -> Side:
    side = Side(name, root)
    folder = root / SNIPPETS
    for out in sorted(folder.rglob("*" + store.SUFFIX)) if folder.is_dir() else []:
        rel = out.relative_to(folder).as_posix()
        snippet = rel[: -len(store.SUFFIX)] + ".py"
        try:
            side.captures[snippet] = store.load(out, f"{SNIPPETS}/{rel}")
        except GuideError as exc:
            side.unreadable[snippet] = exc.problem
    catalog = StoredValues(root, side.captures)
    pages = root / DOCS / SOURCE_LANGUAGE
    for path in sorted(pages.rglob("*.md")) if pages.is_dir() else []:
        page = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        for ref in glue.find(text, page)[0]:
            if not ref.quote:
                side.quoted.setdefault(f"{ref.file}:{'.'.join((ref.name, *ref.keys))}", set()).add(path.name)
        _claims_of_page(side, root, catalog, page, text)
    return side


def _claims_of_page(side: Side, root: Path, catalog: Catalog, page: str, text: str) -> None:
    marks = claims_mod.find(text, page)[0]
    try:
        book = claims_mod.load(root, claims_mod.page_stem(page))
    except GuideError as exc:
        book, broken = {}, str(exc)
    else:
        broken = ""
    for mark in marks:
        key = (page, mark.id)
        if key in side.claims:
            continue
        claim = book.get(mark.id)
        state = side.claims[key] = ClaimState(page, mark.line, claim)
        if claim is None:
            state.problem = broken or f"not declared in {CLAIMS}/{claims_mod.page_stem(page)}.toml"
            continue
        try:
            state.verdict = claims_mod.evaluate(claim, catalog, page, mark.line)
        except GuideError as exc:
            state.problem = exc.problem


# ---- REF, taken from git ------------------------------------------------------------------------

def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=120)
    except FileNotFoundError:
        raise GuideError(str(root), None, "git is not installed", "install git to compare with a commit") from None


def materialise(root: Path, ref: str, into: Path) -> str:
    """Write REF's snippets/, claims/ and English pages of this project into a folder; returns the
    commit's short id. GuideError if this is no git checkout or REF names no commit."""
    inside = _git(root, "rev-parse", "--show-prefix")
    if inside.returncode != 0:
        raise GuideError(str(root), None, "is not a git checkout",
                         "run the report in a clone of the guide's repository")
    prefix = inside.stdout.decode().strip()
    top = Path(_git(root, "rev-parse", "--show-toplevel").stdout.decode().strip())  # where pathspecs start
    found = _git(root, "rev-parse", "--verify", "--quiet", "--short", f"{ref}^{{commit}}")
    if found.returncode != 0 or not found.stdout.strip():
        raise GuideError("report --against", None, f"'{ref}' is no commit, branch or tag of this repository",
                         "name one, such as HEAD~1, main or a commit id (a shallow clone has only its last commit: "
                         "fetch more history first)")
    commit = found.stdout.decode().strip()
    wanted = [SNIPPETS, CLAIMS, f"{DOCS}/{SOURCE_LANGUAGE}"]
    listed = _git(top, "ls-tree", "--name-only", f"{commit}:{prefix}", "--", *wanted)
    present = [p for p in listed.stdout.decode().splitlines() if p] if listed.returncode == 0 else []
    if present:
        archive = _git(top, "archive", "--format=tar", f"{commit}:{prefix}", "--", *present)
        if archive.returncode != 0:
            raise GuideError("report --against", None, f"git could not read {ref}: "
                             f"{archive.stderr.decode(errors='replace').strip()}", "check that the commit is fetched")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(into, filter="data")
            else:  # a Python without extraction filters; git wrote this archive itself
                tar.extractall(into)
    return commit


# ---- glued values, flattened ---------------------------------------------------------------------

@dataclass
class Values:
    """A file's glued values, flattened to paths such as ``result.eager.ms``."""
    numbers: dict[str, float] = field(default_factory=dict)  # every numeric leaf (the M of "N of M")
    loose: dict[str, float] = field(default_factory=dict)  # numbers judged on their own (the 15 % rule)
    timings: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # summary -> (ms, p10, p90)
    counts: dict[str, object] = field(default_factory=dict)  # graph, recompile and break counts: exact
    texts: dict[str, object] = field(default_factory=dict)  # text, true/false and null
    cell_of: dict[str, str] = field(default_factory=dict)  # path -> the cell that glued it


def _is_number(v) -> bool:
    return type(v) in (int, float)


def _is_count(path: str) -> bool:
    return any(word in part.lower() for part in re.split(r"[.:]", path) for word in COUNT_WORDS)


def flatten(capture: store.Capture) -> Values:
    values = Values()

    def walk(value, path: str, cell: str, in_timing: bool = False) -> None:
        values.cell_of[path] = cell
        if isinstance(value, dict):
            timing = all(_is_number(value.get(k)) for k in TIMING_KEYS)
            if timing:
                values.timings[path] = tuple(float(value[k]) for k in TIMING_KEYS)
            for key, inner in value.items():
                walk(inner, f"{path}.{key}", cell, timing and key in TIMING_KEYS)
        elif isinstance(value, list) and _is_count(path) and not any(isinstance(v, (dict, list)) for v in value):
            values.counts[path] = value  # a list of counts or of reasons, compared as one
            for i, inner in enumerate(value):
                if _is_number(inner):
                    values.numbers[f"{path}.{i}"] = inner
        elif isinstance(value, list):
            for i, inner in enumerate(value):
                walk(inner, f"{path}.{i}", cell)
        elif _is_number(value):
            values.numbers[path] = value
            if _is_count(path) and isinstance(value, int):
                values.counts[path] = value
            elif not in_timing:
                values.loose[path] = value
        elif _is_count(path):
            values.counts[path] = value
        else:
            values.texts[path] = value

    for cell in capture.cells:
        for name, value in cell.glue.items():
            walk(value, name, cell.name)
    return values


def relative(old: float, new: float) -> float:
    if old == new:
        return 0.0
    return (new - old) / abs(old) if old else math.copysign(math.inf, new - old)


def moved(old: float, new: float) -> bool:
    return abs(relative(old, new)) > MOVE


# ---- the comparison ------------------------------------------------------------------------------

@dataclass
class Comparison:
    before: Side
    after: Side
    compared_numbers: int = 0
    moved_numbers: int = 0
    timings: list[tuple] = field(default_factory=list)  # (file, path, old, new, which)
    medians_left: int = 0  # new median outside the earlier p10-p90
    ranges_left: int = 0  # only the earlier median outside the new p10-p90
    numbers: list[tuple] = field(default_factory=list)  # (file, path, old, new)
    texts: list[tuple] = field(default_factory=list)  # (file, path, old, new)
    added_values: list[str] = field(default_factory=list)
    removed_values: list[str] = field(default_factory=list)
    events: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (file, cell) -> lines
    cells_added: list[str] = field(default_factory=list)
    cells_removed: list[str] = field(default_factory=list)
    recaptured: int = 0


def compare(before: Side, after: Side) -> Comparison:
    result = Comparison(before, after)
    for name in sorted(before.captures.keys() & after.captures.keys()):
        old, new = before.captures[name], after.captures[name]
        result.recaptured += old.captured_at != new.captured_at or old.cells != new.cells
        _compare_values(result, name, flatten(old), flatten(new))
        _compare_cells(result, name, old, new)
    return result


def _compare_values(result: Comparison, name: str, old: Values, new: Values) -> None:
    for path in old.numbers.keys() & new.numbers.keys():
        result.compared_numbers += 1
        result.moved_numbers += moved(old.numbers[path], new.numbers[path])
    for path in sorted(old.timings.keys() & new.timings.keys()):
        (m0, lo0, hi0), (m1, lo1, hi1) = old.timings[path], new.timings[path]
        which = []
        if not lo0 <= m1 <= hi0:
            which.append(f"new median {'above' if m1 > hi0 else 'below'} the earlier range")
            result.medians_left += 1
        if not lo1 <= m0 <= hi1:
            which.append(f"earlier median {'above' if m0 > hi1 else 'below'} the new range")
            result.ranges_left += len(which) == 1
        if which:
            result.timings.append((name, path, old.timings[path], new.timings[path], "; ".join(which)))
    for path in sorted(old.loose.keys() & new.loose.keys()):
        if moved(old.loose[path], new.loose[path]):
            result.numbers.append((name, path, old.loose[path], new.loose[path]))
    for path in sorted(old.texts.keys() & new.texts.keys()):
        if old.texts[path] != new.texts[path]:
            result.texts.append((name, path, old.texts[path], new.texts[path]))
    leaves = lambda v: v.numbers.keys() | v.texts.keys() | v.counts.keys()  # noqa: E731
    result.added_values += [f"{name}:{p}" for p in sorted(leaves(new) - leaves(old))]
    result.removed_values += [f"{name}:{p}" for p in sorted(leaves(old) - leaves(new))]
    for path in sorted(old.counts.keys() | new.counts.keys()):
        was, now = old.counts.get(path, _ABSENT), new.counts.get(path, _ABSENT)
        if was == now:
            continue
        cell = new.cell_of.get(path) or old.cell_of[path]
        what = (f"`{name}:{path}` appeared: {_shown(now)}" if was is _ABSENT else
                f"`{name}:{path}` disappeared (was {_shown(was)})" if now is _ABSENT else
                f"`{name}:{path}` changed: {_shown(was)} → {_shown(now)}")
        result.events.setdefault((name, cell), []).append(what)


_ABSENT = object()


def mask(message: str) -> str:
    """A warning's message with its numbers masked, so a count or a size that differs is no new warning."""
    return NUMBER.sub("N", " ".join(message.split()))


def _cell_events(record: store.CellRecord | None) -> tuple[dict[tuple[str, str], str], Counter]:
    warnings, errors = {}, Counter()
    for output in record.outputs if record else ():
        if output["output_type"] == "warning":
            message = store.from_lines(output["message"])
            warnings.setdefault((output["category"], mask(message)), message)
        elif output["output_type"] == "error":
            errors[output["ename"] + ("" if output.get("expected") else " (undeclared)")] += 1
    return warnings, errors


def _compare_cells(result: Comparison, name: str, old: store.Capture, new: store.Capture) -> None:
    old_names, new_names = [c.name for c in old.cells], [c.name for c in new.cells]
    result.cells_added += [f"{name}#{c}" for c in new_names if c not in old_names]
    result.cells_removed += [f"{name}#{c}" for c in old_names if c not in new_names]
    for cell in [*old_names, *(c for c in new_names if c not in old_names)]:
        (w0, e0), (w1, e1) = _cell_events(old.cell(cell)), _cell_events(new.cell(cell))
        lines = [f"warning appeared: {_warning(key, w1[key])}" for key in w1 if key not in w0]
        lines += [f"warning disappeared: {_warning(key, w0[key])}" for key in w0 if key not in w1]
        lines += [f"error appeared: {_code(e)}" for e in sorted(e1.keys() - e0.keys())]
        lines += [f"error disappeared: {_code(e)}" for e in sorted(e0.keys() - e1.keys())]
        if lines:
            result.events.setdefault((name, cell), [])[:0] = lines


# ---- Markdown --------------------------------------------------------------------------------------

def _code(text: str, limit: int = 200) -> str:
    """Text as a Markdown code span, shortened, whatever backticks it holds."""
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _warning(key: tuple[str, str], message: str) -> str:
    return _code(f"{key[0]}: {message}")


def _num(v) -> str:
    if isinstance(v, bool) or not _is_number(v):
        return str(v)
    if isinstance(v, int):
        return str(v)
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def _shown(v) -> str:
    return _code(v if isinstance(v, str) else str(v).replace("'", '"') if isinstance(v, list) else _num(v))


def _change(old: float, new: float) -> str:
    rel = relative(old, new)
    return f"from {_num(old)}" if math.isinf(rel) else f"{rel * 100:+.0f} %"


def _timing(t: tuple[float, float, float]) -> str:
    return f"{_num(t[0])} ({_num(t[1])}–{_num(t[2])})"


def _spread(values: list[str]) -> str:
    """One value, or each value with how many files have it."""
    counts = Counter(values)
    if not counts:
        return "—"
    if len(counts) == 1:
        return next(iter(counts))
    return ", ".join(f"{v} ({n} file{'s' * (n != 1)})" for v, n in counts.most_common())


def _environment(side: Side) -> dict[str, str]:
    envs = [c.environment for c in side.captures.values()]

    def gpu(env: dict) -> str:
        count = env.get("gpu_count") or 0
        return f"{count}× {env['gpu']}" if env.get("gpu") and count > 1 else env.get("gpu") or "no GPU"

    times = sorted(c.captured_at for c in side.captures.values())
    stamp = lambda t: t.replace("T", " ")[:16]  # noqa: E731
    return {
        "GPU": _spread([gpu(e) for e in envs]),
        "torch": _spread([e.get("torch") or "none" for e in envs]),
        "CUDA": _spread([e.get("cuda") or "none" for e in envs]),
        "host CPU": _spread([e.get("host_cpu") or "not recorded" for e in envs]),
        "captured": f"{stamp(times[0])} – {stamp(times[-1])} UTC" if times else "—",
    }


def _quoted(side: Side, name: str, path: str) -> str:
    key = f"{name}:{path}"
    pages = sorted({p for ref, ps in side.quoted.items() if ref == key or ref.startswith(key + ".") for p in ps})
    return ", ".join(pages) or "—"


def _claim_values(state: ClaimState | None) -> str:
    if state is None:
        return "not stated"
    if state.verdict is None:
        return f"cannot be checked ({state.problem})"
    return ("holds" if state.verdict.holds else "false") + " with " + claims_mod.shown_values(state.verdict, "en")


def _by_page(keys) -> list[str]:
    pages: dict[str, list[str]] = {}
    for page, claim_id in sorted(keys):
        pages.setdefault(page, []).append(claim_id)
    return [f"`{page}`: {', '.join(ids)}" for page, ids in pages.items()]


def _claims(before: Side, after: Side) -> tuple[dict[str, list[str]], int]:
    """The claims of the English pages in groups (title -> lines), and how many are stated now."""
    groups: dict[str, list[str]] = {"no longer hold": [], "newly hold": [], "still do not hold": [],
                                    "new claims that do not hold": [], "condition changed": []}
    for key in sorted(after.claims, key=lambda k: (k[0], after.claims[k].line, k[1])):  # in page order
        was, now = before.claims.get(key), after.claims[key]
        line = f"`{now.page}:{now.line}` **{key[1]}**"
        detail = (f"{line} `{now.claim.holds}`: " if now.claim else f"{line}: ") + (
            f"now {_claim_values(now)}" if was is None else
            f"at {before.name} {_claim_values(was)}; now {_claim_values(now)}")
        if was and was.claim and now.claim and was.claim.holds != now.claim.holds:
            groups["condition changed"].append(f"{line}: `{was.claim.holds}` → `{now.claim.holds}`")
        if was is None:
            if now.state != "holds":
                groups["new claims that do not hold"].append(detail)
        elif now.state == "holds" and was.state != "holds":
            groups["newly hold"].append(detail)
        elif now.state != "holds" and was.state == "holds":
            groups["no longer hold"].append(detail)
        elif now.state != "holds":
            groups["still do not hold"].append(detail)
    if added := after.claims.keys() - before.claims.keys():
        groups["stated only now"] = _by_page(added)
    if gone := before.claims.keys() - after.claims.keys():
        groups[f"stated only at {before.name}"] = _by_page(gone)
    return groups, len(after.claims)


def markdown(c: Comparison) -> str:
    before, after = c.before, c.after
    out = [f"# Recapture report: {after.name} against {before.name}", ""]
    env0, env1 = _environment(before), _environment(after)
    out += [f"| | {before.name} | {after.name} |", "|---|---|---|"]
    for key in env0:
        now = env1[key] if env1[key] == env0[key] else f"**{env1[key]}**"
        out.append(f"| {key} | {env0[key]} | {now} |")
    both = before.captures.keys() & after.captures.keys()
    added = sorted(after.captures.keys() - before.captures.keys() - before.unreadable.keys())
    removed = sorted(before.captures.keys() - after.captures.keys() - after.unreadable.keys())
    unreadable = lambda side: f" ({len(side.unreadable)} unreadable)" if side.unreadable else ""  # noqa: E731
    out += ["", f"Outputs: {len(before.captures)} at {before.name}{unreadable(before)}, "
                f"{len(after.captures)} now{unreadable(after)}; "
                f"{c.recaptured} of the {len(both)} in both were recaptured, {len(added)} added, "
                f"{len(removed)} removed.",
            ""]
    groups, checked = _claims(before, after)
    out += ["## Summary", "",
            f"- **{c.moved_numbers} of {c.compared_numbers} glued numbers moved by more than 15 %**",
            f"- **{c.medians_left} timing medians left their earlier range**"
            + (f" (and {c.ranges_left} earlier medians lie outside a new, narrower range)" if c.ranges_left else ""),
            f"- {len(groups['no longer hold'])} claims no longer hold, {len(groups['newly hold'])} newly hold "
            f"({checked} claims checked on the English pages)",
            f"- {sum(len(v) for v in c.events.values())} changes in warnings, errors and graph, recompile or "
            f"break counts, in {len(c.events)} cells", ""]

    files = [f"- added: {_code(n)}" for n in added] + [f"- removed: {_code(n)}" for n in removed]
    for side in (before, after):
        reasons: dict[str, list[str]] = {}
        for n, why in sorted(side.unreadable.items()):
            reasons.setdefault(why, []).append(_code(n))
        files += [f"- unreadable at {side.name} ({why}): {', '.join(names)}" for why, names in reasons.items()]
    files += [f"- cell added: {_code(n)}" for n in c.cells_added]
    files += [f"- cell removed: {_code(n)}" for n in c.cells_removed]
    if files:
        out += ["## Files", "", *files, ""]

    out += ["## Glued values that moved", ""]
    if c.timings:
        out += ["Timing summaries whose median left the other capture's p10–p90 range: median (p10–p90), "
                "in ms.", "",
                f"| value | {before.name} | now | change | which | quoted in |", "|---|---|---|---|---|---|"]
        out += [f"| `{n}:{p}` | {_timing(t0)} | {_timing(t1)} | {_change(t0[0], t1[0])} | {which} | "
                f"{_quoted(after, n, p)} |" for n, p, t0, t1, which in c.timings]
        out.append("")
    else:
        out += ["No timing median left the other capture's p10–p90 range.", ""]
    if c.numbers:
        out += ["Other numbers that moved by more than 15 %:", "",
                f"| value | {before.name} | now | change | quoted in |", "|---|---|---|---|---|"]
        out += [f"| `{n}:{p}` | {_num(a)} | {_num(b)} | {_change(a, b)} | {_quoted(after, n, p)} |"
                for n, p, a, b in c.numbers]
        out.append("")
    else:
        out += ["No other number moved by more than 15 %.", ""]
    if c.texts:
        out += ["Glued text that changed:", ""]
        out += [f"- `{n}:{p}`: {_shown(a)} → {_shown(b)} (quoted in {_quoted(after, n, p)})"
                for n, p, a, b in c.texts]
        out.append("")
    if c.added_values or c.removed_values:
        out += [f"Glued values only now: {len(c.added_values)}; only at {before.name}: {len(c.removed_values)}."]
        out += [f"- new: {_code(v)}" for v in c.added_values[:20]]
        out += [f"- gone: {_code(v)}" for v in c.removed_values[:20]]
        more = max(0, len(c.added_values) - 20) + max(0, len(c.removed_values) - 20)
        out += [f"- … and {more} more"] if more else []
        out.append("")

    out += ["## Claims", ""]
    shown = False
    for title, lines in groups.items():
        if lines:
            shown = True
            out += [f"### {title[0].upper()}{title[1:]}", "", *(f"- {line}" for line in lines), ""]
    if not shown:
        out += [f"Every claim of the English pages stands as it did at {before.name} ({checked} checked).", ""]

    out += ["## Warnings, errors and counts", ""]
    if c.events:
        for (name, cell), lines in sorted(c.events.items()):
            out += [f"### `{name}` · cell `{cell}`", "", *(f"- {line}" for line in lines), ""]
    else:
        out += ["No warning, error or graph, recompile or break count appeared, disappeared or changed.", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def truncate(text: str, limit: int, ref: str) -> str:
    """The report cut at a line to at most ``limit`` characters, saying how to see the rest."""
    if len(text) <= limit:
        return text
    note = "\n… {n} more lines; the whole report: `python3 -m tcguide report --against REF`\n".replace("REF", ref)
    kept = text[: max(0, limit - len(note) - 10)].rsplit("\n", 1)[0]
    return kept + note.replace("{n}", str(text.count("\n") - kept.count("\n") - 1))


def report(root: Path, ref: str) -> str:
    """The Markdown report of the working tree's outputs against those at git REF."""
    with tempfile.TemporaryDirectory(prefix="tcguide-report-") as tmp:
        commit = materialise(root, ref, Path(tmp))
        before = read_side(Path(tmp), f"{ref} ({commit})" if not commit.startswith(ref) else ref)
        after = read_side(root, "the working tree")
        return markdown(compare(before, after))
