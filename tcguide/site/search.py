"""Search per language: each language's pages search that language's own index.

The i18n plugin builds the languages one after another into one site and pours every
language's search entries into the one index the theme loads from the site's root, so
every page loaded all four languages (about 3 MB) and an English search found the
Russian, Chinese and Korean copies of a page too. Here, instead:

- before each language's build the theme's search plugin gets that language's lunr
  support (``search_lang``), and jieba, which segments Chinese at build time, gets the
  Chinese glossary's terms as words, so that "图中断" or "后端" is one token;
- after each language's build its entries are kept, and once every language is built
  each index is written to its language's folder (``ru/search/search_index.json``), the
  default language's to the root, over the combined one;
- each page's theme configuration names its language's folder as the ``base`` the theme
  loads the index from (and resolves results against), and the search worker
  ``assets/javascripts/workers/search-query.js``: the theme's own worker, which first
  normalises each query for the language (see that file);
- each page loads ``assets/javascripts/search-cache.js`` just before the theme's script: it keeps
  the index the theme fetches in the browser's session storage and answers the theme's later
  requests for it from there, so that the index is fetched once per session, not on every page.
  The copy is kept under the index's version (``index_version``), written into the script's tag.

Stdlib only, apart from what the theme's search plugin already uses.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import tempfile
import threading
from pathlib import Path

from tcguide.i18n import glossary as glossaries
from tcguide.site import build_cache

WORKER = "search-query.js"  # in the theme's folder of workers, assets/javascripts/workers/
CACHE_SCRIPT = "search-cache.js"  # in the theme's folder of scripts, assets/javascripts/
BUNDLE = re.compile(r'<script src="(?P<prefix>[^"]*)assets/javascripts/bundle\.[0-9a-f]+\.min\.js"></script>')
CONFIG = re.compile(r'(<script id="__config" type="application/json">)(?P<json>.*?)(</script>)', re.S)
HAN_WORD = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff]{2,}$")


def search_plugin(config):
    """The theme's search plugin, if the site uses one."""
    return config.plugins.get("material/search") or config.plugins.get("search")


def building_language(config, default: str) -> tuple[str, str, bool]:
    """(the language being built, the default language, whether the i18n plugin is between
    languages). Before the i18n plugin's own ``on_config`` of the first build its current
    language is not set yet: that build is the default language's."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return default, default, False
    first = i18n.default_language
    return i18n.current_language or first, first, bool(i18n.building)


def glossary_terms(glossary: Path) -> list[str]:
    """The Chinese words of the glossary's translation column: the second cell of each table
    row (not the header), split at " / ", kept where it is all Han characters (jieba's words
    have no spaces)."""
    terms: list[str] = []
    for cell in glossaries.translations(glossary):
        for term in (part.strip() for part in cell.split("/")):
            if HAN_WORD.match(term) and term not in terms:
                terms.append(term)
    return terms


# A glossary term's frequency in jieba's user dictionary. Without one, jieba gives a word the least
# frequency that keeps it whole on its own (about 10), and in a sentence a common neighbour wins:
# "这个后端的" became 后 / 端的 (端的, "indeed", has 520). 10,000 is about a common word's ("图" has
# 12,112 of jieba's 60 million), so a term stays whole beside the words around it.
TERM_FREQUENCY = 10_000


def jieba_user_dict(glossary: Path) -> Path:
    """The glossary's terms as a jieba user dictionary (a word and its frequency a line), written
    to a file named by its content."""
    text = "".join(f"{term} {TERM_FREQUENCY}\n" for term in glossary_terms(glossary))
    path = Path(tempfile.gettempdir()) / f"tcguide-jieba-{hashlib.sha256(text.encode()).hexdigest()[:12]}.txt"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return path


def configure(search, lang: str, langs: dict[str, list[str]], jieba_dict: Path | None = None) -> None:
    """Set the search plugin up for one language's build (before the plugin's own on_config)."""
    search.config.lang = list(langs.get(lang, [lang]))
    if jieba_dict is not None:
        _ASKED[str(jieba_dict)] = _ASKED.get(str(jieba_dict), 0) + 1


# jieba's user dictionary, loaded only when a page is indexed: loading jieba takes half a second, which a
# build whose every page's entries are reused does not spend. The theme's plugin loaded it in every
# language's on_config (its ``jieba_dict_user``), and how jieba segments depends on how many times it was
# loaded (each load adds every word's frequency to its total again): the k-th language's pages were
# segmented after k loads. So a page is indexed after as many loads as the language builds of this build
# have asked for so far, which its entries' key holds, and the indexes are the same as the theme's plugin
# made. A build is counted from its first language (``new_build``), not from the process's start: each
# rebuild of ``mkdocs serve`` brings jieba back to the state it had before its first load (``_FRESH``) and
# loads the dictionary again, so that its pages are segmented, and keyed, as a build's from scratch are
# (counted over the process, every rebuild's keys were new: serve indexed every page again on every edit).
_ASKED: dict[str, int] = {}  # the user dictionary -> how many language builds of this build asked for it
_LOADED: dict[str, int] = {}  # the user dictionary -> how many times jieba has loaded it since _FRESH
_FRESH: list = []  # jieba's words and their total before it loaded any user dictionary


def new_build() -> None:
    """A build starts (its first language's configuration): its languages' loads are counted anew."""
    _ASKED.clear()


def _load_user_dict(jieba_dict: Path | None) -> None:
    """Have jieba hold the glossary's words as loaded as many times as the builds so far asked for them."""
    if jieba_dict is None:
        return
    try:
        import jieba
    except ImportError:  # the theme segments nothing without it either
        return
    path = str(jieba_dict)
    wanted = _ASKED.get(path, 0)
    if _LOADED.get(path, 0) > wanted:  # loaded more often than this build has asked: start again from fresh
        jieba.dt.FREQ, jieba.dt.total = dict(_FRESH[0]), _FRESH[1]
        _LOADED.clear()
    if not _FRESH and _LOADED.get(path, 0) < wanted:
        jieba.dt.check_initialized()
        _FRESH.extend([dict(jieba.dt.FREQ), jieba.dt.total])
    while _LOADED.get(path, 0) < wanted:
        with open(path, "rb") as words:  # jieba opens a path it is given and leaves it open
            jieba.load_userdict(words)
        _LOADED[path] = _LOADED.get(path, 0) + 1


def load_jieba_meanwhile() -> threading.Thread | None:
    """Have jieba load its dictionary in a thread of its own (``mkdocs serve``, once it serves): a build
    whose pages' entries were all kept never loads it, and the first edit's rebuild paid the 0.7 s
    (jieba's own lock keeps a build that needs it first waiting for the load, not loading it twice)."""
    try:
        import jieba
    except ImportError:
        return None
    thread = threading.Thread(target=jieba.dt.check_initialized, name="jieba", daemon=True)
    thread.start()
    return thread


def snapshot(search) -> dict:
    """The search index of the language just built, as the theme's plugin would write it."""
    keys = ("lang", "separator", "pipeline", "fields")
    return {"config": {key: search.config[key] for key in keys}, "docs": list(search.search_index.entries)}


CODE_BLOCK = re.compile(r"<pre>.*?</pre>", re.S)
SPACES = re.compile(r"\s{2,}")
PRE = re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.S)
TAG = re.compile(r"<[^>]*>")
# a code block's caption, its snippet file and cell ("snippets/topic/file.py · cell"): a cell's name, the
# same in every language, not the page's words
CAPTION = re.compile(r'(<span class="filename">)[^<]*(</span>)')


