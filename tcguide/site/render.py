"""HTML for an embedded cell: its code, its captured output, and where and when it ran.

Everything captured is HTML-escaped; figures are ``<img>`` elements (SVG files beside the
site, or data URIs in previews),
so nothing a snippet printed can run in the reader's browser. Stdlib only.
"""

from __future__ import annotations

import base64
import html
import json
import re

from tcguide.core import timings
from tcguide.core.catalog import Embedded
from tcguide.core.glue import format_value
from tcguide.core.errors import GuideError
from tcguide.core.languages import SOURCE
from tcguide.core.labels import label
from tcguide.core.output_format import from_lines
from tcguide.i18n import charts
from tcguide.i18n.charts import ChartText
from tcguide.site import tables

FOLD_LINES = 25  # longer outputs fold
TAIL_LINES = 12  # but their last lines stay in view


# A line of torch's logging: an optional rank, level letter, date, time, process id and source
# location up to "] ", then the message.
LOG_LINE = re.compile(r"^(?P<prefix>(?:\[rank\d+\]:)?[VDIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ \d+ [^\]\s]+\] )(?P<rest>.*)$")


def _is_log(text: str) -> bool:
    """Most of its lines are torch log lines: then the message matters, not its column."""
    lines = text.splitlines()
    return bool(lines) and sum(bool(LOG_LINE.match(line)) for line in lines) * 2 >= len(lines)


def _escaped(text: str) -> str:
    """The text as HTML; a torch log line's prefix in a span that the page shows short (its level
    and time; all of it on hover or focus) while a copy still takes all of it."""
    out = []
    for line in text.splitlines(keepends=True):
        match = LOG_LINE.match(line)
        if match:
            prefix = html.escape(match["prefix"])
            out.append(f'<span class="tcg-log-prefix" tabindex="0" title="{prefix.strip()}">{prefix}</span>'
                       f'{html.escape(line[match.end("prefix"):])}')
        else:
            out.append(html.escape(line))
    return "".join(out)


def _pre(text: str, css: str) -> str:
    if _is_log(text):
        css += " tcg-log"
    # newlines as entities keep the HTML block on one line, which Markdown leaves alone
    return f'<pre class="{css}"><code>{_escaped(text).replace(chr(10), "&#10;")}</code></pre>'


def _foldable(text: str, css: str, lang: str) -> str:
    """Long text: its last lines stay visible, the earlier ones fold away (logs end with what matters)."""
    lines = text.splitlines(keepends=True)
    if len(lines) <= FOLD_LINES:
        return _pre(text, css)
    head, tail = "".join(lines[:-TAIL_LINES]), "".join(lines[-TAIL_LINES:])
    summary = label(lang, "fold_earlier").format(n=len(lines) - TAIL_LINES, total=len(lines))
    return (f'<details class="tcg-fold"><summary>{html.escape(summary)}</summary>{_pre(head, css + " tcg-head")}'
            f'</details>{_pre(tail, css + " tcg-tail")}')


def _attribute(text: str) -> str:
    """Text as an attribute's value, its newlines as entities (the HTML stays on one line)."""
    return html.escape(text).replace("\n", "&#10;")


def _table(table: tables.Table) -> str:
    """A table a snippet printed, as an HTML table: its first column a row header that stays in view while
    the others scroll, inside the table only. The copy button and ``data-copy`` give the text as printed."""
    def cell(text: str, numeric: bool, scope: str | None = None) -> str:
        tag = "th" if scope else "td"
        # a number, or one word (3.34–4.32, 0/1), never breaks; longer text breaks between its words only
        css = "tcg-num" if numeric else "tcg-word" if " " not in text and tag == "td" else ""
        attrs = (f' scope="{scope}"' if scope else "") + (f' class="{css}"' if css else "")
        shown = re.sub(r"\S+", r"<span>\g<0></span>", html.escape(text)) if " " in text else html.escape(text)
        return f"<{tag}{attrs}>{shown}</{tag}>"
    head = "".join(cell(text, num, "col") for text, num in zip(table.header, table.numeric))
    body = "".join("<tr>" + "".join(cell(text, num, "row" if i == 0 else None)
                                    for i, (text, num) in enumerate(zip(row, table.numeric))) + "</tr>"
                   for row in table.rows)
    return (f'<div class="tcg-table" data-copy="{_attribute(table.text)}"><div class="tcg-table-scroll" tabindex="0">'
            f'<table class="tcg-printed"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div></div>')


