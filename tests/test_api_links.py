"""API names in prose link to PyTorch's reference, from the committed list pytorch-api.toml: what counts as
a name, where links go and where they never go, what the build says of a name the list lacks, and that
every name of the list is one torch has."""

import importlib
import json
import re
import subprocess
import sys
import textwrap
from collections import Counter

import pytest

from tcguide.site import api_links
from tests.helpers import ROOT

LIST = ROOT / "pytorch-api.toml"
NAMES = api_links.ApiNames("https://ref.example/docs/", {
    "torch.compile": "generated/torch.compile.html",
    "torch.compiler.*": "compiler.html",
    "torch._dynamo.config.*": "config.html",
}, {"torch._dynamo.*": "private", "torch.ops.guide.*": "the guide's own"})


@pytest.mark.parametrize("code, name", [
    ("torch.compile", "torch.compile"),
    ("torch.compile(model)", "torch.compile"),
    ("torch._dynamo.explain(fn)(*args)", "torch._dynamo.explain"),
    ("torch._dynamo.config.suppress_errors = True", "torch._dynamo.config.suppress_errors"),
    ("torch.compile works True", None),  # a line of output, not a name
    ("torch.ops.aten.<name>.<overload>", None),  # a pattern
    ("model = torch.compile(model)", None),
    ("torchvision.models", None),
    ("torch", None),
])
def test_what_reads_as_an_api_name(code, name):
    assert api_links.api_name(code) == name


def test_a_name_takes_its_own_entry_else_the_longest_prefix_above_it():
    assert NAMES.lookup("torch.compile") == (True, "https://ref.example/docs/generated/torch.compile.html")
    assert NAMES.lookup("torch.compiler.reset") == (True, "https://ref.example/docs/compiler.html")
    assert NAMES.lookup("torch._dynamo.config.recompile_limit") == (True, "https://ref.example/docs/config.html")
    assert NAMES.lookup("torch._dynamo.explain") == (True, None)  # known, and plain
    assert NAMES.lookup("torch.compiler") == (False, None)  # 'torch.compiler.*' is what is under it
    assert NAMES.lookup("torch.export") == (False, None)


def test_names_in_prose_link_and_code_blocks_headings_links_and_summaries_stay_as_they_are():
    page = textwrap.dedent("""\
        <h2 id="x">About <code>torch.compile</code></h2>
        <p>Call <code>torch.compile(model, mode=&quot;max-autotune&quot;)</code>, then
        <code>torch.compiler.reset()</code>; <code>torch._dynamo.explain</code> stays plain.</p>
        <div class="highlight"><pre><span></span><code>torch.compile(model)
        </code></pre></div>
        <div class="tcg-output"><pre class="tcg-stream"><code>torch.compile works True</code></pre></div>
        <p><a href="elsewhere/"><code>torch.compile</code></a> and <code class="x">torch.compile</code></p>
        <details><summary><code>torch.compile</code></summary><p><code>torch.nope.thing = 1</code></p></details>
        """)
    linked, unknown = api_links.link(page, NAMES)
    compile_url = "https://ref.example/docs/generated/torch.compile.html"
    assert linked.count('class="tcg-api"') == 2
    assert (f'<a class="tcg-api" href="{compile_url}" hreflang="en"><code>torch.compile(model, '
            f'mode=&quot;max-autotune&quot;)</code></a>') in linked
    assert '<a class="tcg-api" href="https://ref.example/docs/compiler.html" hreflang="en"><code>torch.compiler.reset()' in linked
    for untouched in ('<h2 id="x">About <code>torch.compile</code></h2>', "<pre><span></span><code>torch.compile(model)",
                      '<a href="elsewhere/"><code>torch.compile</code></a>', '<code class="x">torch.compile</code>',
                      "<summary><code>torch.compile</code></summary>", "<code>torch._dynamo.explain</code> stays"):
        assert untouched in linked, untouched
    assert unknown == ["torch.nope.thing = 1"]
    assert api_links.link(linked, NAMES)[0] == linked  # linking twice changes nothing


@pytest.mark.parametrize("data, words", [
    ({"base": "http://ref.example/", "pages": {}}, "base must be the reference's https address"),
    ({"base": "https://ref.example/docs/", "pages": {"compile": "a.html"}}, "'compile' is not a torch name"),
    ({"base": "https://ref.example/docs/", "pages": {"torch.a": "https://x.example/a.html"}}, "is not a page of the reference"),
    ({"base": "https://ref.example/docs/", "unlinked": {"torch._a": " "}}, "say why it has no page"),
    ({"base": "https://ref.example/docs/", "pages": {"torch.a": "a.html"}, "unlinked": {"torch.a": "why"}},
     "'torch.a' is both in [pages] and in [unlinked]"),
    ({"base": "https://ref.example/docs/", "links": {}}, "unknown key 'links'"),
])
def test_a_malformed_list_is_refused_with_what_is_wrong(data, words):
    assert any(words in problem for problem in api_links.problems(data)), api_links.problems(data)


