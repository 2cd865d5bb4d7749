"""Every chapter as a Jupyter notebook, made from its page and the cells the page embeds.

A chapter (a page that embeds cells) becomes one notebook per language, nbformat 4.5 written
as plain JSON (stdlib only: notebooks are made on GPU machines that have no Jupyter):

- the page's prose as Markdown cells, split at headings: glued figures as the plain number
  the page's language writes, admonitions as quotes, links to other pages as links to the site;
- each embedded cell as a code cell holding its snippet file's code, its captured outputs as
  nbformat outputs (streams, the error, figures; a warning as the stderr line Python prints)
  and its provenance (file, cell, line, captured_at, environment) in ``metadata.tcguide``;
- what "Run all" needs around them, each made from the snippet files, never typed: the cells
  of a file that come before a shown one and that the page does not show (collapsed, tagged
  ``setup``), the helper modules a file imports (``%%writefile``, once for the notebook where
  files import the same module), and, when the page goes back
  to a file after another one, that file's names kept and restored, since each file was
  written to run in a process of its own;
- under each cell's captured outputs, where and when they were captured (a short visible line,
  as on the chapter page), so that Jupyter and Colab show it too;
- tags for whoever runs it: ``raises-exception`` (nbclient's convention) on a cell that
  declares ``raises=``, ``skip-execution`` (with a note) on the cells of a file launched
  with torchrun, one process per GPU;
- what it needs to run, after its title (``needs``): a CUDA GPU and how to pick one in Colab, the
  torch its outputs were captured with, a first code cell that installs the packages its code
  imports where they are missing, and Colab's metadata asking for a GPU.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from tcguide.core import claims, directive, glue, settings, timings
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError
from tcguide.core.labels import label
from tcguide.core.environment import Environment
from tcguide.core.discovery import helper_target
from tcguide.notebooks import needs

NBFORMAT, NBFORMAT_MINOR = 4, 5
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
ADMONITION = re.compile(r"""^(?:!!!|\?\?\?\+?)\s+(?P<kind>[\w-]+)(?:\s+"(?P<title>[^"]*)")?\s*$""")
PAGE_LINK = re.compile(r"\]\((?P<target>(?![a-z][a-z0-9+.-]*:|/|#)[^)\s#]+\.md)(?P<anchor>#[^)\s]*)?\)")
# A heading's explicit id ("## Title { #id }", attr_list): the site's business; Jupyter would show it as text.
HEADING_ID = re.compile(r"\s*\{\s*#[\w-]+\s*\}\s*$")
KEPT = "_tcguide_names"  # where a notebook keeps the names of a file that goes on later


def needs_cuda(root: Path) -> dict[str, str]:
    """The cells that cannot run without CUDA, with why: ``[tool.tcguide.needs-cuda]`` in pyproject.toml
    maps "topic/file.py" (all its cells) or "topic/file.py#cell" to a reason."""
    return settings.load(root).needs_cuda


def is_chapter(text: str) -> bool:
    """A page that embeds at least one cell."""
    found, _ = directive.find(directive.body(text)[0], "")
    return any(d.kind == "cell" for d in found)


def url_part(rel: str) -> str:
    """The URL of a page relative to its language's root: 'a/b.md' -> 'a/b/', 'a/index.md' -> 'a/'."""
    stem = posixpath.splitext(rel)[0]
    if posixpath.basename(stem) in ("index", "README"):
        stem = posixpath.dirname(stem)
    return f"{stem}/" if stem else ""


