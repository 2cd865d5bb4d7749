"""The build's caches (tcguide/site/build_cache.py): a second build with nothing changed reuses what
the first made and writes the same site, byte for byte, as a build without the caches; a change to any
one input (a page, a captured output, a claims file, a glossary entry, the language) is seen on the
pages it feeds; and what the strict build catches, it still catches on a build that reuses everything.

Each test builds a copy of a small guide (tests/helpers.py: the guide's own configuration, four pages
in each language) whose caches a first build has filled."""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import SMALL_ENV, SMALL_OUTPUTS, SMALL_SNIPPET, make_small_guide, write_captured

pytestmark = pytest.mark.build  # each test builds a small guide several times: seconds each

ENV = dict(os.environ, TCGUIDE_NOTEBOOKS="false", NO_MKDOCS_2_WARNING="1")
CLAIMS = '[faster]\nvalues = { s = "speedups/tiny.py:speedup" }\nholds = "s > 1"\n'
STATED = {"en": "faster", "ru": "быстрее", "zh": "加速", "ko": "빠릅니다"}  # the words stating it on each speedups page
PHRASE = "编译器缓存命中率"  # a Chinese phrase that jieba splits, until the glossary has it as a term
REUSED = re.compile(r"tcguide: reused from earlier builds: (.*)")


def build(root: Path, out: str = "site", strict: bool = True, notebooks: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict" if strict else "--no-strict",
                           "-d", str(root / out)], cwd=root, env=dict(ENV, TCGUIDE_NOTEBOOKS=str(notebooks).lower()),
                          capture_output=True, text=True, timeout=300)


def reused(result: subprocess.CompletedProcess) -> dict[str, tuple[int, int]]:
    """What the build says it reused, per kind: (found, looked up)."""
    said = REUSED.search(result.stderr)
    assert said, result.stderr[-3000:]
    return {kind: (int(found), int(of)) for found, of, kind in re.findall(r"(\d+) of (\d+) ([\w-]+)", said[1])}


@pytest.fixture(scope="module")
def warm_guide(tmp_path_factory) -> Path:
    """A small guide with a claim stated in every language and a Chinese phrase, committed (its pages
    are dated by their commit, not by the build's time), built once: its caches hold every page."""
    root = make_small_guide(tmp_path_factory.mktemp("cached") / "guide")
    (root / "claims").mkdir()
    (root / "claims" / "speedups.toml").write_text(CLAIMS, encoding="utf-8")
    for lang, words in STATED.items():
        path = root / "docs" / lang / "speedups.md"
        path.write_text(path.read_text(encoding="utf-8").replace(words, "{{claim:faster}}" + words + "{{/claim}}", 1),
                        encoding="utf-8")
    path = root / "docs" / "zh" / "contributing.md"
    path.write_text(path.read_text(encoding="utf-8") + f"\n{PHRASE}很高。\n", encoding="utf-8")
    (root / ".gitignore").write_text("/site/\n/uncached/\n/first/\n/second/\n/.cache/\n", encoding="utf-8")
    git = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "The small guide"]):
        subprocess.run([*git, *command], cwd=root, check=True, capture_output=True)
    first = build(root)
    assert first.returncode == 0, first.stderr[-3000:]
    assert reused(first)["render"][0] == 0
    return root


@pytest.fixture
def guide(warm_guide, tmp_path) -> Path:
    """A copy of the warm guide, caches included, for one test to change."""
    copy = tmp_path / "guide"
    shutil.copytree(warm_guide, copy, symlinks=True)
    shutil.rmtree(copy / "site")
    return copy


def page(root: Path, lang: str, name: str) -> str:
    folder = "" if lang == "en" else f"{lang}/"
    stem = "" if name == "index" else f"{name}/"
    return (root / "site" / folder / stem / "index.html").read_text(encoding="utf-8")


def same_sites(a: Path, b: Path) -> list[str]:
    """The files that differ between two built sites (the gzipped sitemap carries its build's time)."""
    differ = []

    def walk(cmp: filecmp.dircmp, prefix: str) -> None:
        differ.extend(prefix + name for name in cmp.left_only + cmp.right_only + cmp.funny_files)
        for name in cmp.common_files:
            if not name.endswith(".gz") and not filecmp.cmp(Path(cmp.left) / name, Path(cmp.right) / name,
                                                              shallow=False):
                differ.append(prefix + name)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(a, b), "")
    return differ


