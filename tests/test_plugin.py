"""The MkDocs plugin as a thin adapter: its own options (on and off), the Markdown extensions it needs,
its hooks in MkDocs' order with each explicit priority explained, and the work it hands to site/."""

import subprocess
import sys
from pathlib import Path

import pytest

EXTENSIONS = "markdown_extensions:\n  - pymdownx.highlight\n  - pymdownx.superfences\n"


def site(tmp_path: Path, extensions: str, plugin: str) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\n{extensions}plugins:\n{plugin}")
    (tmp_path / "docs" / "index.md").write_text("# Page\n\n[[cell a.py#c]]\n")
    (tmp_path / "snippets" / "a.py").write_text("# %% c\nprint(1)\n")
    return tmp_path


def build(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(root / "out")],
                          capture_output=True, text=True, cwd=root, timeout=300)


@pytest.mark.parametrize("missing", ["pymdownx.highlight", "pymdownx.superfences"])
def test_a_missing_markdown_extension_stops_the_build_naming_it(tmp_path, missing):
    extensions = EXTENSIONS.replace(f"  - {missing}\n", "")
    result = build(site(tmp_path, extensions, "  - tcguide\n"))
    assert result.returncode != 0
    assert f"lacks Markdown extensions the plugin needs: {missing}" in result.stderr
    assert "add them under markdown_extensions" in result.stderr and "Traceback" not in result.stderr


def test_a_disabled_plugin_leaves_the_pages_as_written(tmp_path):
    result = build(site(tmp_path, "", "  - tcguide:\n      enabled: false\n"))
    assert result.returncode == 0, result.stderr
    assert "[[cell a.py#c]]" in (tmp_path / "out" / "index.html").read_text()


# The order MkDocs calls its events in (mkdocs/commands/build.py and serve.py): a build's global
# events, per page its Markdown and content, the theme's templates, per page its output, the build's
# end; then serving, and the end of the process.
CALL_ORDER = ["startup", "config", "pre_build", "files", "nav", "pre_page", "page_read_source", "page_markdown",
              "page_content", "env", "pre_template", "template_context", "post_template", "page_context", "post_page",
              "post_build", "build_error", "serve", "shutdown"]


def _hooks() -> list[tuple[str, int, list[str]]]:
    """The plugin's hooks in the order its class defines them: (event, line, the source lines of
    its decorators and of the comment lines right above them)."""
    import ast

    from tcguide.site import plugin

    source = Path(plugin.__file__).read_text(encoding="utf-8")
    lines = source.splitlines()
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "CellsPlugin")
    found = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name.lstrip("_").startswith("on_"):
            event = node.name.lstrip("_")[3:]
            # the parts of a CombinedEvent (_on_files_dates, _on_post_build_all): the event their name starts with
            event = max((e for e in CALL_ORDER if event == e or event.startswith(e + "_")), key=len, default=event)
            first = min([d.lineno for d in node.decorator_list] or [node.lineno])
            above = first - 1
            while above >= 1 and lines[above - 1].strip().startswith("#"):
                above -= 1
            found.append((event, node.lineno, lines[above: node.lineno - 1]))
        elif isinstance(node, ast.Assign) and [getattr(t, "id", "")[:3] for t in node.targets] == ["on_"]:
            found.append((node.targets[0].id[3:], node.lineno, []))  # a CombinedEvent
    return found


def test_the_plugins_hooks_are_mkdocs_events_in_the_order_mkdocs_calls_them():
    import mkdocs.plugins

    assert set(CALL_ORDER) == set(mkdocs.plugins.EVENTS)  # a new MkDocs event needs its place here
    hooks = _hooks()
    assert {event for event, _, _ in hooks} <= set(mkdocs.plugins.EVENTS)
    assert {"config", "files", "page_markdown", "post_page", "post_build"} <= {event for event, _, _ in hooks}
    events = [event for event, _, _ in hooks]
    assert events == sorted(events, key=CALL_ORDER.index), f"hooks out of MkDocs' order: {events}"


def test_each_explicit_priority_of_the_plugin_says_why():
    explicit = [(event, line, decorated) for event, line, decorated in _hooks()
                if any("event_priority(" in text for text in decorated)]
    assert len(explicit) >= 4  # on_config, on_files and both parts of on_post_build
    silent = [f"on_{event} (line {line})" for event, line, decorated in explicit
              if not any("#" in text for text in decorated)]
    assert not silent, f"an explicit priority without a comment saying why: {silent}"


def test_the_figures_of_a_build_are_written_as_files_of_the_site(tmp_path):
    from tcguide.site import figures

    figures.write(tmp_path, {"assets/figures/a.svg": "<svg/>", "assets/figures/b.png": b"\x89PNG\r\n\x1a\n"})
    assert (tmp_path / "assets" / "figures" / "a.svg").read_text(encoding="utf-8") == "<svg/>"
    assert (tmp_path / "assets" / "figures" / "b.png").read_bytes() == b"\x89PNG\r\n\x1a\n"


def test_an_unknown_api_name_is_a_warning_naming_the_pages_line():
    from tcguide.site import api_links

    names = api_links.ApiNames("https://docs.example/", {"torch.compile": "generated/torch.compile.html"}, {})
    html, warnings = api_links.link_page("<p><code>torch.compile</code> and <code>torch.nope()</code> and "
                                         "<code>torch.nope()</code></p>", names, "# T\n\nUse `torch.nope()`.\n",
                                         "docs/en/t.md", "pytorch-api.toml")
    assert 'href="https://docs.example/generated/torch.compile.html"' in html
    assert warnings == ["docs/en/t.md:3: `torch.nope()` reads as a torch API name that pytorch-api.toml does not "
                        "list — add it there, with its page of PyTorch's reference or as unlinked"]


def test_a_permalinks_title_is_in_the_pages_language():
    from tcguide.core.labels import label
    from tcguide.site import pagehead

    page = '<h2 id="a">A<a class="headerlink" href="#a" title="Permanent link">&para;</a></h2>'
    assert 'title="고정 링크"' in pagehead.permalink_titles(page, label("ko", "permalink"))
    assert pagehead.permalink_titles(page, 'say "hi"').count('title="say &quot;hi&quot;"') == 1
