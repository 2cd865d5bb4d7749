"""The theme's files that no reader's browser loads, left out of the site.

- Source maps (``*.js.map``, ``*.css.map``): for the theme's own developers; a browser fetches one
  only with its developer tools open, and they were 1.3 MB of every build.
- lunr's support for languages that no index of the site uses: the theme ships every language
  (and two word segmenters, 0.9 MB, for Japanese, Hindi and Thai), and its search worker loads only
  those its index's languages name (``setupSearchLanguages`` in the theme's worker, mirrored in
  ``lunr_files``).

Stdlib only, apart from the Files MkDocs hands over.
"""

from __future__ import annotations

LUNR = "assets/javascripts/lunr/"


def lunr_files(langs: set[str]) -> set[str]:
    """What the theme's search worker loads for indexes in these lunr languages (paths under ``LUNR``)."""
    needed = {"min/lunr.stemmer.support.min.js", "min/lunr.multi.min.js"}
    for lang in langs:
        if lang == "ja":
            needed.add("tinyseg.js")
        if lang in ("hi", "th"):
            needed.add("wordcut.js")
        if lang != "en":
            needed.add(f"min/lunr.{lang}.min.js")
    return needed


def unused(src_uris, langs: set[str]) -> list[str]:
    """The theme's files among ``src_uris`` that no page loads, for a site whose indexes use ``langs``."""
    needed = lunr_files(langs)
    return [uri for uri in src_uris
            if uri.endswith(".map") or (uri.startswith(LUNR) and uri[len(LUNR):] not in needed)]


def prune(files, langs: set[str]) -> list[str]:
    """Take the theme's unused files out of a build's Files; returns their paths."""
    gone = unused([f.src_uri for f in files if f.src_uri.startswith("assets/")], langs)
    for uri in gone:
        files.remove(files.get_file_from_path(uri))
    return gone
