"""`make new-language`: a throwaway language scaffolded in a small site made with the guide's own
mkdocs.yml, glossaries and assets builds strictly, and every page it starts with is reported as not
translated yet. The site is small (a home page, a chapter with a cell and a glued figure, the
contributing pages), so the build takes seconds; the guide's own pages are built by test_build."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tcguide.i18n import translations as i18n
from tcguide.i18n import scaffold
from tcguide.core.errors import GuideError
from tests.helpers import ROOT, write_captured

SNIPPET = "# %% measure glue=speedup\nspeedup = 2.5\nprint('measured')\n"
OUTPUTS = {"measure": [{"output_type": "stream", "name": "stdout", "text": "measured\n"}]}
ENV = {"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 1, "torch": "2.11.0+cu130", "cuda": "13.0"}
PAGES = {  # the same headings, cells and figures in every language, as the structure checks want
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
NAV = "nav:\n  - index.md\n  - speedups.md\n  - Contributing:\n      - contributing.md\n      - translation-status.md\n"


@pytest.fixture(scope="module")
def small_guide(tmp_path_factory) -> Path:
    """The guide's configuration, glossaries and assets, with four small pages in each language."""
    copy = tmp_path_factory.mktemp("guide")
    shutil.copytree(ROOT / "i18n", copy / "i18n")
    shutil.copytree(ROOT / "docs" / "assets", copy / "docs" / "assets")
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    shutil.copy(ROOT / "pytorch-api.toml", copy / "pytorch-api.toml")  # mkdocs.yml names it
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = re.search(r"^nav:\n(?:[ \t]+.*\n?)*", config, re.M)
    assert nav, "mkdocs.yml has no nav block"
    (copy / "mkdocs.yml").write_text(config[: nav.start()] + NAV + config[nav.end():], encoding="utf-8")
    write_captured(copy, "speedups/tiny.py", SNIPPET, OUTPUTS, ENV, glued={"speedup": 2.5})
    for lang, pages in PAGES.items():
        (copy / "docs" / lang).mkdir(parents=True)
        for name, text in pages.items():
            (copy / "docs" / lang / name).write_text(text, encoding="utf-8")
    site = i18n.Site(copy)
    for lang in ("ru", "zh", "ko"):
        for name in PAGES[lang]:
            i18n.stamp(site, lang, name)
    return copy


def test_the_small_site_has_the_guides_languages_and_no_translation_problem(small_guide):
    site = i18n.Site(small_guide)
    assert site.languages() == i18n.Site(ROOT).languages()
    assert i18n.all_structure_problems(site) == []
    assert all(row.state == "up to date" for row in i18n.report(site)), i18n.report(site)


def test_a_new_language_is_scaffolded_and_builds_strictly(small_guide):
    written = scaffold.new_language(small_guide, "ja")
    site = i18n.Site(small_guide)
    assert site.languages()[-1] == "ja"
    assert "i18n/glossary-ja.md" in written and "docs/ja/speedups.md" in written
    glossary = (small_guide / "i18n" / "glossary-ja.md").read_text(encoding="utf-8")
    assert "| graph break |  |  |" in glossary and "## Forbidden variants" in glossary
    states = {row.page: row for row in i18n.report(site) if row.lang == "ja"}
    assert len(states) == len(site.pages()) == len(PAGES["en"])
    assert all(row.state == "outdated" and row.changes[0].startswith("not translated:") for row in states.values())
    assert i18n.all_structure_problems(site) == []
    env = dict(os.environ, TCGUIDE_NOTEBOOKS="false", NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(small_guide / "site")],
                          cwd=small_guide, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    page = (small_guide / "site" / "ja" / "speedups" / "index.html").read_text(encoding="utf-8")
    assert 'lang="ja"' in page and "tcg-glue" in page


def test_a_configured_or_malformed_language_is_refused(small_guide):
    with pytest.raises(GuideError, match="configured already"):
        scaffold.new_language(small_guide, "ru")
    with pytest.raises(GuideError, match="is not a locale"):
        scaffold.new_language(small_guide, "ja; rm")