def index_without_code(search, jieba_dict: Path | None = None, store: build_cache.Store | None = None) -> None:
    """Have the theme's search plugin read each page with its code blocks emptied (a mark left in
    each) and their captions (snippet file and cell) left out, for the language being built (after its ``on_config``, which makes the index).

    The index drops every code block (``without_code_blocks``) and the theme's parser, pure Python,
    spent most of its time on the highlighted code's tags (a span per token and per line): 85 % of
    the tags of the chapter pages. The parser keeps a code block as ``<pre>``, its text and
    ``</pre>``, so a block emptied to a mark is dropped as the whole block was, and the indexes are
    the same; a block of only white space, which the parser drops itself, is left as it is. The
    page itself keeps its code: only what the parser reads is emptied.

    With a ``store``, a page's entries are kept and reused by a later build under a digest of all the
    parser and jieba read: the page's address, title, content, table of contents and the front matter
    that the entries take (``search``, ``tags``, ``title``), and the words of jieba's user dictionary
    (``jieba_dict``, the glossary's) with the number of times jieba has loaded them, with the tooling's
    code and the installed versions."""
    index = search.search_index
    add = index.add_entry_from_context
    # the glossary's words, and how many times jieba will have loaded them when this build's pages are indexed
    words = (jieba_dict.read_text(encoding="utf-8"), _ASKED.get(str(jieba_dict), 0)) if jieba_dict is not None else None

    def add_entry_from_context(page):
        if (page.meta.get("search") or {}).get("exclude"):  # as the theme's index does, before digesting its content
            return
        key = _entries_key(page, words) if store is not None else None
        if key is not None:
            entries = store.get(key)
            if entries is not None:
                index.entries.extend(entries)
                return
        _load_user_dict(jieba_dict)
        before = len(index.entries)
        content = page.content
        page.content = CAPTION.sub(r"\1\2", PRE.sub(_emptied, content)) if content else content
        try:
            add(page)
        finally:
            page.content = content
        if key is not None:
            store.put(key, index.entries[before:])

    index.add_entry_from_context = add_entry_from_context


# What the theme's on_page_context takes out of a page (a data-search-* attribute with a value), and how it
# starts: a literal, which the regular expression engine finds quickly.
VALUED_ATTRIBUTE = re.compile(r'\s?data-search-\w+="[^"]+"')
VALUED_START = re.compile(r'data-search-\w+="')


