"""What changed in English since a translation's stamp, from git: `i18n-diff`, the refusal to re-stamp an
outdated page nobody edited, and `i18n-outdated`, which the translations workflow posts on a pull request.
Each test works in a small git repository of its own."""

import subprocess

import pytest

from tcguide.cli import main
from tcguide.core.errors import GuideError
from tcguide.i18n import english_changes
from tcguide.i18n import translations as i18n
from tests.test_i18n import ENGLISH, MKDOCS, RUSSIAN


def git(root, *args) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def commit(root, message: str) -> str:
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path, monkeypatch) -> i18n.Site:
    """English and Russian, the Russian page stamped, all committed; the commands run in it."""
    (tmp_path / "mkdocs.yml").write_text(MKDOCS)
    for lang, text in (("en", ENGLISH), ("ru", RUSSIAN)):
        (tmp_path / "docs" / lang).mkdir(parents=True)
        (tmp_path / "docs" / lang / "start.md").write_text(text)
    git(tmp_path, "init", "-q")
    site = i18n.Site(tmp_path)
    i18n.stamp(site, "ru", "start.md")
    commit(tmp_path, "the page, translated")
    monkeypatch.chdir(tmp_path)
    return site


def edit(site, lang: str, old: str, new: str) -> None:
    path = site.path(lang, "start.md")
    path.write_text(path.read_text().replace(old, new))