@dataclass
class _Notebook:
    """A notebook being made: its cells, and what is known about the snippet files so far."""

    page: str
    lang: str
    cells: list = field(default_factory=list)
    ids: set = field(default_factory=set)
    ran: dict = field(default_factory=dict)  # snippet file -> names of its cells in the notebook
    kept: set = field(default_factory=set)  # files whose names were kept for later
    current: str | None = None  # the snippet file of the last code cell
    captures: dict = field(default_factory=dict)  # snippet path -> Capture (those with an output)
    sources: dict = field(default_factory=dict)  # snippet path -> the code of the file and its helpers
    problems: list = field(default_factory=list)
    cuda: dict = field(default_factory=dict)  # "file.py" or "file.py#cell" -> why it needs CUDA
    written: dict = field(default_factory=dict)  # a helper's path, as "Run all" writes it -> the text written

    def _id(self, wanted: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_-]+", "-", wanted).strip("-")[:56] or "cell"
        name, n = base, 1
        while name in self.ids:
            n += 1
            name = f"{base}-{n}"
        self.ids.add(name)
        return name

    def markdown(self, text: str, name: str = "text", at: int | None = None) -> None:
        if text.strip():
            self._add({"cell_type": "markdown", "id": self._id(name), "metadata": {}, "source": text.strip("\n")}, at)

    def code(self, source: str, name: str, tags: list[str], meta: dict, outputs: list | None = None,
             hidden: bool = False, at: int | None = None) -> None:
        metadata: dict = {"tags": tags} if tags else {}
        if hidden:
            metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
        metadata["tcguide"] = meta
        self._add({"cell_type": "code", "id": self._id(name), "metadata": metadata, "execution_count": None,
                   "source": source.rstrip("\n"), "outputs": outputs or []}, at)

    def _add(self, cell: dict, at: int | None) -> None:
        """A cell at the end, or at index ``at``."""
        self.cells.insert(len(self.cells) if at is None else at, cell)


def build(page: str, rel: str, text: str, lang: str, catalog: Catalog, lang_root: str,
          cuda: dict[str, str] | None = None,
          colab_gpu: str = settings.DEFAULT_COLAB_GPU) -> tuple[dict, list[GuideError]]:
    """The notebook of a page, and what is wrong on the way (each also noted in the notebook).

    ``page`` names the page in messages (docs/ru/x.md), ``rel`` is its path in its language's
    folder (x.md), ``lang_root`` the site's URL of that language's home (https://.../ru/),
    ``cuda`` the cells that need CUDA (``needs_cuda``), ``colab_gpu`` the GPU type it asks Colab for."""
    body, first = directive.body(text)
    body = claims.substitute(body, {}, lang, start=first, as_text=True)  # the words stay, the marks go
    body, problems = glue.substitute(body, catalog, page, lang, start=first, as_text=True)
    found, errors = directive.find(body, page, start=first)
    nb = _Notebook(page, lang, problems=problems + errors, cuda=cuda or {})
    at = {d.line: d for d in found}
    files = [d.file for d in found if d.kind == "cell"]  # what comes after each cell: files[index + 1:]
    index = -1
    title, prose, intro_done = "", [], False
    for number, line, code in directive.lines_with_code_flag(body, first):
        heading = None if code else directive.HEADING.match(line)
        if heading and len(heading["hashes"]) == 1 and not title:
            title = HEADING_ID.sub("", heading["text"])
        if number in at or heading:
            _prose(nb, prose, rel, lang_root)
            prose = []
        if number in at:
            d = at[number]
            index += d.kind == "cell"
            _directive(nb, d, catalog, files[index + 1:])
            continue
        prose.append(line)
        if heading and len(heading["hashes"]) == 1 and not intro_done:
            _prose(nb, prose, rel, lang_root)  # the title, then what this notebook is
            prose, intro_done = [], True
            # the chapter's address as a link of its own: a bare one would take the CJK text after it
            # in, and an autolink (<…>) needs a scheme, which a site served anywhere has not
            address = f"{lang_root}{url_part(rel)}"
            nb.markdown("*" + label(lang, "nb_intro").format(title=title, url=f"[{address}]({address})",
                                                             where="{where}") + "*", "about")
    _prose(nb, prose, rel, lang_root)
    environments = [c.environment for c in nb.captures.values()]
    where = " / ".join(sorted({Environment.of(e).describe() for e in environments})) or "—"
    for cell in nb.cells:
        if cell["id"] == "about":
            cell["source"] = cell["source"].replace("{where}", where)
    _needs(nb, environments, colab_gpu)
    meta = {"page": page, "language": lang, "title": title,
            "snippets": {path: {"captured_at": c.captured_at, "environment": c.environment}
                         for path, c in nb.captures.items()}}
    if environments and all(e == environments[0] for e in environments):
        meta["environment"] = environments[0]
    notebook = {"nbformat": NBFORMAT, "nbformat_minor": NBFORMAT_MINOR, "cells": nb.cells,
                "metadata": {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}, "tcguide": meta,
                             **needs.colab_metadata(colab_gpu)}}
    return notebook, nb.problems


