"""Each concept the tooling once defined in two or three places has one owner now; each test is a
case where the old definitions disagreed."""

from __future__ import annotations

import pytest

from tcguide.capture import shards
from tcguide.core import settings
from tcguide.core.errors import GuideError
from tcguide.notebooks import build


def test_a_malformed_pyproject_stops_capture_and_notebooks_alike(tmp_path):
    """Capture used to fall back to the default machine on a malformed pyproject.toml, where the
    notebooks stopped with an error (with the file's absolute path)."""
    (tmp_path / "pyproject.toml").write_text("[tool.tcguide\nmachine = 'a100'\n", encoding="utf-8")
    for read in (shards.project_machine, build.needs_cuda):
        with pytest.raises(GuideError) as caught:
            read(tmp_path)
        assert str(caught.value).startswith("pyproject.toml: malformed TOML"), str(caught.value)
        assert str(tmp_path) not in str(caught.value)


def test_settings_come_from_the_one_table(tmp_path):
    assert settings.load(tmp_path) == settings.Settings()  # no pyproject.toml: the defaults
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tcguide]\nmachine = "a100"\ncolab-gpu = "L4"\n[tool.tcguide.needs-cuda]\n"t/a.py" = "GPU"\n',
        encoding="utf-8")
    assert shards.project_machine(tmp_path) == "a100"
    assert build.needs_cuda(tmp_path) == {"t/a.py": "GPU"}
    assert settings.load(tmp_path).colab_gpu == "L4"


def _snippets_tree(root):
    for name in ("topic/a.py", "topic/_common.py", "_shared/timing.py", "_shared/deep/b.py", "other/c.py"):
        (root / "snippets" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "snippets" / name).write_text("# %% a\nx = 1\n", encoding="utf-8")


def test_capture_and_the_catalog_find_the_same_snippet_files(tmp_path):
    """Naming the ``_shared`` folder used to capture its helpers, which the catalog (and so check and
    the build) never counts as snippet files; a helper named on its own was captured too."""
    from tcguide.capture import driver
    from tcguide.core.catalog import Catalog

    _snippets_tree(tmp_path)
    catalog = sorted(f"snippets/{name}" for name in Catalog(tmp_path).files())
    assert catalog == ["snippets/other/c.py", "snippets/topic/a.py"]
    found = lambda *names: [str(p) for p in driver.discover([str(tmp_path / n) for n in names], tmp_path)]
    assert found("snippets") == catalog
    assert found("snippets/_shared", "snippets/topic") == ["snippets/topic/a.py"]
    with pytest.raises(GuideError, match="is a helper module"):
        found("snippets/_shared/timing.py")


def test_capture_takes_folders_named_relative_to_the_checkout(tmp_path, monkeypatch):
    """`make capture SNIPPETS=snippets/topic` names a folder relative to the checkout while the root
    is absolute: finding its files compared the two paths and failed with a ValueError."""
    from tcguide.capture import driver

    _snippets_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert [str(p) for p in driver.discover(["snippets/topic", "snippets/_shared"], tmp_path)] == ["snippets/topic/a.py"]
    assert [str(p) for p in driver.discover(["snippets"], tmp_path.resolve())] == [
        "snippets/other/c.py", "snippets/topic/a.py"]


def test_notebooks_and_the_site_have_the_same_languages(tmp_path):
    """The notebooks took the folders of docs/ holding pages, the site the i18n plugin's locales: a
    folder without an entry in mkdocs.yml (a language begun by hand) gave notebooks only."""
    from tcguide.i18n import translations
    from tcguide.notebooks import export

    (tmp_path / "mkdocs.yml").write_text(
        "plugins:\n  - search\n  - i18n:\n      languages:\n        - locale: en\n          default: true\n"
        "          theme:\n            - locale: de  # a nested key, not a language\n"
        "        - locale: ru\n  - tcguide\n", encoding="utf-8")
    for lang in ("en", "ru", "xx"):
        (tmp_path / "docs" / lang).mkdir(parents=True)
        (tmp_path / "docs" / lang / "index.md").write_text("# Page\n", encoding="utf-8")
    assert export.languages(tmp_path) == translations.Site(tmp_path).languages() == ["en", "ru"]


def test_the_language_list_reads_mkdocs_yml_as_yaml_does():
    import yaml

    from tests.helpers import ROOT
    from tcguide.core import languages

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # MkDocs' python tags
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    plugin = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    assert languages.configured(ROOT) == [lang["locale"] for lang in plugin["languages"]]