def _stream(text: str, lang: str) -> str:
    """Printed text; the tables in it (tabulate's) as tables, the rest as printed."""
    return "".join(_table(part) if isinstance(part, tables.Table) else _foldable(part, "tcg-stream", lang)
                   for part in tables.split(text))


def source_link(embedded: Embedded, url: str | None, lang: str) -> str:
    """A link to the cell's snippet file in the repository ('' when the site names no repository)."""
    if not url:
        return ""
    shown = f"{embedded.snippet.path}:{embedded.cell.line}"
    title = label(lang, "nb_snippet").format(file=embedded.snippet.path)
    return (f'<div class="tcg-source" data-search-exclude><a href="{html.escape(url)}" title="{html.escape(title)}">'
            f'{html.escape(shown)}</a></div>')


def provenance(embedded: Embedded, lang: str) -> str:
    line, title = timings.provenance(embedded.capture, embedded.record, lang)
    return f'<div class="tcg-provenance" data-search-exclude title="{html.escape(title)}">{html.escape(line)}</div>'


def data_uri(mime: str, data: str) -> str:
    """A figure inlined into the page (previews and tests; the site writes figures as files).
    ``data`` is an SVG document's text, or a PNG image in base64, as the store keeps them."""
    if mime == "image/png":
        return "data:image/png;base64," + "".join(data.split())
    return "data:image/svg+xml;base64," + base64.b64encode(data.encode("utf-8")).decode("ascii")


FIGURE_TYPES = ("image/svg+xml", "image/png")
# A number in a chart's description as capture wrote it (Python's %g: 18.3, 5, 4.43e+03), not part of a
# word (resnet18, H100) nor of a longer number.
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:e[+-]?\d+)?(?!\w|\.\d)")


def figures_as_prose(text: str, lang: str) -> str:
    """A chart's description with its numbers written as the page's prose writes glued figures: the
    language's decimal sign and thousands, and no exponent (4.43e+03 is 4,430; in Russian 4 430)."""
    def written(match: re.Match) -> str:
        token = match[0]
        decimals = len(token.split(".")[1]) if "." in token and "e" not in token else 0
        return format_value(float(token), f",.{decimals}f", lang)
    return NUMBER.sub(written, text)


# The drawing's size on its root element: width="298.1pt" height="188pt" viewBox="0 0 298.1 188".
CHART_SIZE = re.compile(r'(<svg\b[^>]*?\bwidth=")([\d.]+)(pt"[^>]*?\bviewBox=")([\d.-]+) ([\d.-]+) ([\d.]+) ')
SIDE_ROOM = 10  # in the drawing's units (pt), on each side


def chart_in_language(svg: str, lang: str, words: ChartText) -> str:
    """A chart's SVG with its text in the page's language (``i18n/charts-<lang>.toml``, where it has an
    entry) and its numbers written as the page's prose writes them. Its text is laid out by the reader's
    fonts, not by the ones matplotlib measured it with, and a translation is longer or shorter than
    the English: the drawing gets room on either side, so that a label at its edge is not cut off."""
    def line(match: re.Match) -> str:
        text = html.unescape(match[2])
        text = words.line(text) or text
        return match[1] + html.escape(figures_as_prose(text, lang), quote=False) + match[3]

    def widened(match: re.Match) -> str:
        width, left, top, inner = float(match[2]), float(match[4]), match[5], float(match[6])
        return (f"{match[1]}{width + 2 * SIDE_ROOM:g}{match[3]}"
                f"{left - SIDE_ROOM:g} {top} {inner + 2 * SIDE_ROOM:g} ")
    if not charts.TEXT.search(svg):  # its text drawn as paths: nothing to translate, nothing to make room for
        return svg
    return CHART_SIZE.sub(widened, charts.TEXT.sub(line, svg), count=1)