def test_i18n_diff_prints_the_english_diff_since_the_stamped_version(repo, capsys):
    stamped = git(repo.root, "rev-parse", "HEAD").strip()
    edit(repo, "en", "Text.", "Better text.")
    commit(repo.root, "English, reworded")
    edit(repo, "en", "More.", "More, and uncommitted.")
    assert main(["i18n-diff", "docs/ru/start.md"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"docs/ru/start.md was stamped at docs/en/start.md as of commit {stamped[:12]}; "
                          "the English changes since (changed: Compile a function; changed: Modules):\n")
    assert "-Text.\n+Better text.\n" in out and "-More.\n+More, and uncommitted.\n" in out  # committed or not


def test_i18n_diff_of_a_page_that_follows_english_says_nothing_changed(repo, capsys):
    assert main(["i18n-diff", "docs/ru/start.md"]) == 0
    assert capsys.readouterr().out == "docs/ru/start.md follows docs/en/start.md as it is: nothing changed in English since its stamp\n"


def test_i18n_diff_explains_a_stamped_version_that_no_commit_has(repo, capsys):
    edit(repo, "en", "Text.", "Text, never committed as such.")
    i18n.stamp(repo, "ru", "start.md")  # stamped against an English edit, which then changes again
    edit(repo, "en", "Text, never committed as such.", "Text, committed.")
    commit(repo.root, "English and its stamp")
    assert main(["i18n-diff", "docs/ru/start.md"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: docs/ru/start.md: was stamped at English version ")
    assert "which no commit of docs/en/start.md has — the translation was stamped against English text that was " \
           "never committed as it was" in err and "git log -p docs/en/start.md" in err


def test_i18n_diff_of_a_page_never_stamped_or_not_translated_is_an_error(repo, capsys):
    repo.path("ru", "start.md").write_text(RUSSIAN)
    assert main(["i18n-diff", "docs/ru/start.md"]) == 2
    assert "docs/ru/start.md: was never stamped, so no English version is recorded" in capsys.readouterr().err
    assert main(["i18n-diff", "docs/en/start.md"]) == 2
    assert "docs/en/start.md: is not a translated page" in capsys.readouterr().err
    assert main(["i18n-diff", "docs/ru/nothing.md"]) == 2
    assert "docs/ru/nothing.md: does not exist" in capsys.readouterr().err


def test_re_stamping_an_outdated_page_nobody_edited_is_refused(repo, capsys):
    edit(repo, "en", "Text.", "Better text.")
    assert main(["i18n-stamp", "docs/ru/start.md"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: docs/ru/start.md: is outdated (changed: Compile a function) and was not edited since "
                          "its last stamp: stamping it now would record those English changes as translated — ")
    assert "make i18n-diff PAGE=docs/ru/start.md" in err and "--no-edit-needed" in err
    assert i18n.status(repo, "ru", "start.md").state == "outdated"  # nothing written
    assert main(["i18n-stamp", "--no-edit-needed", "docs/ru/start.md"]) == 0
    assert i18n.status(repo, "ru", "start.md").state == "up to date"


def test_re_stamping_an_edited_page_says_what_it_records_as_translated(repo, capsys):
    edit(repo, "en", "Text.", "Better text.")
    edit(repo, "ru", "Текст.", "Лучший текст.")
    assert main(["i18n-stamp", "docs/ru/start.md"]) == 0
    assert capsys.readouterr().out == ("docs/ru/start.md: now follows docs/en/start.md as it is\n"
                                       "  recorded as translated: changed: Compile a function\n")


def test_a_stamp_without_the_pages_own_digest_is_judged_from_the_commit_that_wrote_it(repo):
    """Stamps written before they held the translation's digest: git has the page as it was stamped."""
    path = repo.path("ru", "start.md")
    path.write_text(path.read_text().replace(f"  translated: {repo.read('ru', 'start.md').version}\n", ""))
    commit(repo.root, "a stamp of the earlier kind")
    assert "translated" not in i18n.record_of(repo.read("ru", "start.md"))
    edit(repo, "en", "Text.", "Better text.")
    assert english_changes.edited_since_stamp(repo, "ru", "start.md") is False
    assert english_changes.restamp_refusal(repo, "ru", "start.md") is not None
    edit(repo, "ru", "Текст.", "Лучший текст.")
    assert english_changes.edited_since_stamp(repo, "ru", "start.md") is True
    assert english_changes.restamp_refusal(repo, "ru", "start.md") is None


def test_i18n_outdated_lists_the_translations_a_change_made_outdated(repo, capsys):
    (repo.root / "docs" / "en" / "other.md").write_text("# Other\n\nText.\n")
    (repo.root / "docs" / "ru" / "other.md").write_text("# Другая\n\nТекст.\n")  # never stamped: outdated already
    commit(repo.root, "another page")
    base = git(repo.root, "rev-parse", "HEAD").strip()
    assert main(["i18n-outdated", "--since", base]) == 0
    assert capsys.readouterr().out == "No translation is outdated by this change to the English pages.\n"
    edit(repo, "en", "Text.", "Better text.")
    (repo.root / "docs" / "en" / "other.md").write_text("# Other\n\nText, changed.\n")
    commit(repo.root, "English changes")
    assert main(["i18n-outdated", "--since", base]) == 0
    out = capsys.readouterr().out
    assert "| `docs/ru/start.md` | changed: Compile a function |\n" in out
    assert "Outdated already, and changed again: `docs/ru/other.md`." in out
    assert main(["i18n-outdated", "--since", "no-such-ref"]) == 2
    assert "'no-such-ref' is no commit, branch or tag of this repository" in capsys.readouterr().err


def test_without_a_git_checkout_the_diff_says_so(tmp_path, monkeypatch):
    (tmp_path / "mkdocs.yml").write_text(MKDOCS)
    for lang, text in (("en", ENGLISH), ("ru", RUSSIAN)):
        (tmp_path / "docs" / lang).mkdir(parents=True)
        (tmp_path / "docs" / lang / "start.md").write_text(text)
    site = i18n.Site(tmp_path)
    i18n.stamp(site, "ru", "start.md")
    edit(site, "en", "Text.", "Better text.")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))  # no repository above the folder counts
    with pytest.raises(GuideError, match="the project folder is not a git checkout"):
        english_changes.diff_since_stamp(site, "ru", "start.md")
