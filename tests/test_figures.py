"""Figures served as files keep their drawing and lose anything that could run or call out."""

import pytest

from tcguide.site.figures import safe_svg

HOSTILE = """<?xml version="1.0" encoding="utf-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)" viewBox="0 0 10 10">
 <metadata><title>kept out</title></metadata>
 <style>@import url(https://elsewhere.example/x.css); *{stroke:red}</style>
 <defs><path id="p" d="M 0 0 L 1 1"/></defs>
 <script>alert(2)</script>
 <foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><script>alert(3)</script></body></foreignObject>
 <g onclick="alert(4)" style="fill: url(https://elsewhere.example/y)"><use xlink:href="#p"/></g>
 <a xlink:href="javascript:alert(5)"><text>click</text></a>
 <image xlink:href="https://elsewhere.example/z.png"/>
 <image xlink:href="data:image/png;base64,iVBORw0KGgo="/>
 <text x="1" y="2">resnet18 5.74 ms</text>
</svg>"""


def test_only_drawing_is_kept():
    clean = safe_svg(HOSTILE)
    for bad in ("alert", "script", "foreignObject", "onload", "onclick", "elsewhere.example", "javascript:",
                "@import", "metadata"):
        assert bad not in clean, bad
    for good in ('<use xlink:href="#p"', 'd="M 0 0 L 1 1"', "resnet18 5.74 ms", "data:image/png;base64,iVBORw0KGgo="):
        assert good in clean, good


def test_entities_are_refused():
    with pytest.raises(ValueError):
        safe_svg('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>')
