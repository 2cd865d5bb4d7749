"""``python3 -m tcguide merge-outputs FOLDER``: bring the outputs of several capture runners into the checkout.

FOLDER holds one sub-folder per runner (a downloaded artifact), each with the outputs that
runner wrote, at their paths in the checkout. The merge is deterministic: every output
must come from exactly one runner, lie under ``snippets/``, pass the same validation as
``check`` (digest included) and belong to the snippet file of this checkout. If any does
not, nothing is written. Stdlib only.
"""

from __future__ import annotations

from pathlib import Path

from tcguide.core import freshness, store
from tcguide.core import snippet as snippets
from tcguide.core.errors import GuideError


def collect(folder: Path, root: Path) -> tuple[dict[str, Path], list[GuideError]]:
    """Each output's path in the checkout and the file that holds it; and what is wrong."""
    found: dict[str, Path] = {}
    problems: list[GuideError] = []
    for runner in sorted(p for p in folder.iterdir() if p.is_dir()):
        for file in sorted(runner.rglob("*" + store.SUFFIX)):
            rel = file.relative_to(runner).as_posix()
            shown = f"{runner.name}/{rel}"
            if not rel.startswith("snippets/") or ".." in Path(rel).parts or file.is_symlink():
                problems.append(GuideError(shown, None, "is not an output under snippets/", "check the runner's artifact"))
            elif rel in found:
                problems.append(GuideError(shown, None, f"also came from {found[rel].relative_to(folder).parts[0]}",
                                           "two runners captured the same file: check the shard assignment"))
            else:
                found[rel] = file
                problems.extend(_check(file, rel, shown, root))
    return found, problems


def _check(file: Path, rel: str, shown: str, root: Path) -> list[GuideError]:
    try:
        capture = store.load(file, shown)
    except GuideError as exc:
        return [exc]
    source = rel[: -len(store.SUFFIX)] + ".py"
    if capture.snippet != source:
        return [GuideError(shown, None, f"is the output of {capture.snippet}, not of {source}",
                            f"copy it to snippets/{capture.snippet[:-3]}{store.SUFFIX}, or recapture {source}")]
    try:
        snippet_file = snippets.load(root / source, source)
    except GuideError as exc:
        return [exc]
    reason = freshness.stale(snippet_file, capture)
    return [GuideError(shown, None, f"does not belong to this checkout's {source}: {reason}",
                         "merge outputs captured from this checkout's commit, or recapture the file")] if reason else []


def merge(folder: Path, root: Path) -> int:
    found, problems = collect(folder, root)
    for problem in problems:
        print(f"ERROR {problem}")
    if problems:
        print(f"nothing merged: {len(problems)} problem(s)")
        return 1
    for rel, file in sorted(found.items()):
        store.write_atomic(root / rel, file.read_text(encoding="utf-8"))
        print(f"merged {rel}")
    print(f"{len(found)} output(s) merged")
    return 0
