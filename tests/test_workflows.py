"""The GitHub workflows parse, validate against GitHub's schema, pass zizmor, and keep forks off GPU runners.

``workflow_problems`` checks a folder of workflow files; the tests run it on the project's
own folder and, to show that each check bites, on small broken ones.
"""

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# Events whose workflow runs code or data that someone outside the project controls.
UNTRUSTED = {"pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment",
             "issue_comment", "issues", "discussion", "discussion_comment", "fork", "watch", "workflow_run"}
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def _triggers(doc: dict) -> set[str]:
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` key as true
    if isinstance(on, str):
        return {on}
    return set(on or ())


def _runs_on(job: dict) -> list[str]:
    labels = job.get("runs-on", [])
    if isinstance(labels, dict):
        labels = labels.get("labels", [])
    return [labels] if isinstance(labels, str) else list(labels)


# zizmor's exit status: 0 when it found nothing, 10 plus the highest severity it found (14: high);
# anything else (1, 2, 3...) means it did not audit, whatever it printed.
ZIZMOR_AUDITED = {0: None, 10: "Unknown", 11: "Informational", 12: "Low", 13: "Medium", 14: "High"}


def zizmor_problems(files: list[Path]) -> list[str]:
    audit = subprocess.run([str(BIN / "zizmor"), "--offline", "--format", "json", *map(str, files)],
                           capture_output=True, text=True)
    last_lines = " ".join(audit.stderr.strip().splitlines()[-6:])
    if audit.returncode not in ZIZMOR_AUDITED:
        return [f"zizmor did not run (exit status {audit.returncode}): {last_lines}"]
    try:
        findings = json.loads(audit.stdout)
    except json.JSONDecodeError:
        return [f"zizmor did not run: its output is not JSON (exit status {audit.returncode}): {last_lines}"]
    severities = {finding["determinations"]["severity"] for finding in findings}
    highest = ZIZMOR_AUDITED[audit.returncode]
    if (highest is None) != (not findings) or (highest is not None and highest not in severities):
        return [f"zizmor: exit status {audit.returncode} does not match its findings {sorted(severities)}"]
    return [f"zizmor: high-severity finding {finding['ident']}"
            for finding in findings if finding["determinations"]["severity"] == "High"]


def workflow_problems(folder: Path) -> list[str]:
    problems = []
    files = sorted(folder.glob("*.yml")) + sorted(folder.glob("*.yaml"))
    docs = {}
    for path in files:
        try:
            docs[path] = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            problems.append(f"{path.name}: not valid YAML: {exc}".replace("\n", " "))
    schema = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                             *map(str, files)], capture_output=True, text=True)
    if schema.returncode != 0:
        problems.append(f"schema: {schema.stdout.strip()} {schema.stderr.strip()}")
    problems += zizmor_problems(files)
    for path, doc in docs.items():
        if not isinstance(doc, dict):
            continue
        untrusted = _triggers(doc) & UNTRUSTED
        for name, job in (doc.get("jobs") or {}).items():
            if untrusted and "self-hosted" in _runs_on(job):
                problems.append(f"{path.name}: job {name} runs on a self-hosted runner for {', '.join(sorted(untrusted))}")
            if "permissions" not in job:
                problems.append(f"{path.name}: job {name} does not set its own permissions")
            granted = job.get("permissions") or {}
            if isinstance(granted, dict) and ({granted.get("pages"), granted.get("id-token")} & {"write"}) \
                    and any("run" in step for step in job.get("steps", [])):
                problems.append(f"{path.name}: job {name} may deploy Pages and also runs commands")
            for step in job.get("steps", []):
                uses = step.get("uses", "")
                if uses and not uses.startswith("./") and not PINNED.match(uses):
                    problems.append(f"{path.name}: job {name} uses {uses}, not pinned to a commit")
                if uses.startswith("actions/checkout@") and (step.get("with") or {}).get("persist-credentials") is not False:
                    problems.append(f"{path.name}: job {name} checks out without persist-credentials: false")
        if doc.get("permissions") != {}:
            problems.append(f"{path.name}: the workflow's default permissions are not empty")
    return problems


def test_the_projects_workflows_have_no_problem():
    assert workflow_problems(ROOT / ".github" / "workflows") == []


GOOD = """\
    name: t
    on:
      push:
    permissions: {}
    jobs:
      build:
        runs-on: ubuntu-latest
        permissions:
          contents: read
        steps:
          - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
            with:
              persist-credentials: false
          - run: make test
    """


@pytest.mark.parametrize("text, words", [
    (GOOD, None),
    (GOOD.replace("name: t", "name: t: broken"), "not valid YAML"),
    (GOOD.replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n        steps: 3"), "schema"),
    (GOOD.replace("on:\n      push:", "on:\n      pull_request:").replace("ubuntu-latest", "[self-hosted, gpu]"),
     "job build runs on a self-hosted runner for pull_request"),
    (GOOD.replace("- run: make test", '- run: echo "${{ github.event.head_commit.message }}"'),
     "zizmor: high-severity finding template-injection"),
    ("- a list\n- not a workflow\n", "zizmor did not run (exit status "),  # it exits 3 and prints no finding
    (GOOD.replace("@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2", "@v4"), "not pinned to a commit"),
    (GOOD.replace("persist-credentials: false", "fetch-depth: 0"), "without persist-credentials: false"),
    (GOOD.replace("        permissions:\n          contents: read\n", ""), "does not set its own permissions"),
    (GOOD.replace("contents: read", "pages: write"), "may deploy Pages and also runs commands"),
])
def test_each_check_finds_what_it_is_for(tmp_path, text, words):
    (tmp_path / "w.yml").write_text(textwrap.dedent(text))
    problems = workflow_problems(tmp_path)
    if words is None:
        assert problems == []
    else:
        assert any(words in p for p in problems), problems


def test_the_translations_workflow_runs_on_english_changes_with_a_token_that_may_only_comment():
    doc = yaml.safe_load((ROOT / ".github" / "workflows" / "translations.yml").read_text(encoding="utf-8"))
    assert _triggers(doc) == {"pull_request"} and doc[True]["pull_request"]["paths"] == ["docs/en/**"]
    (job,) = doc["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    runs = [step for step in job["steps"] if "run" in step]
    assert 'python -m tcguide i18n-outdated --since "$BASE"' in runs[-2]["run"]
    assert runs[-1]["run"].startswith(".github/scripts/comment-outdated-translations.sh ")
    assert "head.repo.full_name == github.repository" in runs[-1]["if"]  # a fork's token cannot comment


FAKE_GH = """#!/usr/bin/env bash
# Stands in for the GitHub CLI: logs each call, answers the list of comments with $EXISTING.
echo "$*" >> "$GH_LOG"
for arg in "$@"; do case "$arg" in body=@*) cp -- "${arg#body=@}" "$GH_LOG.body" ;; esac; done
if [ "$3" = "repos/o/r/issues/7/comments" ] && [ "$1 $2" = "api --paginate" ]; then printf '%s' "$EXISTING"; fi
"""


@pytest.mark.parametrize("existing, report, call", [
    ("", "| `docs/ru/a.md` | changed: A |\n", "api --method POST repos/o/r/issues/7/comments -F body=@"),
    ("123\n", "| `docs/ru/a.md` | changed: A |\n", "api --method PATCH repos/o/r/issues/comments/123 -F body=@"),
    ("123\n", "No translation is outdated by this change to the English pages.\n",
     "api --method PATCH repos/o/r/issues/comments/123 -F body=@"),  # the earlier comment says so now
    ("", "No translation is outdated by this change to the English pages.\n", None),  # nothing to say
])
def test_the_comment_script_posts_one_comment_and_then_updates_it(tmp_path, existing, report, call):
    import os

    (tmp_path / "gh").write_text(FAKE_GH)
    (tmp_path / "gh").chmod(0o755)
    (tmp_path / "report.md").write_text(report)
    log = tmp_path / "calls"
    env = dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}", GH_LOG=str(log), EXISTING=existing,
               GITHUB_REPOSITORY="o/r")
    done = subprocess.run([str(ROOT / ".github" / "scripts" / "comment-outdated-translations.sh"), "7",
                           str(tmp_path / "report.md")], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls[0].startswith("api --paginate repos/o/r/issues/7/comments --jq ")
    if call is None:
        assert len(calls) == 1
    else:
        assert len(calls) == 2 and calls[1].startswith(call)
        assert (tmp_path / "calls.body").read_text() == "<!-- translations outdated by this change -->\n" + report