def _needs(nb: _Notebook, environments: list[dict], colab_gpu: str) -> None:
    """What the notebook needs, and the cell that installs what is missing, after its title and what it is."""
    wanted = needs.packages((nb.sources[path], capture) for path, capture in nb.captures.items())
    at = next((i + 1 for i, c in enumerate(nb.cells) if c["id"] == "about"), 0)
    nb.markdown(needs.describe(environments, nb.lang, colab_gpu, wanted), "needs", at=at)
    if wanted:
        nb.code(needs.install_cell(wanted), "install", ["install"], {"install": wanted}, at=at + 1)


def dumps(notebook: dict, *, compact: bool = False) -> str:
    """A notebook as Jupyter writes it: indented JSON, one key order, non-ASCII kept. ``compact``: the
    same without the indentation and the spaces after separators (the site's downloads: Jupyter reads
    it and writes it indented again on its first save): 7 % fewer bytes over the guide's downloads."""
    if compact:
        return json.dumps(notebook, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# ---- prose ---------------------------------------------------------------------------------

def _prose(nb: _Notebook, lines: list[str], rel: str, lang_root: str) -> None:
    out, quoting = [], False
    for number, line, code in directive.lines_with_code_flag("\n".join(lines)):
        admonition = None if code else ADMONITION.match(line)
        if admonition:
            title = admonition["title"] or admonition["kind"].capitalize()
            out += [f"> **{title}**", ">"]
            quoting = True
            continue
        if quoting:
            if line.startswith("    ") or not line.strip():
                out.append(("> " + line[4:]).rstrip())
                continue
            quoting = False
        if not code and directive.HEADING.match(line):
            line = HEADING_ID.sub("", line)
        out.append(line if code else PAGE_LINK.sub(lambda m: _link(m, rel, lang_root), line))
    while out and out[-1] in (">", ""):
        out.pop()
    nb.markdown("\n".join(out))


def _link(match: re.Match, rel: str, lang_root: str) -> str:
    target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), match["target"]))
    return f"]({lang_root}{url_part(target)}{match['anchor'] or ''})"


# ---- cells ---------------------------------------------------------------------------------

def _directive(nb: _Notebook, d: directive.Directive, catalog: Catalog, later: list[str]) -> None:
    if d.kind == "capture-times":
        try:
            nb.markdown(timings.capture_times(catalog.captures_under(d.file), nb.lang), "capture-times")
        except GuideError as exc:
            _problem(nb, exc.inside(nb.page, d.line, d.text))
        return
    if d.kind != "cell":
        return
    try:
        snippet = catalog.snippet(d.file)
        shown = catalog.embed(d.file, d.cell).cell
    except GuideError as exc:
        _problem(nb, exc.inside(nb.page, d.line, d.text))
        return
    previous = nb.current
    if previous and previous != d.file and previous in later:  # the page comes back to it
        _names(nb, previous, catalog.snippet(previous).path, keep=True)
    if d.file in nb.kept and previous != d.file:
        _names(nb, d.file, snippet.path, keep=False)
    nb.current = d.file
    if d.file not in nb.ran:
        _start(nb, d.file, snippet, catalog)
    for cell in snippet.cells:
        if cell.name == shown.name:
            break
        if cell.name not in nb.ran[d.file]:
            _cell(nb, d.file, snippet, cell, catalog, shown=False)
    _cell(nb, d.file, snippet, shown, catalog, shown=True)


def _start(nb: _Notebook, name: str, snippet, catalog: Catalog) -> None:
    """The first cell of a snippet file in the notebook: its helpers, and a note if it runs under torchrun."""
    nb.ran[name] = set()
    capture, _ = catalog.capture(name)
    if capture is not None:
        nb.captures[snippet.path] = capture
    nb.sources[snippet.path] = "\n".join([c.code for c in snippet.cells]
                                         + [path.read_text(encoding="utf-8") for path, _ in snippet.helpers.values()])
    req = snippet.requirements
    if req.launcher == "torchrun":
        nb.markdown("> " + label(nb.lang, "nb_multi_gpu").format(file=snippet.path, gpus=req.gpus), "multi-gpu")
    for shown_path, (path, _) in sorted(snippet.helpers.items()):
        relative = helper_target(shown_path, snippet.path)
        source = f"%%writefile {relative}\n" + path.read_text(encoding="utf-8")
        if nb.written.get(relative) == source:
            continue  # an earlier file's cell wrote the same module where import finds it: once is enough
        if req.launcher != "torchrun":  # a torchrun file's cells are not run: its helpers are not written
            nb.written[relative] = source
        tags = ["setup", "helper"] + (["skip-execution"] if req.launcher == "torchrun" else [])
        nb.code(source, f"helper-{relative}", tags, {"snippet": snippet.path, "helper": shown_path}, hidden=True)


