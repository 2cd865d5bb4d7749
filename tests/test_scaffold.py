"""`make new-language`: a throwaway language scaffolded in a copy of the guide builds strictly,
and every page it starts with is reported as not translated yet."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tcguide import i18n, scaffold
from tcguide.errors import GuideError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def guide_copy(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("guide")
    for name in ("docs", "snippets", "i18n"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy(ROOT / name, copy / name)
    return copy


def test_a_new_language_is_scaffolded_and_builds_strictly(guide_copy):
    written = scaffold.new_language(guide_copy, "ja")
    site = i18n.Site(guide_copy)
    assert site.languages()[-1] == "ja"
    assert "i18n/glossary-ja.md" in written and "docs/ja/speedups.md" in written
    glossary = (guide_copy / "i18n" / "glossary-ja.md").read_text(encoding="utf-8")
    assert "| graph break |  |  |" in glossary and "## Forbidden variants" in glossary
    states = {row.page: row for row in i18n.report(site) if row.lang == "ja"}
    assert len(states) == len(site.pages())
    assert all(row.state == "outdated" and row.changes[0].startswith("not translated:") for row in states.values())
    assert i18n.all_structure_problems(site) == []
    env = dict(os.environ, TCGUIDE_NOTEBOOKS="false", NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(guide_copy / "site")],
                          cwd=guide_copy, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    page = (guide_copy / "site" / "ja" / "speedups" / "index.html").read_text(encoding="utf-8")
    assert 'lang="ja"' in page and "tcg-glue" in page


def test_a_configured_or_malformed_language_is_refused(guide_copy):
    with pytest.raises(GuideError, match="configured already"):
        scaffold.new_language(guide_copy, "ru")
    with pytest.raises(GuideError, match="is not a locale"):
        scaffold.new_language(guide_copy, "ja; rm")
