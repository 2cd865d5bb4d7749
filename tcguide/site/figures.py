"""Figures a snippet drew, made safe to serve as files of the site.

A figure is shown with ``<img>``, where SVG runs no script; but a reader can open the
file itself, and then it is a document of the site's own origin. So only SVG's drawing
vocabulary is kept: the elements below, no event attributes, links only to the
document's own parts (or to inlined PNG images), style sheets without imports or
outside URLs, and no metadata. Stdlib only.
"""

from __future__ import annotations

import functools
import hashlib
import re
import xml.etree.ElementTree as ET
from pathlib import Path

SVG, XLINK = "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"
DRAWING = {"svg", "g", "defs", "use", "symbol", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon",
           "text", "tspan", "clipPath", "mask", "pattern", "linearGradient", "radialGradient", "stop", "image",
           "style", "title", "desc"}
LOCAL_LINK = re.compile(r"^(#[\w.:-]+|data:image/png;base64,[A-Za-z0-9+/=\s]+)$")
OUTSIDE = re.compile(r"@import|url\(\s*['\"]?(?!#)", re.I)


FOLDER = "assets/figures"


def file_name(content: bytes, mime: str) -> str:
    """The site path of a figure served as ``content``, named by it: a chart that a chapter page, its
    notebook page and every language show is one file, downloaded once."""
    return f"{FOLDER}/{hashlib.sha256(content).hexdigest()[:16]}.{'png' if mime == 'image/png' else 'svg'}"


def _local(tag: str) -> tuple[str, str]:
    namespace, _, name = tag.rpartition("}")
    return namespace.lstrip("{"), name


def _clean(element: ET.Element) -> None:
    for child in list(element):
        namespace, name = _local(child.tag)
        if namespace != SVG or name not in DRAWING:
            element.remove(child)
            continue
        for attribute in list(child.attrib):
            value = child.attrib[attribute]
            _, local = _local(attribute)
            if local.lower().startswith("on") or (local == "href" and not LOCAL_LINK.match(value)) \
                    or OUTSIDE.search(value):
                del child.attrib[attribute]
        if name == "style" and child.text and OUTSIDE.search(child.text):
            child.text = ""
        _clean(child)


@functools.lru_cache(maxsize=128)  # by the figure itself: every language's page shows the same figures
def safe_svg(text: str) -> str:
    """The figure with everything but drawing taken out (see the module docstring)."""
    if "<!ENTITY" in text:
        raise ValueError("an SVG figure declares entities")
    ET.register_namespace("", SVG)
    ET.register_namespace("xlink", XLINK)
    root = ET.fromstring(text)
    if _local(root.tag) != (SVG, "svg"):
        raise ValueError("not an SVG document")
    for attribute in [a for a in root.attrib if _local(a)[1].lower().startswith("on")]:
        del root.attrib[attribute]
    _clean(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write(site_dir: Path, found: dict[str, str | bytes]) -> None:
    """The figures the pages of a build show, as files of the site (a site path -> the SVG text or PNG bytes)."""
    for name, content in found.items():
        target = site_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