def outputs(embedded: Embedded, lang: str, figure_url=data_uri, words: ChartText = ChartText()) -> str:
    record = embedded.record
    parts: list[str] = []
    for output in record.outputs if record else ():
        kind = output["output_type"]
        if kind == "stream":
            parts.append(_stream(output["text"], lang))
        elif kind == "warning":
            where = f'{output["filename"]}:{output["lineno"]}'
            parts.append(f'<div class="tcg-warning"><span class="tcg-label">{html.escape(output["category"])}</span> '
                         f'{html.escape(output["message"])} <span class="tcg-where">({html.escape(where)})</span></div>')
        elif kind == "display_data":
            mime = next(m for m in FIGURE_TYPES if m in output["data"])
            figure = from_lines(output["data"][mime])
            if mime == "image/svg+xml":
                figure = chart_in_language(figure, lang, words)
            url = html.escape(figure_url(mime, figure))
            alt = label(lang, "figure").format(cell=embedded.cell.name, file=embedded.snippet.path)
            if output["data"].get("text/plain"):  # what the chart shows, described at capture
                alt += ": " + figures_as_prose(words.within(from_lines(output["data"]["text/plain"])), lang)
            # a tap opens the figure on its own, to zoom on a phone
            parts.append(f'<a class="tcg-figure-link" href="{url}"><img class="tcg-figure" alt="{html.escape(alt)}" '
                         f'src="{url}" loading="lazy"></a>')
        elif kind == "error":
            expected = output.get("expected")
            title = label(lang, "raises_expected" if expected else "raises_unexpected").format(ename=output["ename"])
            css = "tcg-error tcg-expected" if expected else "tcg-error tcg-unexpected"
            parts.append(f'<div class="{css}"><div class="tcg-label">{html.escape(title)}</div>'
                         f'{_foldable(output["traceback"], "tcg-traceback", lang)}</div>')
    if not parts:
        parts.append(f'<div class="tcg-empty">{html.escape(label(lang, "no_output"))}</div>')
    return "".join(parts)


def _fence_for(code: str) -> str:
    """A backtick fence longer than any run of backticks in the code, so no line of it can close the block."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def code_block(embedded: Embedded) -> str:
    cell = embedded.cell
    leading = len(cell.source) - len(cell.source.lstrip("\n"))
    first = cell.line + 1 + leading
    title = f"{embedded.snippet.path} · {cell.name}"
    return f'{_fence_for(cell.code)}python title="{title}" linenums="{first}"\n{cell.code}{_fence_for(cell.code)}'


def problem_box(error: GuideError, lang: str) -> str:
    return (f'<div class="tcg-problem"><strong>{html.escape(label(lang, "problem"))}</strong> '
            f'{html.escape(str(error))}</div>')


def cell(embedded: Embedded, lang: str, figure_url=data_uri, source_url: str | None = None,
         words: ChartText = ChartText()) -> str:
    """Markdown for one embedded cell: a fenced code block, then one line of HTML.
    ``figure_url`` gives the address of a figure's SVG (default: the SVG inlined);
    ``source_url`` the snippet file's in the repository, linked beside the cell;
    ``words`` the language's chart text."""
    out = [code_block(embedded), ""]
    body = [source_link(embedded, source_url, lang)]
    if embedded.problem:
        body.append(problem_box(embedded.problem, lang))
    if embedded.capture is not None:
        stale = " tcg-stale" if embedded.problem else ""
        body.append(f'<div class="tcg-output{stale}" data-search-exclude data-cell="{html.escape(embedded.snippet.path)}#{embedded.cell.name}">'
                    f'{outputs(embedded, lang, figure_url, words)}{provenance(embedded, lang)}</div>')
    out.append("".join(body))
    return "\n".join(out) + "\n"


