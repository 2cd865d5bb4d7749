"""What several test modules share. Tests import from here, never from one another or from conftest."""

from __future__ import annotations

import http.server
import re
import shutil
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from tcguide.capture import driver as capture_mod
from tcguide.core import directive, freshness, languages, store
from tcguide.core.snippet import load
from tcguide.i18n import translations

ROOT = Path(__file__).resolve().parent.parent


# ---- the site's languages, as mkdocs.yml configures them -------------------------------------

class _Loader(yaml.SafeLoader):
    """YAML as MkDocs reads mkdocs.yml, its tags (!ENV, !!python/...) read as nothing."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)


def mkdocs_config(root: Path = ROOT) -> dict:
    return yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)


def language_entries(root: Path = ROOT) -> dict[str, dict]:
    """Each language's entry in the i18n plugin's ``languages``, by locale."""
    plugin = next(p["i18n"] for p in mkdocs_config(root)["plugins"] if isinstance(p, dict) and "i18n" in p)
    return {entry["locale"]: entry for entry in plugin["languages"]}


def site_setting(lang: str, key: str, root: Path = ROOT):
    """A language's ``site_name`` or ``site_description``: its entry's, else the site's own."""
    return language_entries(root)[lang].get(key) or mkdocs_config(root)[key]


def toggle_names(lang: str, root: Path = ROOT) -> list[str]:
    """The light/dark toggle's labels a language's pages show: its entry's palette, else the theme's."""
    theme = language_entries(root)[lang].get("theme") or mkdocs_config(root)["theme"]
    return [scheme["toggle"]["name"] for scheme in theme["palette"]]


# Every language the site is built in, English first: the browser and build tests run for each, so a
# language added with `make new-language` is tested with no edit to them.
LANGUAGES = tuple(languages.configured(ROOT))
TRANSLATIONS = LANGUAGES[1:]

# The environment a capture on this machine records when the tests make it look like one without torch.
CPU_ONLY = {"python": "3.x", "torch": "", "torchvision": "", "triton": "", "cuda": "", "gpu": "",
            "gpu_count": 0, "driver": "", "tooling": "test"}


class Project:
    """A throw-away project with snippet files, captured without torch (the `project` fixture)."""

    def __init__(self, root: Path):
        self.root = root
        (root / "snippets").mkdir(parents=True)

    def snippet(self, name: str, text: str) -> Path:
        path = self.root / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def capture(self, *names: str, env: dict | None = None, **kwargs) -> int:
        paths = [str(self.root / "snippets" / n) for n in names] or [str(self.root / "snippets")]
        return capture_mod.capture(paths, self.root, machine_env=env or CPU_ONLY, **kwargs)

    def output(self, name: str) -> Path:
        return (self.root / "snippets" / name).with_suffix("").with_suffix(".out.json")


def write_captured(root: Path, name: str, source: str, outputs: dict[str, list[dict]], environment: dict,
                   glued: dict | None = None, packages: dict | None = None) -> None:
    """A snippet file and an output for it as a capture writes one (fresh, validated on reading):
    `outputs` maps each cell to what it printed; cells that declare glue get `glued` as their values;
    `packages` are the distributions (name -> version) the capture recorded that it imported."""
    path = root / "snippets" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    snippet = load(path, f"snippets/{name}")
    cells = tuple(store.CellRecord(c.name, tuple(outputs[c.name]), 0.25, dict(glued or {}) if c.glue else {})
                  for c in snippet.cells)
    store.save(store.Capture(f"snippets/{name}", freshness.inputs(snippet), environment, "2026-11-22T10:15:00Z",
                             cells, dict(packages or {})), store.output_path(path))


# ---- a small guide: the guide's configuration with four small pages in each language --------------