def _names(nb: _Notebook, name: str, path: str, keep: bool) -> None:
    """Keep a file's names before other files run, or bring them back when the page returns to it."""
    if keep:
        nb.kept.add(name)
        words = label(nb.lang, "nb_keep_names").format(file=path)
        source = (f"# {words}\n{KEPT} = globals().setdefault({KEPT!r}, {{}})\n"
                  f"{KEPT}[{name!r}] = {{k: v for k, v in globals().items() if not k.startswith('_')}}")
    else:
        nb.kept.discard(name)
        words = label(nb.lang, "nb_restore_names").format(file=path)
        source = f"# {words}\nglobals().update({KEPT}.pop({name!r}))"
    nb.code(source, f"{'keep' if keep else 'restore'}-{posixpath.basename(name)}", ["setup", "namespace"],
            {"snippet": path, "namespace": "keep" if keep else "restore"}, hidden=True)


def _cell(nb: _Notebook, name: str, snippet, cell, catalog: Catalog, shown: bool) -> None:
    nb.ran[name].add(cell.name)
    capture, _ = catalog.capture(name)
    record = capture.cell(cell.name) if capture else None
    tags = [] if shown else ["setup"]
    if cell.raises:
        tags.append("raises-exception")
    if snippet.requirements.launcher == "torchrun":
        tags += ["skip-execution", "multi-gpu"]
    reason = nb.cuda.get(f"{name}#{cell.name}") or nb.cuda.get(name)
    if reason:
        tags.append("needs-cuda")
    meta = {"snippet": snippet.path, "cell": cell.name, "line": cell.line, "shown": shown,
            "captured_at": capture.captured_at if capture else None,
            "environment": capture.environment if capture else None}
    if record is not None:
        meta["wall_time_s"] = record.wall_time_s
    if cell.raises:
        meta["raises"] = cell.raises
    if reason:
        meta["needs_cuda"] = reason
    outputs = [_output(o) for o in record.outputs] + [_provenance(capture, record, nb.lang)] if record else []
    nb.code(cell.code, f"{posixpath.splitext(posixpath.basename(name))[0]}-{cell.name}", tags, meta, outputs,
            hidden=not shown)


def _output(output: dict) -> dict:
    """A captured output as nbformat's: the same shape, less what nbformat has no field for."""
    kind = output["output_type"]
    if kind == "stream":
        return {"output_type": "stream", "name": output["name"], "text": output["text"]}
    if kind == "warning":  # what Python's warnings module writes to stderr
        text = f'{output["filename"]}:{output["lineno"]}: {output["category"]}: {output["message"]}\n'
        return {"output_type": "stream", "name": "stderr", "text": text}
    if kind == "error":
        return {"output_type": "error", "ename": output["ename"], "evalue": output["evalue"],
                "traceback": output["traceback"].rstrip("\n").split("\n")}
    return {"output_type": "display_data", "data": dict(output["data"]), "metadata": {}}


def _provenance(capture, record, lang: str) -> dict:
    """Where and when a cell's outputs were captured, as an output of its own under them: shown by the
    site, Jupyter and Colab alike, and gone with the captured outputs when the reader runs the cell."""
    line = label(lang, "nb_provenance").format(line=timings.provenance(capture, record, lang)[0])
    shown = re.sub(r"([\\`*_\[\]<>])", r"\\\1", line)  # Markdown's own characters stay text
    return {"output_type": "display_data", "data": {"text/markdown": f"*{shown}*", "text/plain": line},
            "metadata": {"tcguide": {"provenance": True}}}


def _problem(nb: _Notebook, problem: GuideError) -> None:
    nb.problems.append(problem)
    nb.markdown(f"> **{label(nb.lang, 'problem')}** {problem}", "problem")