def test_the_committed_list_is_well_formed_and_names_the_reference_of_the_captured_torch():
    """The links lead to the reference of the torch version most outputs were captured with: a recapture
    with another version fails here until the list's base (and its pages) follow."""
    names = api_links.load(LIST)
    versions = Counter()
    for output in (ROOT / "snippets").rglob("*.out.json"):
        torch = json.loads(output.read_text(encoding="utf-8"))["environment"].get("torch", "")
        if torch:
            versions[".".join(torch.split("+")[0].split(".")[:2])] += 1
    captured = versions.most_common(1)[0][0]
    assert names.base == f"https://docs.pytorch.org/docs/{captured}/"


def test_a_torch_name_the_list_lacks_fails_the_strict_build_with_page_and_line(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Page\n\nUse `torch.compile(model)`.\n\n```python\ntorch.nope()\n```\n\nThen `torch.nope.helper()`.\n")
    (tmp_path / "names.toml").write_text('base = "https://ref.example/docs/"\n[pages]\n"torch.compile" = "c.html"\n')
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - pymdownx.highlight\n"
                                         "  - pymdownx.superfences\nplugins:\n  - tcguide:\n      api_names: names.toml\n")
    run = lambda *args: subprocess.run([sys.executable, "-m", "mkdocs", "build", *args, "-d", str(tmp_path / "out")],  # noqa: E731
                                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    strict = run("--strict")
    assert strict.returncode != 0
    assert ("docs/index.md:9: `torch.nope.helper()` reads as a torch API name that names.toml does not list"
            in strict.stderr), strict.stderr
    assert "torch.nope()`" not in strict.stderr  # the code block is not prose
    preview = run()
    assert preview.returncode == 0, preview.stderr
    page = (tmp_path / "out" / "index.html").read_text()
    assert '<a class="tcg-api" href="https://ref.example/docs/c.html" hreflang="en"><code>torch.compile(model)</code></a>' in page
    (tmp_path / "names.toml").write_text('base = "https://ref.example/docs/"\n[pages]\n"torch.compile" = "c"\n')
    broken = run()
    assert broken.returncode != 0 and "names.toml: [pages] 'torch.compile': 'c' is not a page of the reference" in broken.stderr


@pytest.mark.capture  # imports torch (the CPU build the tests install)
def test_every_name_of_the_list_is_one_torch_has():
    torch = importlib.import_module("torch")
    names = api_links.load(LIST)
    missing = []
    for key in [*names.pages, *names.unlinked]:
        if key.startswith("torch.ops.guide."):
            continue  # the guide's own operators: its custom operators chapter defines them
        parts = key.removesuffix(".*").split(".")
        found = torch
        for depth, part in enumerate(parts[1:], 2):
            try:
                found = getattr(found, part)
            except AttributeError:
                try:
                    found = importlib.import_module(".".join(parts[:depth]))
                except ImportError:
                    missing.append(key)
                    break
    assert missing == [], f"torch {torch.__version__} has no {missing}"


@pytest.mark.build  # reads the guide's build (guide_site)
def test_the_guides_prose_links_api_names_and_its_code_and_outputs_never(guide_site):
    names = api_links.load(LIST)
    counts = {}
    for lang in ("", "ru/", "zh/", "ko/"):
        html = (guide_site / lang / "troubleshooting" / "index.html").read_text(encoding="utf-8")
        links = re.findall(r'<a class="tcg-api" href="([^"]+)" hreflang="en"><code>([^<]+)</code></a>', html)
        counts[lang] = len(links)
        assert all(href.startswith(names.base) for href, _ in links)
        for pre in re.findall(r"<pre.*?</pre>", html, re.S):
            assert "tcg-api" not in pre
        for heading in re.findall(r"<h[1-6].*?</h[1-6]>", html, re.S):
            assert "tcg-api" not in heading
    assert counts[""] >= 10 and len(set(counts.values())) <= 2, counts  # every language links its names alike
    english = (guide_site / "getting-started" / "index.html").read_text(encoding="utf-8")
    assert f'<a class="tcg-api" href="{names.base}generated/torch.compile.html" hreflang="en"><code>torch.compile</code></a>' in english