SMALL_SNIPPET = "# %% measure glue=speedup\nspeedup = 2.5\nprint('measured')\n"
SMALL_OUTPUTS = {"measure": [{"output_type": "stream", "name": "stdout", "text": "measured\n"}]}
SMALL_ENV = {"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 1, "torch": "2.11.0+cu130", "cuda": "13.0"}
SMALL_PAGES = {  # the same headings, cells and figures in every language, as the structure checks want
    "en": {"index.md": "# The guide\n\nWelcome.\n",
           "speedups.md": "# Speedups\n\nIt is {{speedups/tiny.py:speedup:.1f}}× faster.\n\n"
                          "## The measurement\n\n[[cell speedups/tiny.py#measure]]\n",
           "contributing.md": "# Contributing\n\nHow to help.\n",
           "translation-status.md": "# Translation status\n\n[[i18n-status]]\n"},
    "ru": {"index.md": "# Руководство\n\nДобро пожаловать.\n",
           "speedups.md": "# Ускорение\n\nВ {{speedups/tiny.py:speedup:.1f}} раза быстрее.\n\n"
                          "## Измерение\n\n[[cell speedups/tiny.py#measure]]\n",
           "contributing.md": "# Участникам\n\nКак помочь.\n",
           "translation-status.md": "# Состояние переводов\n\n[[i18n-status]]\n"},
    "zh": {"index.md": "# 指南\n\n欢迎。\n",
           "speedups.md": "# 加速\n\n相对 eager 的加速比为 {{speedups/tiny.py:speedup:.1f}}×。\n\n## 测量\n\n[[cell speedups/tiny.py#measure]]\n",
           "contributing.md": "# 参与贡献\n\n如何帮助。\n",
           "translation-status.md": "# 翻译状态\n\n[[i18n-status]]\n"},
    "ko": {"index.md": "# 가이드\n\n환영합니다.\n",
           "speedups.md": "# 속도 향상\n\n{{speedups/tiny.py:speedup:.1f}}배 빠릅니다.\n\n"
                          "## 측정\n\n[[cell speedups/tiny.py#measure]]\n",
           "contributing.md": "# 기여하기\n\n돕는 방법.\n",
           "translation-status.md": "# 번역 상태\n\n[[i18n-status]]\n"},
}
SMALL_NAV = "nav:\n  - index.md\n  - speedups.md\n  - Contributing:\n      - contributing.md\n      - translation-status.md\n"


def make_small_guide(copy: Path) -> Path:
    """The guide's configuration, glossaries, templates and assets in ``copy``, with four small pages in
    each language (a home page, a chapter with a cell and a glued figure, the contributing pages), each
    translation stamped as up to date: a site that builds in seconds."""
    shutil.copytree(ROOT / "i18n", copy / "i18n")
    shutil.copytree(ROOT / "docs" / "assets", copy / "docs" / "assets")
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    shutil.copy(ROOT / "pytorch-api.toml", copy / "pytorch-api.toml")  # mkdocs.yml names it
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = re.search(r"^nav:\n(?:[ \t]+.*\n?)*", config, re.M)
    assert nav, "mkdocs.yml has no nav block"
    (copy / "mkdocs.yml").write_text(config[: nav.start()] + SMALL_NAV + config[nav.end():], encoding="utf-8")
    write_captured(copy, "speedups/tiny.py", SMALL_SNIPPET, SMALL_OUTPUTS, SMALL_ENV, glued={"speedup": 2.5})
    for lang, pages in SMALL_PAGES.items():
        (copy / "docs" / lang).mkdir(parents=True)
        for name, text in pages.items():
            (copy / "docs" / lang / name).write_text(text, encoding="utf-8")
    site = translations.Site(copy)
    for lang in SMALL_PAGES:
        if lang != "en":
            for name in SMALL_PAGES[lang]:
                translations.stamp(site, lang, name)
    return copy


# ---- processes ---------------------------------------------------------------------------

def alive(pid: int) -> bool:
    """A process that exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def wait_for(condition, seconds: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what or condition}")
        time.sleep(0.1)


def pids_in(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


# ---- the built guide -----------------------------------------------------------------------

class StaticSiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a built site as a static host does: its 404.html, with status 404, for a missing path."""

    def log_message(self, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.exists():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class SiteServer(http.server.ThreadingHTTPServer):
    """A threaded server for a built site that says nothing when a browser leaves a page before a
    download has ended (the tests move on as soon as what they check is there)."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], ConnectionError):  # a broken pipe, a reset connection
            return
        super().handle_error(request, client_address)


def stored_provenance(page: Path, root: Path = ROOT) -> list[str]:
    """For each cell a page embeds, in order, the start of the provenance line the site must show for it,
    written from that cell's stored output: its environment ('GPU · torch X · CUDA Y') and when it ran."""
    found, _ = directive.find(page.read_text(encoding="utf-8"), str(page))
    lines = []
    for cell in (d for d in found if d.kind == "cell"):
        capture = store.load(store.output_path(root / "snippets" / cell.file))
        env = capture.environment
        gpu = env.get("gpu") or "CPU"
        if env.get("gpu") and env.get("gpu_count", 1) > 1:
            gpu = f"{env['gpu_count']} × {gpu}"
        parts = [gpu]
        if env.get("torch"):
            parts.append("torch " + env["torch"].split("+")[0])
        if env.get("cuda"):
            parts.append("CUDA " + env["cuda"])
        parts.append(capture.captured_at.replace("T", " ")[:16] + " UTC")
        lines.append(" · ".join(parts))
    return lines



# A chapter "timings" with two claims on the glued value t of snippets/bench/times.py: the
# claims tests and the recapture report's tests write it with their own snippet and page.
TIMING_CLAIMS = """
[compiled-faster]
values = { eager = "bench/times.py:t.eager", compiled = "bench/times.py:t.compiled" }
holds = "below(compiled, eager)"

[one-graph]
values = { t = "bench/times.py:t" }
holds = "t.graphs == 1"
"""


def write_claimed_chapter(project: Project, snippet: str, page: str) -> None:
    """snippets/bench/times.py, claims/timings.toml (TIMING_CLAIMS) and docs/en/timings.md."""
    project.snippet("bench/times.py", snippet)
    (project.root / "claims").mkdir(exist_ok=True)
    (project.root / "claims" / "timings.toml").write_text(TIMING_CLAIMS, encoding="utf-8")
    path = project.root / "docs" / "en" / "timings.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(page).lstrip(), encoding="utf-8")
