"""MkDocs plugin: replace each ``[[cell FILE.py#name]]`` line with the cell and its captured output.

A directive that names a missing file or cell, or whose output is missing, stale,
corrupt or holds an undeclared exception, is logged as a warning naming the page,
the line and what to do (so ``mkdocs build --strict`` fails), and is marked on the
page (so ``mkdocs serve`` still previews it).
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config import base, config_options as c
from mkdocs.plugins import BasePlugin

from tcguide import directive, render
from tcguide.catalog import Catalog
from tcguide.errors import GuideError

log = logging.getLogger("mkdocs.plugins.tcguide")


class CellsConfig(base.Config):
    snippets_dir = c.Type(str, default="snippets")
    """Folder of the snippet files, relative to mkdocs.yml."""


class CellsPlugin(BasePlugin[CellsConfig]):
    def on_config(self, config):
        self.project_root = Path(config.config_file_path).resolve().parent
        self.catalog = Catalog(self.project_root, self.config.snippets_dir)  # fresh on every (re)build
        return config

    def on_serve(self, server, config, builder):
        server.watch(str(self.project_root / self.config.snippets_dir))
        return server

    def on_page_markdown(self, markdown, page, config, files):
        page_path = self._page_path(page)
        lang = config.theme.get("language") or "en"
        found, errors = directive.find(markdown, page_path)
        for error in errors:
            log.warning(str(error))
        rendered: dict[int, str] = {}
        for d in found:
            try:
                embedded = self.catalog.embed(d.file, d.cell)
            except GuideError as exc:
                problem = GuideError(page_path, d.line, f"[[cell {d.key}]]: {exc}")
                log.warning(str(problem))
                rendered[d.line] = render.problem_box(problem, lang)
                continue
            if embedded.problem:
                log.warning(f"{page_path}:{d.line}: [[cell {d.key}]]: {embedded.problem}")
            rendered[d.line] = render.cell(embedded, lang)
        for error in errors:
            rendered[error.line] = render.problem_box(error, lang)
        return directive.replace(markdown, rendered) if rendered else markdown

    def _page_path(self, page) -> str:
        path = Path(page.file.abs_src_path)
        try:
            return str(path.relative_to(self.project_root))
        except ValueError:
            return str(path)
