"""Tooling of the torch.compile guide.

Capture side, stdlib only (it runs on the GPU machine, which has no MkDocs):
``snippet`` (parse snippet files), ``runner`` (run one file, cell by cell, in a child
process), ``capture`` (decide, schedule and store), ``store`` (the output format),
``normalize``, ``provenance``, ``directive`` (find directives in pages), ``catalog`` and
``check`` (freshness), ``cli``.
Site side: ``render``, ``labels``, ``plugin`` (MkDocs) and ``i18n`` (translation status;
needs PyYAML). The capture side never imports the site side; a test holds it to that.
"""

from tcguide.errors import GuideError

__all__ = ["GuideError"]