def strip_only_where_needed(config, search) -> None:
    """Have the theme's search plugin look for the attributes it strips before stripping them.

    Its ``on_page_context`` indexes the page, then takes every ``data-search-*="…"`` attribute out of
    the page's HTML with a regular expression that starts with an optional space: tried at every
    character of every page, a tenth of a second of each build (the guide's pages have no such
    attribute: their ``data-search-exclude`` has no value). Its handler, in the build's events, is
    wrapped in one that indexes the page as it does and runs it only on a page with such an attribute
    (found by the attribute's literal start). The pages are the same."""
    events = config.plugins.events.get("page_context", [])
    for i, handler in enumerate(events):
        if handler == search.on_page_context:  # (not wrapped already, by an earlier language of the build)
            events[i] = _page_context(search, handler)


def _page_context(search, theirs):
    def handler(context, *, page, config, nav):
        if search.config.enabled and not (page.content and VALUED_START.search(page.content)):
            search.search_index.add_entry_from_context(page)
            return None
        return theirs(context, page=page, config=config, nav=nav)
    return handler


CACHE_KIND = "search"


def _entries_key(page, words) -> str | None:
    """The digest a page's search entries are kept under; None for a page whose front matter has a value
    that is not plain data (its entries are made afresh)."""
    try:
        return build_cache.digest(CACHE_KIND, build_cache.code_version(), words, page.url, page.title, page.content,
                                  build_cache.toc_tokens(page.toc),
                                  {name: page.meta.get(name) for name in ("search", "tags", "title")})
    except TypeError:
        return None


def _emptied(match: re.Match) -> str:
    if not html.unescape(TAG.sub("", match[2])).strip():
        return match[0]
    return match[1] + "code" + match[3]


def without_code_blocks(text: str) -> str:
    """A section's text without its code blocks: the snippets' code is the same in every
    language and was a third of each index (the captured outputs, and each cell's provenance and
    source link, are kept out at render time with data-search-exclude). Names in running text,
    inline code included, stay searchable. Runs of white space, the Markdown's line breaks and
    indentation, are one space: a search's words and its result's preview are the same."""
    return SPACES.sub(" ", CODE_BLOCK.sub(" ", text))


def write_indexes(site_dir: Path, indexes: dict[str, dict], default: str) -> dict[str, int]:
    """Write each language's index into its folder, locations relative to that folder, in
    UTF-8 (not the theme's \\u escapes: a third of the bytes for Cyrillic, half for Chinese
    and Korean), without code blocks; returns the size in bytes of each."""
    sizes = {}
    for lang, index in indexes.items():
        prefix = "" if lang == default else f"{lang}/"
        docs = [dict(doc, location=doc["location"][len(prefix):]) if doc["location"].startswith(prefix) else doc
                for doc in index["docs"]]
        docs = [dict(doc, text=without_code_blocks(doc["text"])) for doc in docs]
        data = json.dumps({"config": index["config"], "docs": docs}, separators=(",", ":"), default=str,
                          ensure_ascii=False)
        target = site_dir / prefix / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(data, encoding="utf-8")
        sizes[lang] = len(data.encode("utf-8"))
    return sizes


def index_version(pages, search) -> str:
    """A version of the language's index, known before any page is written (``on_env``): a digest
    of what the index is made from, each searchable page's address, title and content, and the
    search settings. A page's version changes whenever its language's index may have."""
    digest = hashlib.sha256(json.dumps(snapshot(search)["config"], sort_keys=True, default=str).encode("utf-8"))
    for page in pages:
        if page is None or (page.meta.get("search") or {}).get("exclude"):
            continue
        for part in (page.url, page.title or "", page.content or ""):
            digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


VERSION_SLOT = "tcguide-index-version"  # where a finished page kept for reuse takes its index's version


def with_version(output: str, version: str | None) -> str:
    """A page finished with ``VERSION_SLOT`` given its language's index version (``page_config``)."""
    return output.replace(f'data-index="{VERSION_SLOT}"', f'data-index="{version}"', 1) if version else output


def language_root(lang: str, default: str) -> str:
    """The language's folder, relative to the site's root ("" for the default language)."""
    return "" if lang == default else f"{lang}/"


def page_config(output: str, root: str, version: str | None = None) -> str:
    """A page (or 404 page) whose theme configuration has the language's folder (``root``,
    relative to the site's root) as its ``base``, and the query-normalising worker beside the
    theme's own, which it loads (named in its query string); with the index's ``version``, the
    script that keeps the index for the session, just before the theme's own script."""
    match = CONFIG.search(output)
    if not match:
        return output
    settings = json.loads(match["json"])
    if not settings.get("search"):
        return output
    if root:
        settings["base"] = settings["base"].rstrip("/") + "/" + root
    folder, _, theme_worker = settings["search"].split("?", 1)[0].rpartition("/")
    settings["search"] = f"{folder}/{WORKER}?theme={theme_worker}" if folder else f"{WORKER}?theme={theme_worker}"
    text = json.dumps(settings).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    output = output[: match.start("json")] + text + output[match.end("json"):]
    if version:
        output = BUNDLE.sub(lambda m: f'<script src="{m["prefix"]}assets/javascripts/{CACHE_SCRIPT}" '
                                      f'data-index="{version}"></script>{m[0]}', output, count=1)
    return output
