"""Command line: ``python3 -m tcguide capture|check|report|notebooks|...``.

The capture side imports nothing from MkDocs: it runs on the GPU machine. So do ``report``
(stdlib only) and ``notebooks``, which needs nbformat, nbclient and ipykernel only with ``--execute``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tcguide.core import discovery
from tcguide.core.errors import GuideError
from tcguide.core.languages import CONFIG, DOCS, SOURCE


def project_root(start: Path) -> Path:
    """The checkout the command works on: the nearest folder up from start with a snippets/ folder
    beside mkdocs.yml (or, failing that, with a snippets/ folder), so it can run from any subfolder."""
    folders = [start, *start.parents]
    for marker in (CONFIG, None):
        for folder in folders:
            if (folder / discovery.FOLDER).is_dir() and (marker is None or (folder / marker).is_file()):
                return folder
    return start


def _capture(args) -> int:
    from tcguide.capture.driver import capture

    root = project_root(Path.cwd().resolve())
    return capture(args.paths or [str(root / discovery.FOLDER)], root, force=args.force, jobs=args.jobs,
                   shard_spec=args.shard, timeout_scale=args.timeout_scale,
                   machine=args.machine or os.environ.get("TCGUIDE_MACHINE"), dry_run=args.dry_run)


def _merge_outputs(args) -> int:
    from tcguide.capture.merge import merge

    return merge(Path(args.folder), project_root(Path.cwd().resolve()))


def _check(args) -> int:
    from tcguide.core.check import check

    problems = check(project_root(Path.cwd().resolve()), args.docs, args.snippets)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)" if problems else "every embedded cell has a fresh captured output")
    return 1 if problems else 0


def _report(args) -> int:
    from tcguide.capture.report import report, truncate

    if args.max_chars is not None and args.max_chars < 1000:
        raise GuideError("report --max-chars", None, f"{args.max_chars} is too short for a report",
                         "give 1000 or more (a pull request's body takes 65536)")
    text = report(project_root(Path.cwd().resolve()), args.against)
    sys.stdout.write(truncate(text, args.max_chars, args.against) if args.max_chars else text)
    return 0


def _notebooks(args) -> int:
    from tcguide.notebooks.export import write_all

    return write_all(project_root(Path.cwd().resolve()), Path(args.out), args.pages, args.lang,
                     args.site_url or os.environ.get("SITE_URL") or "http://127.0.0.1:8000/",
                     execute=args.execute, timeout=args.timeout)


STATES = ("up to date", "outdated", "untranslated", "missing")


def _i18n_status(args) -> int:
    from tcguide.i18n import charts
    from tcguide.i18n import translations as i18n

    site = i18n.Site(Path.cwd())
    rows = i18n.report(site)
    problems = i18n.all_structure_problems(site)
    width = max((len(r.page) for r in rows), default=10)
    for lang in site.languages()[1:]:
        mine = [r for r in rows if r.lang == lang]
        counts = {state: sum(r.state == state for r in mine) for state in STATES}
        print(f"{lang}: " + ", ".join(f"{n} {state.replace('untranslated', 'not translated')}"
                                      for state, n in counts.items()))
        for row in mine:
            print(f"  {row.page:<{width}}  {row.state.replace('untranslated', 'not translated')}")
            for change in row.changes:
                print(f"  {'':<{width}}    {change}")
    unsaid, shown = {}, charts.english_texts(site.root)  # read once: every stored chart of the guide
    for lang in site.languages()[1:]:
        unsaid[lang] = charts.missing(charts.load(site.root, lang), shown)
        if unsaid[lang]:
            print(f"{lang}: {len(unsaid[lang])} line(s) of chart text not translated in "
                  f"{charts.path(Path('.'), lang)}:")
            for text, where in sorted(unsaid[lang].items()):
                print(f"  {text!r}  ({where})")
    for problem in problems:
        print(problem)
    behind = [r for r in rows if r.state != "up to date"]
    if args.check and (behind or problems or any(unsaid.values())):
        return 1
    return 1 if problems else 0


def _translated_page(site, raw: str) -> tuple[str, str]:
    """(language, page) of a translated page named as docs/<lang>/<page>.md; GuideError otherwise."""
    located = site.locate(raw)
    if located is None or located[0] == SOURCE:
        raise GuideError(raw, None, "is not a translated page", f"name a page as {site.docs}/<lang>/<page>.md")
    if not site.path(*located).exists():
        raise GuideError(raw, None, "does not exist", "name a translated page that does (make i18n-status lists them)")
    if not site.path(SOURCE, located[1]).exists():
        raise GuideError(raw, None, "has no English source page",
                         f"write {site.display(SOURCE, located[1])} first, or name a page that has one")
    return located


def _i18n_stamp(args) -> int:
    from tcguide.i18n import english_changes
    from tcguide.i18n import translations as i18n

    site = i18n.Site(Path.cwd())
    for raw in args.pages:
        lang, page = _translated_page(site, raw)
        problems = i18n.structure_problems(site, lang, page)
        refusal = None if args.no_edit_needed else english_changes.restamp_refusal(site, lang, page)
        for problem in problems + ([refusal] if refusal else []):
            print(f"error: {problem}", file=sys.stderr)
        if problems or refusal:
            return 1
        before, stamped = i18n.status(site, lang, page), bool(i18n.record_of(site.read(lang, page)))
        i18n.stamp(site, lang, page)
        print(f"{raw}: now follows {site.display(SOURCE, page)} as it is")
        if before.state == "outdated" and stamped:
            print(f"  recorded as translated: {'; '.join(before.changes)}")
        if before.state == "untranslated":
            print(f"  still counted as not translated: {before.changes[0]}")
    return 0


def _i18n_diff(args) -> int:
    from tcguide.i18n import english_changes
    from tcguide.i18n import translations as i18n

    site = i18n.Site(Path.cwd())
    for raw in args.pages:
        sys.stdout.write(english_changes.diff_since_stamp(site, *_translated_page(site, raw)))
    return 0


def _i18n_outdated(args) -> int:
    from tcguide.i18n import english_changes
    from tcguide.i18n import translations as i18n

    sys.stdout.write(english_changes.outdated_report(i18n.Site(Path.cwd()), args.since))
    return 0


def _new_language(args) -> int:
    from tcguide.i18n import scaffold

    root = project_root(Path.cwd().resolve())
    try:
        written = scaffold.new_language(root, args.locale)
    except GuideError as exc:
        print(exc, file=sys.stderr)
        return 1
    print("\n".join(written))
    code = args.locale
    print(f"next: in mkdocs.yml, the language's name and each line of its entry marked '# translate'; its words in "
          f"tcguide/core/labels.py (English until then); i18n/glossary-{code}.md and i18n/style-{code}.md; its "
          f"reviewers in .github/CODEOWNERS and its name in the claim form; then translate docs/{code}/ page by page "
          f"(make i18n-stamp PAGE=docs/{code}/<page>.md after each)")
    return 0


def _built_site(args) -> int:
    """``make docs`` around its build: record the inputs (begin), then what the passed build wrote (end)."""
    from tcguide.site import built

    root = project_root(Path.cwd().resolve())
    site_dir = root / args.site
    if args.step == "begin":
        built.begin(root, site_dir, dict(os.environ))
        return 0
    if not built.end(root, site_dir, dict(os.environ)):
        print(f"{args.site}/ not recorded as built from this tree: it changed during the build", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tcguide", description="Tooling of the torch.compile guide.")
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture", help="run snippet files and store their outputs")
    cap.add_argument("paths", nargs="*", help="snippet files or folders (default: snippets)")
    cap.add_argument("--force", action="store_true", help="recapture files even if unchanged")
    cap.add_argument("--jobs", type=int, help="files run at once (default: half the CPU cores, at most 8)")
    cap.add_argument("--shard", help="capture only share K of N (K/N), balanced by recorded times")
    cap.add_argument("--machine", help="this runner's machine class (default: $TCGUIDE_MACHINE, "
                                       "else the project's, from pyproject.toml)")
    cap.add_argument("--dry-run", action="store_true",
                     help="print the files that would run, with their expected seconds, and run nothing")
    cap.add_argument("--timeout-scale", type=float, default=1.0, help="multiply every file's timeout")
    cap.set_defaults(func=_capture)
    mrg = sub.add_parser("merge-outputs", help="merge the outputs of several capture runners into the checkout")
    mrg.add_argument("folder", help="one sub-folder per runner, each holding snippets/**/*.out.json")
    mrg.set_defaults(func=_merge_outputs)
    chk = sub.add_parser("check", help="check that every snippet has a fresh output and every directive resolves")
    chk.add_argument("--docs", default=DOCS)
    chk.add_argument("--snippets", default=discovery.FOLDER)
    chk.set_defaults(func=_check)
    rep = sub.add_parser("report", help="compare the captured outputs with those at a git commit, as Markdown")
    rep.add_argument("--against", required=True, metavar="REF",
                     help="the commit, branch or tag to compare with (HEAD: what is committed)")
    rep.add_argument("--max-chars", type=int, metavar="N",
                     help="cut the report at a line to at most N characters (a pull request's body takes 65536)")
    rep.set_defaults(func=_report)
    blt = sub.add_parser("built-site", help="record what a build of the site was made from (make docs runs it), "
                                             "so that the tests can read that build instead of building again")
    blt.add_argument("step", choices=["begin", "end"], help="begin: before the build; end: after it passed")
    blt.add_argument("--site", default="site", help="the build's folder (default: site)")
    blt.set_defaults(func=_built_site)
    nbs = sub.add_parser("notebooks", help="write every chapter as a notebook (and run them with --execute)")
    nbs.add_argument("pages", nargs="*", help="chapters: getting-started (every language) or docs/ru/getting-started.md "
                                               "(default: every chapter)")
    nbs.add_argument("--out", required=True, help="folder to write <lang>/<chapter>.ipynb into")
    nbs.add_argument("--lang", action="append", help="only this language (repeatable; default: every language)")
    nbs.add_argument("--execute", action="store_true",
                     help="run each notebook top to bottom and store its new outputs (needs nbformat, nbclient, "
                          "ipykernel); exit 1 if a cell fails in a way its page does not declare")
    nbs.add_argument("--timeout", type=int, default=900, help="seconds a cell may take when executed (default 900)")
    nbs.add_argument("--site-url", help="the site's address, for links between chapters (default: $SITE_URL, "
                                        "else http://127.0.0.1:8000/)")
    nbs.set_defaults(func=_notebooks)
    lang = sub.add_parser("new-language", help="start a language: its config entry, glossary and pages to translate")
    lang.add_argument("locale", help="its code, as mkdocs-static-i18n takes it (ja, pt_BR)")
    lang.set_defaults(func=_new_language)
    status = sub.add_parser("i18n-status", help="per language and page: up to date, outdated (which sections), "
                                                "not translated or missing")
    status.add_argument("--check", action="store_true", help="exit 1 if anything is outdated, not translated or missing")
    status.set_defaults(func=_i18n_status)
    stamp = sub.add_parser("i18n-stamp", help="record that translated pages follow their English page as it is now")
    stamp.add_argument("pages", nargs="+", help="docs/<lang>/<page>.md")
    stamp.add_argument("--no-edit-needed", action="store_true",
                       help="stamp an outdated page that was not edited since its last stamp, because the English "
                            "change needs nothing in this language (a typo, a link)")
    stamp.set_defaults(func=_i18n_stamp)
    diff = sub.add_parser("i18n-diff", help="the English page's diff since the version a translation was stamped at")
    diff.add_argument("pages", nargs="+", help="docs/<lang>/<page>.md")
    diff.set_defaults(func=_i18n_diff)
    outdated = sub.add_parser("i18n-outdated", help="the translations that the English changes since a commit made "
                                                    "outdated, as Markdown")
    outdated.add_argument("--since", required=True, metavar="REF", help="the commit, branch or tag to compare with")
    outdated.set_defaults(func=_i18n_outdated)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except GuideError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a capture that started files handles its own signals (capture/loop.py)
        said = ("interrupted before any snippet file started; nothing was written" if args.func is _capture
                else f"{args.command}: interrupted — run it again to finish")
        print(said, file=sys.stderr)
        return 130
