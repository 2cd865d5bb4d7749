"""The recapture report: a project captured, committed and recaptured, reported against HEAD."""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from tcguide import cli
from tcguide.capture import report, report_compare, report_sides
from tests.helpers import CPU_ONLY, write_claimed_chapter

BENCH = """
    # %% measure glue=t
    import warnings
    t = {{"eager": {{"ms": {e}, "p10": {e_lo}, "p90": {e_hi}}},
         "compiled": {{"ms": {c}, "p10": {c_lo}, "p90": {c_hi}}},
         "graphs": {graphs}, "peak_mib": {mib}, "dtype": "{dtype}"}}
    if {fallbacks}:
        warnings.warn("fell back to eager {fallbacks} times", UserWarning)
    print("timed")

    # %% other
    print("no glue here")
    """
PAGE = """
    # Timings

    [[cell bench/times.py#measure]]

    Here {{claim:compiled-faster}}compiled takes {{bench/times.py:t.compiled.ms:.1f}} ms,
    less than eager{{/claim}}, and {{claim:one-graph}}the model compiles to one graph{{/claim}}.
    It peaks at {{bench/times.py:t.peak_mib:.0f}} MiB.
    """
FIRST = dict(e=2.0, e_lo=1.9, e_hi=2.2, c=1.0, c_lo=0.9, c_hi=1.1, graphs=1, mib=100, dtype="bfloat16", fallbacks=0)
# Compiled no longer faster (its median leaves its range, the claim flips), two graphs, a warning,
# 30 % more memory; eager moves by 5 %, inside its spread.
SECOND = dict(FIRST, e=2.1, c=2.1, c_lo=1.95, c_hi=2.3, graphs=2, mib=130, fallbacks=3)


