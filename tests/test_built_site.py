"""The record of what `make docs` built site/ from (tcguide/site/built.py), which lets the tests read
that build instead of building the guide again: reused only when the tree and the site are exactly
as recorded. Each test makes a small git checkout of its own and a site folder written by hand (what
a build writes does not matter here, only whether it changed)."""

from __future__ import annotations

import subprocess

import pytest

from tcguide.site import built

ENV = {"PATH": "/usr/bin:/bin"}


def _git(root, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=root, check=True,
                   capture_output=True)


@pytest.fixture
def tree(tmp_path):
    """A committed checkout with an mkdocs.yml that reads SITE_URL, a page, and site/ ignored."""
    root = tmp_path / "guide"
    (root / "docs").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: t\nsite_url: !ENV [SITE_URL, null]\n", encoding="utf-8")
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / ".gitignore").write_text("/site/\n/.cache/\n", encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "start")
    return root


def _build(root, env=ENV):
    """What `make docs` does: begin, the build (here: files written), end."""
    built.begin(root, root / "site", env)
    (root / "site").mkdir(exist_ok=True)
    (root / "site" / "index.html").write_text("<h1>Home</h1>", encoding="utf-8")
    return built.end(root, root / "site", env)


def test_a_recorded_build_of_the_same_tree_is_reused(tree):
    assert _build(tree)
    assert built.reusable(tree, tree / "site", ENV)


def test_an_edited_or_new_input_file_means_building_again(tree):
    assert _build(tree)
    (tree / "docs" / "index.md").write_text("# Home, edited\n", encoding="utf-8")
    assert not built.reusable(tree, tree / "site", ENV)
    (tree / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    assert built.reusable(tree, tree / "site", ENV)
    (tree / "docs" / "new.md").write_text("# New, not committed\n", encoding="utf-8")
    assert not built.reusable(tree, tree / "site", ENV)


def test_a_new_commit_means_building_again(tree):
    """The pages' dates come from the history: the same files at another commit are another build."""
    assert _build(tree)
    _git(tree, "commit", "-q", "--allow-empty", "-m", "later")
    assert not built.reusable(tree, tree / "site", ENV)


def test_a_site_changed_after_the_build_is_not_reused(tree):
    assert _build(tree)
    (tree / "site" / "index.html").write_text("<h1>Home</h1>, by hand", encoding="utf-8")
    assert not built.reusable(tree, tree / "site", ENV)
    (tree / "site" / "index.html").write_text("<h1>Home</h1>", encoding="utf-8")
    (tree / "site" / "extra.html").write_text("", encoding="utf-8")
    assert not built.reusable(tree, tree / "site", ENV)


def test_a_build_with_another_address_is_not_the_tests_build(tree):
    """mkdocs.yml reads SITE_URL: a published build (absolute links) is not what the tests build."""
    assert _build(tree, dict(ENV, SITE_URL="https://example.org/guide/"))
    assert not built.reusable(tree, tree / "site", ENV)
    assert built.reusable(tree, tree / "site", dict(ENV, SITE_URL="https://example.org/guide/"))


def test_an_input_changed_during_the_build_leaves_no_record(tree):
    built.begin(tree, tree / "site", ENV)
    (tree / "site").mkdir()
    (tree / "docs" / "index.md").write_text("# Home, edited while building\n", encoding="utf-8")
    assert not built.end(tree, tree / "site", ENV)
    assert not built.reusable(tree, tree / "site", ENV)


def test_a_build_that_did_not_pass_is_not_reused(tree):
    """make stops at a failed strict build: begin ran, end did not."""
    assert _build(tree)
    built.begin(tree, tree / "site", ENV)
    assert not built.reusable(tree, tree / "site", ENV)


def test_a_tree_outside_git_is_always_built(tmp_path):
    root = tmp_path / "archive"
    (root / "site").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    assert not _build(root)
    assert not built.reusable(root, root / "site", ENV)
