"""Tooling of the torch.compile guide.

Capture side (stdlib only, runs on the GPU machine): ``snippet``, ``store``,
``normalize``, ``provenance``, ``runner``, ``capture``, ``freshness``.
Site side (needs MkDocs): ``render``, ``directive``, ``plugin``.
The capture side never imports the site side.
"""

from tcguide.errors import GuideError

__all__ = ["GuideError"]