def not_found_script(site_url: str, languages: list[str]) -> str:
    """For the root 404 page (a static host serves one for every path): when the missing path
    lies in a language's folder, show that language's 404 page instead."""
    return ("<script>(function () {"
            f"var base = new URL({json.dumps(site_url)}, location.href).pathname;"
            f"var langs = {json.dumps(languages)};"
            "var rest = location.pathname.indexOf(base) === 0 ? location.pathname.slice(base.length) : '';"
            "var lang = langs.find(function (l) { return rest === l || rest.indexOf(l + '/') === 0; });"
            "if (!lang || document.documentElement.lang === lang) return;"
            "fetch(base + lang + '/404.html').then(function (r) { return r.ok ? r.text() : null; })"
            ".then(function (html) { if (html) { document.open(); document.write(html); document.close(); } });"
            "})();</script>")


def notice(text: str, kind: str = "info", link: tuple[str, str] | None = None) -> str:
    """A Material admonition (raw HTML, so it works in any page), with an optional (href, words) link."""
    more = f' <a href="{html.escape(link[0])}">{html.escape(link[1])}</a>' if link else ""
    return f'<div class="admonition {kind} tcg-notice" data-search-exclude><p>{html.escape(text)}{more}</p></div>\n\n'


def english_original(url: str, lang: str) -> str:
    """A quiet line on an up-to-date translation that links its English original."""
    return (f'<p class="tcg-english-original" data-search-exclude>{html.escape(label(lang, "english_original"))} '
            f'<a href="{html.escape(url)}" hreflang="en" lang="en">{html.escape(label(lang, "english_link"))}</a></p>\n\n')


def not_found_body(page: str, lang: str, home: str) -> str:
    """The theme's English 404 heading replaced by the page's language, with a link home."""
    heading = (f'<h1>{html.escape(label(lang, "not_found"))}</h1>'
               f'<p><a href="{html.escape(home)}">{html.escape(label(lang, "not_found_home"))}</a></p>')
    return page.replace("<h1>404 - Not found</h1>", heading, 1)


def status_table(rows, languages: list[str], lang: str, titles: dict[str, str] | None = None,
                 url=lambda language, page: "") -> str:
    """The translators' table: one row per English page (its title, linked to each language's page),
    one column per language (its own name, linked to its home)."""
    titles = titles or {}
    states = {"up to date": ("up to date", "tcg-ok"), "outdated": ("outdated_state", "tcg-outdated"),
              "untranslated": ("untranslated_state", "tcg-outdated"), "missing": ("missing", "tcg-missing")}
    by_page: dict[str, dict] = {}
    for row in rows:
        by_page.setdefault(row.page, {})[row.lang] = row

    def link(href: str, text: str, language: str, written_in: str | None = None) -> str:
        """A link to a page in ``language``, its text in ``written_in`` (the page's own, if None)."""
        lang_attr = f' lang="{written_in}"' if written_in else ""
        return f'<a href="{html.escape(href)}" hreflang="{language}"{lang_attr}>{html.escape(text)}</a>'

    head = "".join(f"<th>{link(url(l, ''), label(l, 'language_name'), l, l)}</th>" for l in languages)
    body = []
    for page, cells in by_page.items():
        tds = []
        for l in languages:
            row = cells[l]
            word, css = states[row.state]
            changes = row.changes if row.state == "outdated" else ()  # the sections; not English's share of a page
            detail = "".join(f"<li>{html.escape(c)}</li>" for c in changes)
            text = html.escape(label(lang, word)) if row.state == "missing" else link(url(l, page), label(lang, word), l)
            tds.append(f'<td class="{css}">{text}{"<ul>" + detail + "</ul>" if detail else ""}</td>')
        title = link(url(SOURCE, page), titles.get(page, page), SOURCE, SOURCE)
        body.append(f"<tr><td>{title}</td>{''.join(tds)}</tr>")
    return (f'<table class="tcg-status"><thead><tr><th>{html.escape(label(lang, "status_page"))}</th>{head}</tr>'
            f'</thead><tbody>{"".join(body)}</tbody></table>\n')
