"""Tooling of the torch.compile guide.

Capture side, stdlib only (it runs on the GPU machine, which has no MkDocs):
``snippet`` (parse snippet files), ``runner`` (run one file, cell by cell, in a child
process), ``terminal`` (what a terminal would show, within caps), ``normalize`` (machine
paths out), ``processes`` (find and end what a file started), ``sandbox`` (scratch folder,
environment allow-list, checkout check), ``capture`` (decide, schedule and store),
``shards`` (machine classes, balanced shards), ``merge`` (several runners' outputs into
one checkout), ``store`` (the output format, validated and digested), ``freshness`` (when
an output still belongs to its snippet), ``provenance``, ``directive`` (find directives in
pages), ``catalog`` and ``check``, ``cli``.
Site side: ``render``, ``labels``, ``plugin`` (MkDocs), ``notebook_pages`` (chapter notebooks
as mkdocs-jupyter pages) and ``i18n`` (translation status; needs PyYAML). The capture side never
imports the site side; a test holds it to that. Chapters as notebooks: ``notebooks`` (made from a
page and its cells) and ``notebook_export`` (the CLI's), stdlib only like the capture side, and
``execution`` (runs one; needs nbclient and ipykernel).
"""

from tcguide.core.errors import GuideError

__all__ = ["GuideError"]