def test_a_second_build_reuses_every_rendering_and_writes_the_same_site_as_one_without_caches(guide):
    warm = build(guide)
    assert warm.returncode == 0, warm.stderr[-3000:]
    found, of = reused(warm)["render"]
    assert found == of > 0, warm.stderr[-3000:]
    assert list((guide / ".cache" / "tcguide" / "jinja").glob("*.cache"))  # the theme's templates, compiled
    config = guide / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("  - tcguide:\n", "  - tcguide:\n      cache: false\n"), encoding="utf-8")
    plain = build(guide, "uncached")
    assert plain.returncode == 0, plain.stderr[-3000:]
    assert REUSED.search(plain.stderr) is None
    assert same_sites(guide / "site", guide / "uncached") == []


def test_an_edited_page_is_rendered_again_and_the_pages_it_does_not_feed_are_reused(warm_guide, guide):
    assert 'class="admonition warning tcg-notice"' not in page(warm_guide, "ru", "contributing")  # up to date
    path = guide / "docs" / "en" / "contributing.md"
    path.write_text(path.read_text(encoding="utf-8").replace("How to help.", "How to help, edited."), encoding="utf-8")
    result = build(guide)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "How to help, edited." in page(guide, "en", "contributing")
    assert "How to help, edited." in (guide / "site" / "search" / "search_index.json").read_text(encoding="utf-8")
    found, of = reused(result)["render"]
    # rendered again: the page, its three translations (outdated now: they say so) and the translation
    # status page of each language; the home and speedups pages of every language are reused
    assert (of - found, of) == (8, 16)
    # and so is tcguide's work on them (keyed by the pages each reads, not by every page of docs/), and
    # their finishing; the others are finished as before, with their language's new search index version
    assert reused(result)["markdown"] == (8, 16), result.stderr[-3000:]
    assert reused(result)["output"] == (8, 16), result.stderr[-3000:]
    for lang in ("en", "ru"):
        versions = {re.search(r'data-index="(\w+)"', page(guide, lang, name))[1] for name in ("index", "speedups")}
        assert len(versions) == 1 and versions != {re.search(r'data-index="(\w+)"', page(warm_guide, lang, "index"))[1]}
    assert "How to help, edited." not in page(guide, "ru", "contributing")
    assert 'class="admonition warning tcg-notice"' in page(guide, "ru", "contributing")  # outdated, it says


def test_an_edit_made_during_a_build_is_not_kept_under_the_key_of_the_pages_before_it(guide):
    """tcguide's work on a page is kept at the end of the build only if no page changed meanwhile: an
    entry made from a page as it was would be found again under the key of the pages as they were."""
    from tcguide.site import build_cache

    tree = build_cache.TreeKeyed(guide, dict(ENV))
    assert tree.page("docs/en/contributing.md") and tree.page("docs/en/contributing.md") != tree.page(
        "docs/ru/contributing.md")
    store = build_cache.Store(guide, "probe")
    tree.later(store, "k" * 64, "made")
    path = guide / "docs" / "en" / "contributing.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    tree.flush()
    assert store.get("k" * 64) is None
    same = build_cache.TreeKeyed(guide, dict(ENV))
    same.later(store, "k" * 64, "made")
    same.flush()
    assert store.get("k" * 64) == "made"


