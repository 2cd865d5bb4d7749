"""The figures a cell leaves open in matplotlib: each as SVG (reproducible: no date, a fixed hash
salt), with a text description of what the chart shows (a page's alt text, a notebook's text form),
or, over the cap, a line saying it was not stored. matplotlib is imported only where the snippet
imported pyplot itself."""

from __future__ import annotations

import io
import sys

from tcguide.capture import terminal
from tcguide.capture.tidy import Tidy


def describe(figure) -> str:
    """What a chart shows, in words (a page's alt text): its title, and per panel its axis label
    and each bar's category and value, or each named line. Empty if nothing can be said."""
    parts = [figure._suptitle.get_text()] if getattr(figure, "_suptitle", None) else []
    for ax in figure.axes:
        values = []
        for container in ax.containers:
            horizontal = getattr(container, "orientation", "vertical") == "horizontal"
            ticks = dict(zip((ax.get_yticks() if horizontal else ax.get_xticks()),
                             (t.get_text() for t in (ax.get_yticklabels() if horizontal else ax.get_xticklabels()))))
            for patch in getattr(container, "patches", ()):
                where = patch.get_y() + patch.get_height() / 2 if horizontal else patch.get_x() + patch.get_width() / 2
                name = min(ticks.items(), key=lambda item: abs(item[0] - where))[1] if ticks else ""
                value = patch.get_width() if horizontal else patch.get_height()
                values.append(f"{name} {value:.3g}".strip())
        values += [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
        what = ax.get_title() or (ax.get_xlabel() if ax.containers and all(
            getattr(c, "orientation", "") == "horizontal" for c in ax.containers) else ax.get_ylabel())
        if values:
            parts.append(f"{what}: {', '.join(values)}" if what else ", ".join(values))
    return ". ".join(p.strip() for p in parts if p.strip())


def collect(tidy: Tidy) -> list[dict]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    import matplotlib
    matplotlib.rcParams["svg.hashsalt"] = "tcguide"
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: a page translates it, a reader selects it
    found = []
    for number in pyplot.get_fignums():
        buffer = io.StringIO()
        pyplot.figure(number).savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
        svg = buffer.getvalue()
        if len(svg.encode("utf-8")) > terminal.FIGURE_BYTES:
            found.append({"output_type": "stream", "name": "stdout",
                          "text": f"[figure {number} not stored: {len(svg):,} bytes of SVG, over the cap of "
                                  f"{terminal.FIGURE_BYTES:,} cut by capture]\n"})
        else:
            data = {"image/svg+xml": svg}
            try:
                description = tidy(describe(pyplot.figure(number)))
            except Exception:  # noqa: BLE001 - a chart the description doesn't understand keeps its image
                description = ""
            if description:
                data["text/plain"] = description  # as a notebook stores it: the figure's text form
            found.append({"output_type": "display_data", "data": data})
    pyplot.close("all")
    return found