GLOSSARY = """\
# Glossary

| English | 中文 | Notes |
|---|---|---|
| graph break | 图中断 | |
  | backend | 后端 | an indented row is a row |

## Forbidden variants

| Avoid | Write instead |
| --- | --- |
| 图断裂 | 图中断 |
  | 急切模式 | eager 模式 |
"""


def test_the_glossary_has_one_reading(tmp_path):
    """Three parsers disagreed: the check took any header not named "Variant" for a forbidden
    variant and skipped indented rows, which the search index kept."""
    from tcguide.i18n import glossary, translations
    from tcguide.site import search

    glossary.path(tmp_path, "zh").parent.mkdir()
    glossary.path(tmp_path, "zh").write_text(GLOSSARY, encoding="utf-8")
    variants = translations.forbidden_variants(translations.Site(tmp_path), "zh")
    assert [(v, instead) for v, instead, _ in variants] == [("图断裂", "图中断"), ("急切模式", "eager 模式")]
    assert [line for _, _, line in variants] == [12, 13]
    assert search.glossary_terms(glossary.path(tmp_path, "zh")) == ["图中断", "后端"]
    assert glossary.english_terms(glossary.path(tmp_path, "zh")) == ["graph break", "backend"]


# ---- names the project's folders, files and source language once --------------------------------

# A value that names a concept of the project -> the one module and name that define it. The same
# value typed again as a constant, a default or an option's default is a second definition, which
# drifts (labels.DEFAULT and translations.SOURCE both named "en"; "snippets" and "docs" were typed
# in six modules).
OWNED = {
    "en": ("tcguide.core.languages", "SOURCE"),
    "docs": ("tcguide.core.languages", "DOCS"),
    "mkdocs.yml": ("tcguide.core.languages", "CONFIG"),
    "snippets": ("tcguide.core.discovery", "FOLDER"),
    "_shared": ("tcguide.core.discovery", "SHARED"),
    "claims": ("tcguide.core.claims", "FOLDER"),
    "pyproject.toml": ("tcguide.core.settings", "FILE"),
    ".out.json": ("tcguide.core.store", "SUFFIX"),
}


def _second_definitions(module: str, source: str) -> list[str]:
    """Where ``source`` defines an OWNED value again: a module or class constant, a parameter's
    default, a ``default=`` keyword (argparse, MkDocs options), or an import of the owner's name
    under another name."""
    import ast

    tree = ast.parse(source)
    found = []

    def owned(node, where: str, name: str = "") -> None:
        values = node.elts if isinstance(node, ast.Tuple) else [node]
        for value in values:
            if isinstance(value, ast.Constant) and value.value in OWNED and OWNED[value.value] != (module, name):
                owner = ".".join(OWNED[value.value])
                found.append(f"{module}:{value.lineno}: {where} {value.value!r}: import {owner} instead")

    def constants(body) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                constants(node.body)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                name = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else ""
                owned(node.value, "defines", name)

    constants(tree.body)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                owned(default, "a default of")
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "default":
                    owned(keyword.value, "a default of")
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if alias.asname and (node.module, alias.name) in OWNED.values():
                    found.append(f"{module}:{node.lineno}: a second name {alias.asname} for {node.module}.{alias.name}")
    return found


def test_each_owned_value_is_defined_by_its_owner_alone():
    from tests.helpers import ROOT

    found = []
    for path in sorted((ROOT / "tcguide").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found += _second_definitions(module, path.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)


def test_a_second_definition_is_found_where_it_hides():
    """The scan above fails on each way the source language and the folders were defined twice."""
    planted = ('SOURCE = "en"\n'
               'SNIPPETS, CLAIMS = "snippets", "claims"\n'
               'from tcguide.core.languages import SOURCE as SOURCE_LANGUAGE\n'
               'class Site:\n    docs: str = "docs"\n'
               'def check(root, snippets_dir="snippets"): ...\n'
               'option = Type(str, default="docs")\n')
    found = _second_definitions("tcguide.i18n.translations", planted)
    assert sorted(int(f.split(":")[1]) for f in found) == [1, 2, 2, 3, 5, 6, 7], found
    assert "tcguide.i18n.translations:1: defines 'en': import tcguide.core.languages.SOURCE instead" in found
    assert not _second_definitions("tcguide.core.languages", 'SOURCE = "en"\nDOCS = "docs"\n')


def test_the_source_language_has_one_definition_that_every_concern_reads(tmp_path):
    from tcguide.core import labels, languages

    assert languages.SOURCE == "en"
    assert not hasattr(labels, "DEFAULT")  # the labels' own name for it, once
    assert labels.label("xx", "permalink") == labels.LABELS[languages.SOURCE]["permalink"]  # a new language's words
    assert languages.configured(tmp_path) == [languages.SOURCE]  # no mkdocs.yml: the source language alone
