"""``python3 -m tcguide report --against REF``: what a recapture changed, as Markdown for its review.

The glued figures follow every recapture; what a reviewer must still judge is how far they
moved and what that does to the sentences around them. The report compares the captured
outputs of the working tree with those at a git commit, branch or tag (REF):

- the environment of each side (GPU, torch, CUDA, host CPU and its probe, when it was captured)
  and the output files added, removed or unreadable; where both sides recorded the host probe, how
  much slower or faster this side's host was (host-paced timings move with it);
- glued values that moved: a timing summary (an object with ``ms``, ``p10`` and ``p90``)
  when either median left the other side's p10-p90 range, any other number when it moved
  by more than 15 %, and glued text that changed; with the count the project tracks, every
  numeric leaf of every glued value ("N of M glued numbers moved by more than 15 %");
- claims (``claims``) of the English pages that no longer hold, or newly hold, each side's
  declarations evaluated against that side's outputs; and the working tree's claims evaluated
  against REF's outputs: a claim that holds now but not there rests on a difference the other
  capture did not show, and a recapture on another machine start can flip it;
- per file and cell, warnings (category and message, numbers masked), errors (by name) and
  glued graph, recompile and graph-break counts that appeared, disappeared or changed.

Values are read from the stored files as they are: freshness does not matter for a
comparison, and REF's outputs would be stale against this checkout's snippet files anyway.
REF's ``snippets/``, ``claims/`` and English pages are taken from git into a temporary
folder. Stdlib only: it runs where capture runs.

The sides are read in ``report_sides``, compared in ``report_compare``; this module writes the
Markdown.
"""

from __future__ import annotations

import math
import statistics
import tempfile
from collections import Counter
from pathlib import Path

from tcguide.capture.report_compare import Comparison, code_span, as_number, as_value, compare, relative
from tcguide.capture.report_sides import ClaimState, Side, materialise, read_side
from tcguide.core import claims as claims_mod


# ---- Markdown --------------------------------------------------------------------------------------

def _change(old: float, new: float) -> str:
    rel = relative(old, new)
    return f"from {as_number(old)}" if math.isinf(rel) else f"{rel * 100:+.0f} %"


def _timing(t: tuple[float, float, float]) -> str:
    return f"{as_number(t[0])} ({as_number(t[1])}–{as_number(t[2])})"


def _spread(values: list[str]) -> str:
    """One value, or each value with how many files have it."""
    counts = Counter(values)
    if not counts:
        return "—"
    if len(counts) == 1:
        return next(iter(counts))
    return ", ".join(f"{v} ({n} file{'s' * (n != 1)})" for v, n in counts.most_common())


# the host probe's fields (tcguide/core/environment.py): name, unit stored, scale to the unit shown, unit shown
PROBES = (("host_loop_us", "Python loop", 1e-3, "ms"), ("host_op_ns", "tensor op", 1e-3, "µs"))


def _probe_values(env: dict) -> dict[str, float]:
    """The host probe a file's environment recorded, each field in the unit shown (none before the probe)."""
    return {key: value * scale for key, _, scale, _ in PROBES
            if isinstance(value := env.get(key), int) and not isinstance(value, bool) and value > 0}


def _probe(env: dict) -> str:
    found = _probe_values(env)
    return ", ".join(f"{label} {as_number(found[key])} {unit}" for key, label, _, unit in PROBES if key in found) \
        or "not recorded"


def _host_speed(side: Side) -> dict[str, float]:
    """Each probe's median over the side's files, in the unit shown (the files of one capture share its probe)."""
    values: dict[str, list[float]] = {}
    for capture in side.captures.values():
        for key, value in _probe_values(capture.environment).items():
            values.setdefault(key, []).append(value)
    return {key: statistics.median(found) for key, found in values.items()}


def _host_line(before: Side, after: Side) -> list[str]:
    """The summary's line on the two hosts' probes, where both sides recorded one."""
    was, now = _host_speed(before), _host_speed(after)
    parts = [f"{label} {as_number(was[key])} → {as_number(now[key])} {unit} ({now[key] / was[key]:.2f}×)"
             for key, label, _, unit in PROBES if key in was and key in now]
    if not parts:
        return []
    return [f"- host probe, median over files: {'; '.join(parts)}. Above 1× this side's host was slower: "
            "timings the host paces rise with it, what the GPU runs does not"]


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
        "host probe": _spread([_probe(e) for e in envs]),
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