def _git(root, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=guide", "-c", "user.email=guide@example.org",
                           "-c", "commit.gpgsign=false", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


def _write(project, **values) -> None:
    write_claimed_chapter(project, BENCH.format(**values), PAGE)


def _committed(project, env: dict | None = None, **values) -> None:
    """A git repository whose HEAD holds the project captured with these values (on ``env``'s machine)."""
    _write(project, **values)
    assert project.capture(env=env) == 0
    if not (project.root / ".git").exists():
        _git(project.root, "init", "-q")
    _git(project.root, "add", ".")
    _git(project.root, "commit", "-qm", "capture")


def _recaptured(project, **values) -> str:
    _write(project, **values)
    assert project.capture(force=True) == 0
    return report.report(project.root, "HEAD")


def _section(text: str, title: str) -> str:
    """The lines of a report between a heading and the next heading of its level or above."""
    match = re.search(rf"^(#+) {re.escape(title)}\n", text, re.M)
    assert match, f"no section {title!r} in:\n{text}"
    end = re.compile(rf"^#{{1,{len(match[1])}}} ", re.M).search(text, match.end())
    return text[match.end(): end.start() if end else len(text)]


def test_a_recapture_reports_moved_values_flipped_claims_new_warnings_and_changed_counts(project):
    _committed(project, **FIRST)
    text = _recaptured(project, **SECOND)

    summary = _section(text, "Summary")
    # every numeric leaf: eager's and compiled's ms, p10, p90, graphs, peak_mib = 8; moved: compiled's
    # three, graphs (1 -> 2) and peak_mib (+30 %); eager's median moved 5 %.
    assert "- **5 of 8 glued numbers moved by more than 15 %**" in summary
    assert "- **1 timing medians left their earlier range**" in summary
    assert "- 2 claims no longer hold, 0 newly hold (2 claims checked on the English pages)" in summary

    moved = _section(text, "Glued values that moved")
    assert ("| `bench/times.py:t.compiled` | 1 (0.9–1.1) | 2.1 (1.95–2.3) | +110 % | new median above the "
            "earlier range; earlier median below the new range | timings.md |") in moved
    assert "t.eager`" not in moved  # 2.0 -> 2.1 stays inside 1.9-2.2
    assert "| `bench/times.py:t.peak_mib` | 100 | 130 | +30 % | timings.md |" in moved
    assert "t.graphs" not in moved  # a count is reported with the counts, exactly

    claims = _section(text, "No longer hold")
    assert re.search(r"^- `docs/en/timings.md:5` \*\*compiled-faster\*\* `below\(compiled, eager\)`: "
                     r"at HEAD \(\w+\) holds with compiled.p90 = 1.1, eager.p10 = 1.9; "
                     r"now false with compiled.p90 = 2.3, eager.p10 = 1.9$", claims, re.M), claims
    assert "**one-graph** `t.graphs == 1`: at HEAD" in claims
    assert "Newly hold" not in text

    events = _section(text, "`bench/times.py` · cell `measure`")
    assert "- warning appeared: `UserWarning: fell back to eager 3 times`" in events
    assert "- `bench/times.py:t.graphs` changed: `1` → `2`" in events
    assert "cell `other`" not in text
    assert "- 2 changes in warnings, errors and graph, recompile or break counts, in 1 cells" in summary


def test_an_identical_recapture_reports_nothing_moved(project):
    _committed(project, **SECOND)
    time.sleep(1.1)  # captured_at counts whole seconds: a recapture in the same second could equal the first
    text = _recaptured(project, **SECOND)  # forced: new times and dates, the same values
    assert "1 of the 1 in both were recaptured" in text
    assert "- **0 of 8 glued numbers moved by more than 15 %**" in text
    assert "- **0 timing medians left their earlier range**" in text
    assert "- 0 claims no longer hold, 0 newly hold (2 claims checked on the English pages)" in text
    assert "No timing median left the other capture's p10–p90 range." in text
    assert "No other number moved by more than 15 %." in text
    assert "Glued text that changed" not in text
    assert "No warning, error or graph, recompile or break count appeared, disappeared or changed." in text
    claims = _section(text, "Still do not hold")  # false before and after: listed, not flipped
    assert "compiled-faster" in claims and "No longer hold" not in text


def test_back_again_claims_newly_hold_warnings_disappear_and_masked_numbers_are_no_new_warning(project):
    _committed(project, **SECOND)
    text = _recaptured(project, **dict(SECOND, fallbacks=7))
    assert _section(text, "Warnings, errors and counts").strip() == (  # 3 times -> 7 times: the same warning
        "No warning, error or graph, recompile or break count appeared, disappeared or changed.")
    _git(project.root, "commit", "-qam", "recapture")
    text = _recaptured(project, **dict(FIRST, dtype="float32"))
    assert "- 0 claims no longer hold, 2 newly hold" in text
    newly = _section(text, "Newly hold")
    assert "`docs/en/timings.md:5` **compiled-faster**" in newly and "now holds with" in newly
    events = _section(text, "`bench/times.py` · cell `measure`")
    assert "- warning disappeared: `UserWarning: fell back to eager 7 times`" in events
    assert "- `bench/times.py:t.graphs` changed: `2` → `1`" in events
    assert "- `bench/times.py:t.dtype`: `bfloat16` → `float32` (quoted in —)" in text


def test_the_environment_and_added_and_removed_files_come_first(project):
    _committed(project, **FIRST)
    project.snippet("bench/extra.py", '# %% one raises="KeyError"\nraise KeyError("x")\n')
    assert project.capture() == 0
    text = report.report(project.root, "HEAD")
    head = text.split("## Summary")[0]
    assert head.startswith("# Recapture report: the working tree against HEAD (")
    assert "| GPU | no GPU | no GPU |" in head and "| host CPU |" in head and "| captured |" in head
    assert "Outputs: 1 at HEAD" in head and "2 now; 0 of the 1 in both were recaptured, 1 added, 0 removed." in head
    assert "- added: `bench/extra.py`" in _section(text, "Files")


def test_the_command_prints_the_report_and_names_a_bad_ref(project, monkeypatch, capsys):
    _committed(project, **FIRST)
    capsys.readouterr()  # what capture printed
    monkeypatch.chdir(project.root / "docs")
    assert cli.main(["report", "--against", "HEAD"]) == 0
    assert capsys.readouterr().out.startswith("# Recapture report: the working tree against HEAD (")
    assert cli.main(["report", "--against", "no-such-branch"]) == 2
    err = capsys.readouterr().err
    assert "'no-such-branch' is no commit, branch or tag of this repository — name one" in err
    assert cli.main(["report", "--against", "HEAD", "--max-chars", "10"]) == 2
    assert "give 1000 or more" in capsys.readouterr().err


def test_a_long_report_is_cut_at_a_line_and_says_how_to_see_it_whole():
    text = "".join(f"line {i}\n" for i in range(1000))
    cut = report.truncate(text, 1000, "main")
    assert len(cut) <= 1000 and cut.endswith("the whole report: `python3 -m tcguide report --against main`\n")
    kept = cut.split("\n…")[0].splitlines()
    assert kept[-1] == f"line {len(kept) - 1}"  # whole lines only
    assert f"… {1000 - len(kept)} more lines" in cut
    assert report.truncate(text, len(text), "main") == text


@pytest.mark.parametrize("path, count", [("t.graphs", True), ("before.breaks", True), ("n_recompiles", True),
                                         ("trace.records.dynamo_output_graph", True), ("t.peak_mib", False)])
def test_counts_are_named_by_their_keys(path, count):
    assert report_compare._is_count(path) is count


def test_a_narrower_range_that_leaves_out_the_earlier_median_is_flagged_and_said_so():
    old = report_compare.Values(timings={"t": (1.0, 0.5, 1.5)}, numbers={"t.ms": 1.0, "t.p10": 0.5, "t.p90": 1.5})
    new = report_compare.Values(timings={"t": (1.3, 1.25, 1.35)}, numbers={"t.ms": 1.3, "t.p10": 1.25, "t.p90": 1.35})
    result = report_compare.Comparison(report_sides.Side("REF", None), report_sides.Side("now", None))
    report_compare._compare_values(result, "a.py", old, new)
    assert result.timings == [("a.py", "t", (1.0, 0.5, 1.5), (1.3, 1.25, 1.35), "earlier median below the new range")]
    assert (result.medians_left, result.ranges_left) == (0, 1)
    assert (result.moved_numbers, result.compared_numbers) == (2, 3)  # ms +30 %, p10 +150 %, p90 -10 %


def test_a_project_in_a_folder_of_its_repository_is_compared_with_the_same_folder_at_ref(project):
    _write(project, **FIRST)
    assert project.capture() == 0
    outer = project.root.parent
    _git(outer, "init", "-q")
    _git(outer, "add", project.root.name)
    _git(outer, "commit", "-qm", "capture")
    text = _recaptured(project, **SECOND)
    assert "Outputs: 1 at HEAD" in text and "1 of the 1 in both were recaptured" in text
    assert "- **5 of 8 glued numbers moved by more than 15 %**" in text
    assert "- 2 claims no longer hold" in text


def test_todays_claims_are_checked_on_the_earlier_outputs_too(project):
    """A claim that holds on the new capture but not on the one before is listed with both sides' values:
    a recapture on another machine start can flip it."""
    _committed(project, **SECOND)
    text = _recaptured(project, **FIRST)
    summary = _section(text, "Summary")
    assert re.search(r"^- \*\*2 of today's claims do not hold on the outputs at HEAD \(\w+\)\*\*$",
                     summary, re.M), summary
    crossed = _section(text, "Today's claims on the earlier outputs")
    assert re.search(r"^- `docs/en/timings.md:5` \*\*compiled-faster\*\* `below\(compiled, eager\)`: "
                     r"now holds with compiled.p90 = 1.1, eager.p10 = 1.9; "
                     r"on the outputs at HEAD \(\w+\) false with compiled.p90 = 2.3, eager.p10 = 1.9$",
                     crossed, re.M), crossed
    # one-graph: one graph now, two at HEAD
    assert "**one-graph** `t.graphs == 1`: now holds" in crossed


def test_a_claim_that_holds_on_both_captures_is_not_listed_as_resting_on_one(project):
    _committed(project, **FIRST)
    text = _recaptured(project, **dict(FIRST, e=2.05))
    assert re.search(r"^- \*\*0 of today's claims do not hold on the outputs at HEAD \(\w+\)\*\*$", text, re.M)
    crossed = _section(text, "Today's claims on the earlier outputs")
    assert "Every claim that holds now also holds on the outputs at HEAD" in crossed


def test_the_hosts_probes_are_compared_where_both_sides_recorded_one(project):
    """A slower host moves every host-paced timing: the report says by how much, from the probe each capture
    recorded when it began."""
    def host(loop: int, op: int) -> dict:
        return dict(CPU_ONLY, host_cpu="Xeon", host_loop_us=loop, host_op_ns=op)

    _committed(project, env=host(20_000, 2_500), **FIRST)
    _write(project, **SECOND)
    assert project.capture(env=host(24_000, 3_250), force=True) == 0
    text = report.report(project.root, "HEAD")
    head = text.split("## Summary")[0]
    assert "| host probe | Python loop 20 ms, tensor op 2.5 µs | **Python loop 24 ms, tensor op 3.25 µs** |" in head
    assert ("- host probe, median over files: Python loop 20 → 24 ms (1.20×); tensor op 2.5 → 3.25 µs (1.30×). "
            "Above 1× this side's host was slower") in _section(text, "Summary")


def test_no_probe_comparison_where_a_side_recorded_none(project):
    _committed(project, **FIRST)  # an output from before the probe: none recorded
    _write(project, **SECOND)
    assert project.capture(env=dict(CPU_ONLY, host_loop_us=24_000), force=True) == 0
    text = report.report(project.root, "HEAD")
    assert "| host probe | not recorded | **Python loop 24 ms** |" in text
    assert "- host probe, median over files" not in text