def test_a_recaptured_output_is_shown_in_every_language_and_its_notebooks(guide):
    before = build(guide, notebooks=True)
    assert before.returncode == 0, before.stderr[-3000:]
    printed = [{"output_type": "stream", "name": "stdout", "text": "measured again\n"}]
    write_captured(guide, "speedups/tiny.py", SMALL_SNIPPET, {**SMALL_OUTPUTS, "measure": printed}, SMALL_ENV,
                   glued={"speedup": 3.5})
    result = build(guide, notebooks=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert reused(result)["notebooks"] == (0, 4)  # the chapter's notebook in each language, made again
    for lang in ("en", "ru", "zh", "ko"):
        html = page(guide, lang, "speedups")
        assert "measured again" in html and ("3.5" in html or "3,5" in html), lang
        folder = guide / "site" / ("" if lang == "en" else lang) / "speedups" / "notebook"
        assert "measured again" in (folder / "speedups.ipynb").read_text(encoding="utf-8"), lang
        assert "measured again" in (folder / "index.html").read_text(encoding="utf-8"), lang


def test_a_changed_claims_file_is_checked_and_shown(warm_guide, guide):
    assert "s &gt; 1" in page(warm_guide, "en", "speedups")  # the condition, in the claim's tooltip
    claims = guide / "claims" / "speedups.toml"
    claims.write_text(CLAIMS.replace("s > 1", "s > 2"), encoding="utf-8")
    changed = build(guide)
    assert changed.returncode == 0, changed.stderr[-3000:]
    for lang in STATED:
        html = page(guide, lang, "speedups")
        assert "s &gt; 2" in html and "s &gt; 1" not in html, lang
    claims.write_text(CLAIMS.replace("s > 1", "s > 9"), encoding="utf-8")
    false = build(guide)
    assert false.returncode != 0 and "s > 9" in false.stderr  # a claim the outputs no longer bear fails the build


def test_a_glossary_entry_changes_the_chinese_search_index(warm_guide, guide):
    def segmented(root: Path) -> bool:
        docs = json.loads((root / "site" / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
        return any(f"\u200b{PHRASE}\u200b" in doc["text"] for doc in docs)

    assert not segmented(warm_guide)
    glossary = guide / "i18n" / "glossary-zh.md"
    text = glossary.read_text(encoding="utf-8")
    assert "\n|---|---|---|\n" in text
    glossary.write_text(text.replace("\n|---|---|---|\n", f"\n|---|---|---|\n| cache hit rate | {PHRASE} | |\n", 1),
                        encoding="utf-8")
    after = build(guide)
    assert after.returncode == 0, after.stderr[-3000:]
    assert segmented(guide)


def test_the_same_markdown_in_two_languages_is_rendered_for_each(guide):
    english = (guide / "docs" / "en" / "speedups.md").read_text(encoding="utf-8")
    (guide / "docs" / "ru" / "speedups.md").write_text(english, encoding="utf-8")
    result = build(guide, strict=False)  # the copy is an untranslated page now, which the strict build may say
    assert (guide / "site" / "ru" / "speedups" / "index.html").exists(), result.stderr[-3000:]
    ru, en = page(guide, "ru", "speedups"), page(guide, "en", "speedups")
    assert 'lang="ru"' in ru and 'lang="en"' in en
    assert "2,5" in ru and "2.5" in en  # each language writes the glued figure its own way


def test_every_problem_a_page_has_is_reported_by_every_build(guide):
    path = guide / "docs" / "en" / "contributing.md"
    missing = [f"{{{{speedups/tiny.py:nothing{n}}}}}" for n in range(5)]
    path.write_text(path.read_text(encoding="utf-8") + "\n" + " ".join(missing) + "\n\nSee `torch.not_a_real_api`.\n",
                    encoding="utf-8")
    first, second = build(guide), build(guide)
    assert reused(second)["markdown"] == (16, 16) and reused(second)["render"] == (16, 16)
    assert reused(second)["links"] == (16, 16)
    for result in (first, second):
        assert result.returncode != 0
        assert [n for n in range(5) if f"nothing{n}" in result.stderr] == list(range(5)), result.stderr[-3000:]
        assert "`torch.not_a_real_api` reads as a torch API name" in result.stderr, result.stderr[-3000:]
        assert result.stderr.count("WARNING") == first.stderr.count("WARNING")


def test_a_broken_link_fails_the_strict_build_every_time(guide):
    path = guide / "docs" / "en" / "contributing.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n[a page that is not there](missing.md)\n\n"
                    "[a section that is not there](speedups.md#nowhere)\n", encoding="utf-8")
    first, second = build(guide), build(guide)
    found, of = reused(second)["render"]
    assert found == of  # the second build rendered nothing again
    for result in (first, second):
        assert result.returncode != 0
        assert "contains a link 'missing.md'" in result.stderr, result.stderr[-3000:]
        assert "does not contain an anchor '#nowhere'" in result.stderr, result.stderr[-3000:]


def commit(root: Path, message: str, when: str, *extra: str) -> None:
    env = dict(ENV, GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false",
                    "commit", "-q", "-a", "-m", message, *extra], cwd=root, env=env, check=True, capture_output=True)


def shown_date(root: Path, lang: str, name: str) -> str:
    found = re.search(r'git-revision-date-localized-plugin-date"[^>]*>([^<]+)<', page(root, lang, name))
    assert found, name
    return found[1]


def test_a_page_committed_since_is_dated_by_its_new_commit_and_the_others_keep_theirs(guide):
    """The pages' dates are kept with the commit they were read at (site/page_dates.py): after a new
    commit only the pages it touched are asked of git again, and after history is rewritten all are."""
    warm = build(guide)
    assert warm.returncode == 0, warm.stderr[-3000:]
    found, of = reused(warm)["dates"]
    assert found == of > 0  # every page's date from the kept answers: git was asked for none
    today = shown_date(guide, "en", "index")
    path = guide / "docs" / "en" / "contributing.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    commit(guide, "Contributing: more", "2021-03-04T12:00:00+00:00")
    later = build(guide)
    assert later.returncode == 0, later.stderr[-3000:]
    assert shown_date(guide, "en", "contributing") == "March 4, 2021"
    assert shown_date(guide, "en", "index") == shown_date(guide, "en", "speedups") == today
    found, of = reused(later)["dates"]
    assert found == of - 1  # docs/en/contributing.md, asked again in the first language's build, then kept
    commit(guide, "Contributing: more, amended", "2019-05-06T12:00:00+00:00", "--amend",  # history rewritten
           "--date=2019-05-06T12:00:00+00:00")
    rewritten = build(guide)
    assert rewritten.returncode == 0, rewritten.stderr[-3000:]
    assert shown_date(guide, "en", "contributing") == "May 6, 2019"
    found, of = reused(rewritten)["dates"]
    assert found <= of - 16  # the first language's build asked git for every page again


def test_the_date_plugin_is_told_each_commits_tag_from_one_listing_of_the_tags(guide):
    """The plugin asked git for the tag of each page's last commit (``git tag --points-at``, once per commit):
    the kept answers' commits and the site's last commit get their tag, or none, from one listing."""
    from types import SimpleNamespace

    from tcguide.site import build_cache, page_dates

    path = guide / "docs" / "en" / "contributing.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    commit(guide, "Contributing: more", "2021-03-04T12:00:00+00:00")
    git = lambda *args: subprocess.run(["git", *args], cwd=guide, check=True, capture_output=True,  # noqa: E731
                                       text=True).stdout.strip()
    head, first = git("rev-parse", "HEAD"), git("rev-parse", "HEAD~1")
    git("tag", "b-light")
    git("-c", "user.name=T", "-c", "user.email=t@example.com", "tag", "-a", "a-annotated", "-m", "annotated")
    plugin = SimpleNamespace(config={"enabled": True, "enable_parallel_processing": True, "exclude": []},
                             util=SimpleNamespace(tag_cache={}, ignored_commits=[]), last_revision_commits={},
                             cached_source_paths={}, last_site_revision_hash=head)
    dates = page_dates.Dates(guide, build_cache.Store(guide, page_dates.KIND))
    dates.store.put(dates._key(plugin), {"head": head, "answers": {"docs/en/index.md": [first, 1],
                                                                     "docs/en/contributing.md": [head, 2]}})
    dates.give(SimpleNamespace(plugins={page_dates.PLUGIN: plugin}), [])
    assert plugin.util.tag_cache == {head: "a-annotated", first: ""}


def test_a_notebook_page_reused_into_an_empty_site_folder_brings_its_shared_files(guide):
    """A notebook page's finished HTML is reused (site/output_cache.py) and the styles, scripts and charts
    it links, which finishing it wrote to the site, are written to the new site from the store."""
    first = build(guide, "first", notebooks=True)
    assert first.returncode == 0, first.stderr[-3000:]
    second = build(guide, "second", notebooks=True)
    assert second.returncode == 0, second.stderr[-3000:]
    found, of = reused(second)["output"]
    assert found == of > 16  # every page, the notebook pages too
    assert list((guide / "second" / "assets" / "notebook").glob("*.css"))
    assert same_sites(guide / "first", guide / "second") == []


def test_pruning_keeps_what_the_build_used_and_the_most_recent_rest_within_its_room(tmp_path):
    import time

    from tcguide.site import build_cache

    store = build_cache.Store(tmp_path, "kind")
    now = time.time()
    ages = {"used": 0, "recent": 3600, "older": 7200, "oldest": 10800, "forgotten": 20 * 86400}
    for name, age in ages.items():
        store.put(name * 4, "x" * 1000)  # the same size each
        os.utime(store._path(name * 4), (now - age, now - age))
    assert store.has("older" * 4)  # looked up by this build: used
    assert store.prune(since=now - 60, spare=0.5) == 2  # two used: room for half as much, the most recent one
    assert [name for name in ages if store.get(name * 4) is not None] == ["used", "recent", "older"]


def test_a_store_holds_what_a_build_used_for_the_next_build_of_its_process_while_its_file_is_unchanged(tmp_path):
    """mkdocs serve builds again and again in one process: an entry the last build used is not read and
    decoded again, unless its file changed or went (pruned by another build) since."""
    from tcguide.site import build_cache

    store = build_cache.Store(tmp_path, "probe")
    store.put("a" * 64, {"html": "<p>a</p>"})
    store.put("b" * 64, ["b"])
    store.prune(time.time() - 60)  # the end of a build that wrote both
    held = store.get("a" * 64)
    assert held == {"html": "<p>a</p>"} and store.get("a" * 64) is held  # not decoded again
    store.prune(time.time() - 60)  # a build that used only a: b is no longer held
    path = tmp_path / build_cache.FOLDER / "probe" / "aa" / f"{'a' * 64}.json"
    path.write_text('{"html": "<p>rewritten</p>"}', encoding="utf-8")
    os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)
    assert store.get("a" * 64) == {"html": "<p>rewritten</p>"}  # its file changed: read again
    path.unlink()
    assert store.get("a" * 64) is None and store.get("b" * 64) == ["b"]  # gone: a miss; b read from its file