def _crossed(after: Side, crossed: Side) -> tuple[list[str], int]:
    """Today's claims that hold on today's outputs but not on REF's (with both sides' values), and how
    many could not be checked there (a value REF's outputs do not have)."""
    fragile, unchecked = [], 0
    for key in sorted(after.claims, key=lambda k: (k[0], after.claims[k].line, k[1])):
        now, there = after.claims[key], crossed.claims.get(key)
        if now.state != "holds" or there is None:
            continue
        if there.verdict is None:
            unchecked += 1
        elif not there.verdict.holds:
            fragile.append(f"`{now.page}:{now.line}` **{key[1]}** `{now.claim.holds}`: "
                           f"now {_claim_values(now)}; on {crossed.name} {_claim_values(there)}")
    return fragile, unchecked


def markdown(c: Comparison, crossed: Side | None = None) -> str:
    """The report; ``crossed``: the working tree's claims evaluated against REF's outputs."""
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
    fragile, unchecked = _crossed(after, crossed) if crossed else ([], 0)
    out += ["## Summary", "",
            f"- **{c.moved_numbers} of {c.compared_numbers} glued numbers moved by more than 15 %**",
            f"- **{c.medians_left} timing medians left their earlier range**"
            + (f" (and {c.ranges_left} earlier medians lie outside a new, narrower range)" if c.ranges_left else ""),
            f"- {len(groups['no longer hold'])} claims no longer hold, {len(groups['newly hold'])} newly hold "
            f"({checked} claims checked on the English pages)",
            *([f"- **{len(fragile)} of today's claims do not hold on the outputs at {before.name}**"
               + (f" ({unchecked} cannot be checked there)" if unchecked else "")] if crossed else []),
            f"- {sum(len(v) for v in c.events.values())} changes in warnings, errors and graph, recompile or "
            f"break counts, in {len(c.events)} cells", *_host_line(before, after), ""]

    files = [f"- added: {code_span(n)}" for n in added] + [f"- removed: {code_span(n)}" for n in removed]
    for side in (before, after):
        reasons: dict[str, list[str]] = {}
        for n, why in sorted(side.unreadable.items()):
            reasons.setdefault(why, []).append(code_span(n))
        files += [f"- unreadable at {side.name} ({why}): {', '.join(names)}" for why, names in reasons.items()]
    files += [f"- cell added: {code_span(n)}" for n in c.cells_added]
    files += [f"- cell removed: {code_span(n)}" for n in c.cells_removed]
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
        out += [f"| `{n}:{p}` | {as_number(a)} | {as_number(b)} | {_change(a, b)} | {_quoted(after, n, p)} |"
                for n, p, a, b in c.numbers]
        out.append("")
    else:
        out += ["No other number moved by more than 15 %.", ""]
    if c.texts:
        out += ["Glued text that changed:", ""]
        out += [f"- `{n}:{p}`: {as_value(a)} → {as_value(b)} (quoted in {_quoted(after, n, p)})"
                for n, p, a, b in c.texts]
        out.append("")
    if c.added_values or c.removed_values:
        out += [f"Glued values only now: {len(c.added_values)}; only at {before.name}: {len(c.removed_values)}."]
        out += [f"- new: {code_span(v)}" for v in c.added_values[:20]]
        out += [f"- gone: {code_span(v)}" for v in c.removed_values[:20]]
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

    if crossed:
        out += ["## Today's claims on the earlier outputs", "",
                f"Each claim as the working tree states it, checked against the outputs at {before.name}. "
                "One that holds now but not there rests on a difference that the other capture did not "
                "show: a recapture on another machine start can flip it. Say what both captures show.", ""]
        out += [f"- {line}" for line in fragile] if fragile else [
            f"Every claim that holds now also holds on the outputs at {before.name}."]
        out += ([f"- {unchecked} cannot be checked there: they read values those outputs do not have."]
                if unchecked else [])
        out.append("")

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
        crossed = read_side(root, f"the outputs at {before.name}", outputs=Path(tmp))
        return markdown(compare(before, after), crossed)
