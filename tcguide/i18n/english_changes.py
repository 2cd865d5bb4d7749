"""What changed in English since a translation was stamped, from the pages' git history.

A stamp records digests of the English text, not a commit (``translations``), so the English
version a translation follows is found by reading the English page at each commit that changed it,
newest first, until one has the stamped digest. On that:

- ``diff_since_stamp``: the English diff from that version to now (``i18n-diff``);
- ``restamp_refusal``: stamping an outdated page that nobody edited since its stamp is refused, since it
  would record the English changes as translated;
- ``outdated_by``: the translations that a change to the English pages since a commit makes outdated
  (``i18n-outdated``, which the translations workflow posts on a pull request).
"""

from __future__ import annotations

from dataclasses import dataclass

from tcguide.core.errors import GuideError
from tcguide.i18n import history
from tcguide.i18n import translations as i18n
from tcguide.core.languages import SOURCE


def edited_since_stamp(site: i18n.Site, lang: str, page: str) -> bool | None:
    """Whether the translation's text changed since its last stamp; None where that cannot be told (never
    stamped; or stamped before stamps recorded the page's own digest, and no commit holds that stamp)."""
    translated = site.read(lang, page)
    record = i18n.record_of(translated)
    if not record:
        return None
    if record.get("translated"):
        return record["translated"] != translated.version
    text = history.text_where_added(site.root, site.display(lang, page), str(record.get("version")))
    return None if text is None else i18n.text_version(text) != translated.version


def restamp_refusal(site: i18n.Site, lang: str, page: str) -> GuideError | None:
    """Why stamping this page now would be wrong: it is outdated, and its text is the one stamped last."""
    state = i18n.status(site, lang, page)
    if state.state != "outdated" or not i18n.record_of(site.read(lang, page)):
        return None
    if edited_since_stamp(site, lang, page) is not False:
        return None
    shown = site.display(lang, page)
    return GuideError(shown, None, f"is outdated ({'; '.join(state.changes)}) and was not edited since its last stamp: "
                      "stamping it now would record those English changes as translated",
                      f"translate them first (make i18n-diff PAGE={shown} prints them), or, where the English change "
                      "needs nothing in this language (a typo, a link), stamp it with --no-edit-needed")


def stamped_commit(site: i18n.Site, lang: str, page: str) -> str | None:
    """The newest commit whose English page has the version the translation was stamped at; None when the
    English page is still that version. GuideError, saying why, when the version is in no commit."""
    shown, english_path = site.display(lang, page), site.display(SOURCE, page)
    record = i18n.record_of(site.read(lang, page))
    if not record.get("version"):
        raise GuideError(shown, None, "was never stamped, so no English version is recorded to compare with",
                         f"read the English page's history (git log -p {english_path}); stamp the translation "
                         f"once it follows the English page (make i18n-stamp PAGE={shown})")
    version = str(record["version"])
    if site.read(SOURCE, page).version == version:
        return None
    for commit in history.commits(site.root, english_path):
        text = history.text_at(site.root, commit, english_path)
        if text is not None and i18n.text_version(text) == version:
            return commit
    why = ("this checkout holds only part of the history: fetch the rest (git fetch --unshallow) and run it again"
           if history.shallow(site.root) else
           "the translation was stamped against English text that was never committed as it was (an edit stamped "
           f"before its commit): compare by hand with git log -p {english_path}")
    raise GuideError(shown, None, f"was stamped at English version {version}, which no commit of {english_path} has",
                     why)


def diff_since_stamp(site: i18n.Site, lang: str, page: str) -> str:
    """The English page's diff since the version the translation follows, under a line that says which."""
    shown, english_path = site.display(lang, page), site.display(SOURCE, page)
    commit = stamped_commit(site, lang, page)
    if commit is None:
        return f"{shown} follows {english_path} as it is: nothing changed in English since its stamp\n"
    changes = i18n.status(site, lang, page).changes
    head = (f"{shown} was stamped at {english_path} as of commit {commit[:12]}; the English changes since"
            + (f" ({'; '.join(changes)})" if changes else "") + ":\n\n")
    return head + history.diff(site.root, commit, english_path)


@dataclass(frozen=True)
class Outdated:
    status: i18n.Status
    by_this_change: bool  # up to date with the English page as it was at the commit compared with


def outdated_by(site: i18n.Site, since: str) -> list[Outdated]:
    """The translations, outdated now, of each English page that changed since commit ``since``."""
    found = []
    for path in history.changed_files(site.root, since, site.display(SOURCE, "")):
        page = path.split("/", 2)[2]
        if not path.endswith(".md") or not site.path(SOURCE, page).exists():
            continue  # a page deleted: its translations are orphans, which the structure check reports
        before = history.text_at(site.root, since, path)
        version_before = i18n.text_version(before) if before is not None else None
        english = site.read(SOURCE, page)
        for lang in site.languages()[1:]:
            state = i18n.status(site, lang, page, english)
            if state.state == "outdated":
                record = i18n.record_of(site.read(lang, page))
                found.append(Outdated(state, record.get("version") == version_before))
    return found


def outdated_report(site: i18n.Site, since: str) -> str:
    """``outdated_by`` as Markdown, for a pull request's comment."""
    rows = outdated_by(site, since)
    made = [row.status for row in rows if row.by_this_change]
    before = [row.status for row in rows if not row.by_this_change]
    if not rows:
        return "No translation is outdated by this change to the English pages.\n"
    lines = ["Translations this change to the English pages makes outdated:", "",
             "| Translation | English changes |", "|---|---|"]
    lines += [f"| `{site.display(s.lang, s.page)}` | {'; '.join(s.changes).replace('|', '&#124;')} |" for s in made] \
        or ["| none | |"]
    if before:
        lines += ["", "Outdated already, and changed again: "
                  + ", ".join(f"`{site.display(s.lang, s.page)}`" for s in before) + "."]
    lines += ["", "A translator runs `make i18n-diff PAGE=<translation>` for the English diff since its stamp, "
              "updates the translation and stamps it (`make i18n-stamp`)."]
    return "\n".join(lines) + "\n"
