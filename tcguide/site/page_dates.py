"""Each page's last update, asked of git once per commit instead of once per page on every build.

The git-revision-date-localized plugin dates a page by the last commit that changed its file: one
``git log --follow`` per page, in a process pool, for each language's build (the pool started again
whenever the language changed its settings): about two seconds of a warm build's CPU. A page's answer
changes only with the history, so the answers are kept with the commit they were read at (``HEAD``),
and a later build takes them back (into the plugin's own cache of answers, before its ``on_files``
reads it, so that it asks git nothing):

- at the same commit, every kept answer stands;
- at a commit the kept one is an ancestor of, one walk of the commits between them
  (``git log -m --no-renames --name-only OLD..NEW``) names every file any of them touched, relative
  to each of its parents, under its old and its new name; those answers are dropped and the rest stand
  (a file no commit since touched has the same history, so the same last commit);
- at any other commit (a rebase, another branch), or in a shallow clone (its history can deepen with
  no new commit), nothing is kept.

A page without a kept answer is asked of git by the plugin as before: all of them with its pool when
most are missing, else each when its page is read. The answers are taken from the plugin after the
build, and one that is no commit's (a page never committed, dated by the build) is not kept. The key
holds what else decides an answer: the plugin's settings that choose the commits (``--follow``, the
ignored commits) and the installed versions with the tooling's code (``build_cache.code_version``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tcguide.site import build_cache

KIND = "dates"
PLUGIN = "git-revision-date-localized"
MOST_MISSING = 8  # more pages than this without an answer: the plugin asks git for all, in its pool


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


class Dates:
    """The kept answers of one project, for the builds of one process."""

    def __init__(self, project_root: Path, store: build_cache.Store):
        self.store = store
        top = _git(project_root, "rev-parse", "--show-toplevel")
        self.repo = Path(top.strip()).resolve() if top else None
        self.head: str | None = None
        self.answers: dict[str, list] = {}  # repository path -> [commit, timestamp]
        self.kept: tuple | None = None  # what the store holds now: (head, answers)
        self.given = self.dated = 0  # pages with a kept answer, of those the plugin dates (in each language's build)

    def _key(self, plugin) -> str:
        return build_cache.digest(KIND, build_cache.code_version(), bool(plugin.config.get("enable_git_follow")),
                                  sorted(getattr(plugin.util, "ignored_commits", []) or []))

    def _current(self) -> str | None:
        """HEAD, or None where answers cannot be kept (no git, no commit, a shallow clone)."""
        found = _git(self.repo, "rev-parse", "HEAD", "--is-shallow-repository") if self.repo else None
        lines = found.split() if found else []
        return lines[0] if len(lines) == 2 and lines[1] == "false" else None

    def _pages(self, plugin, files) -> dict[str, str]:
        """The pages the plugin dates from git (as its on_files chooses them): their repository path -> the
        key of its cache of answers."""
        from mkdocs_git_revision_date_localized_plugin.exclude import exclude

        pages = {}
        for file in files:
            if (not file.is_documentation_page() or getattr(file, "generated_by", None) or file.abs_src_path is None
                    or exclude(file.src_path, plugin.config.get("exclude", []))):
                continue
            real = Path(os.path.realpath(file.abs_src_path))
            try:
                pages[real.relative_to(self.repo).as_posix()] = str(Path(file.abs_src_path).absolute())
            except ValueError:  # outside the repository: the plugin answers it
                continue
        return pages

    def give(self, config, files) -> None:
        """Before the plugin's on_files: put the answers that stand into its cache."""
        plugin = config.plugins.get(PLUGIN)
        if (plugin is None or self.repo is None or not plugin.config.get("enabled", True)
                or not plugin.config.get("enable_parallel_processing") or getattr(plugin, "util", None) is None):
            return
        head = self._current()
        if head is None:
            self.head = None
            return
        if head != self.head:  # the first build of this process, or a new commit since (mkdocs serve)
            self.answers = self._standing(plugin, head)
            self.head = head
        pages = self._pages(plugin, files)
        self.dated += len(pages)
        missing = [path for path in pages if path not in self.answers]
        if len(missing) > MOST_MISSING:
            return
        self.given += len(pages) - len(missing)
        for path, key in pages.items():
            if path in self.answers and key not in plugin.last_revision_commits:
                plugin.last_revision_commits[key] = tuple(self.answers[path])
                plugin.cached_source_paths[key] = key
        self._tags(plugin)

    def _tags(self, plugin) -> None:
        """Put into the plugin's cache of tag names the tag of each commit it will ask about (the pages' and
        the site's last commits): it asked git once per commit (``git tag --points-at``), 86 times a build,
        where one listing of the tags answers them all (the first tag by name, as git lists them)."""
        cache = getattr(getattr(plugin, "util", None), "tag_cache", None)
        listed = _git(self.repo, "for-each-ref", "--sort=refname",
                      "--format=%(objectname) %(*objectname) %(refname:short)", "refs/tags")
        if not isinstance(cache, dict) or listed is None:
            return
        tags: dict[str, str] = {}
        for line in listed.splitlines():
            tag, peeled, name = line.split(" ", 2)  # peeled: the commit an annotated tag names ("" if lightweight)
            for commit in (tag, peeled):
                if commit:
                    tags.setdefault(commit, name)
        commits = {commit for commit, _ in self.answers.values()} | {getattr(plugin, "last_site_revision_hash", None)}
        for commit in commits - {None, ""}:
            cache.setdefault(commit, tags.get(commit, ""))

    def counted(self) -> str:
        """How many pages' dates came from kept answers since the last call ("12 of 16 dates"), and restart."""
        said = f"{self.given} of {self.dated} dates"
        self.given = self.dated = 0
        return said

    def _standing(self, plugin, head: str) -> dict[str, list]:
        """The kept answers that hold at head."""
        kept = self.store.get(self._key(plugin))
        if not isinstance(kept, dict) or not isinstance(kept.get("answers"), dict):
            return {}
        answers, since = dict(kept["answers"]), kept.get("head")
        self.kept = (since, dict(answers))
        if since == head:
            return answers
        if not isinstance(since, str) or _git(self.repo, "merge-base", "--is-ancestor", since, head) is None:
            return {}
        touched = _git(self.repo, "log", "-m", "--no-renames", "--name-only", "--format=", f"{since}..{head}")
        if touched is None:
            return {}
        for path in touched.splitlines():
            answers.pop(path, None)
        return answers

    def keep(self, config, files) -> None:
        """After a build: keep the plugin's answers, with the commit they hold at."""
        plugin = config.plugins.get(PLUGIN)
        if plugin is None or self.head is None or self._current() != self.head:
            return  # a commit made during the build: what the plugin read may be of either
        answers = dict(self.answers)
        for path, key in self._pages(plugin, files).items():
            found = plugin.last_revision_commits.get(key)
            if found and found[0]:  # a commit's, not the build's date of a page never committed
                answers[path] = [found[0], int(found[1])]
        if self.kept != (self.head, answers):
            self.store.put(self._key(plugin), {"head": self.head, "answers": answers})
            self.kept = (self.head, dict(answers))
        self.answers = answers
