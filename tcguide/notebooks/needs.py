"""What a chapter's notebook needs to run, said in the notebook itself, so that it works where it is
opened (Jupyter, Colab) and not only on the site:

- a Markdown cell: a CUDA GPU, like the one its outputs were captured on, and how to pick one in
  Colab; the torch (and CUDA) they were captured with; the packages its code imports;
- a first code cell that installs those packages where they are missing, in the versions the outputs
  were captured with, and does nothing where they are all there;
- Colab's metadata, so that Colab opens it asking for a GPU.

All of it comes from the captured outputs (their environment, and the versions of the distributions
each file imported) and from the snippet files' own imports: a package is listed when the file
imports it by the name of a distribution its capture recorded (``torch``, ``tabulate``), so neither a
helper module nor a module that a cell imports to show the error is. Stdlib only.
"""

from __future__ import annotations

import ast
import functools
import re

from tcguide.core.environment import Environment
from tcguide.core.labels import label

COLAB_ACCELERATOR = "GPU"


@functools.lru_cache(maxsize=512)  # by the code itself: every language's notebook of a chapter asks the same
def imported_modules(source: str) -> frozenset[str]:
    """The top-level names of the modules a piece of Python code imports (absolute imports only)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell that does not parse is reported where cells are read
        return frozenset()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return frozenset(names)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def packages(files) -> dict[str, str]:
    """module -> 'distribution==version' for every package the files import that their captures
    recorded; ``files`` holds (code of the file and its helpers, its capture) pairs. Where captures
    recorded two versions, the latest capture's wins."""
    found: dict[str, tuple[str, str]] = {}
    for source, capture in files:
        recorded = {_normal(dist): (dist, version) for dist, version in capture.packages.items()}
        for module in sorted(imported_modules(source)):
            if _normal(module) in recorded:
                dist, version = recorded[_normal(module)]
                earlier = found.get(module)
                if earlier is None or earlier[0] <= capture.captured_at:
                    found[module] = (capture.captured_at, f"{dist}=={version}")
    return {module: spec for module, (_, spec) in sorted(found.items())}


def install_cell(wanted: dict[str, str]) -> str:
    """Python for the first code cell: ``%pip install`` of the wanted packages that cannot be imported here."""
    listed = ",\n".join(f"    {module!r}: {spec!r}" for module, spec in wanted.items())
    return ("import importlib.util\n\n"
            f"_wanted = {{\n{listed},\n}}\n"
            "_missing = [spec for module, spec in _wanted.items() if importlib.util.find_spec(module) is None]\n"
            "if _missing:\n"
            "    _install = \" \".join(_missing)\n"
            "    %pip install --quiet {_install}")


def describe(environments: list[dict], lang: str, colab_gpu: str, wanted: dict[str, str]) -> str:
    """The Markdown cell that says what the notebook needs."""
    gpus = sorted({Environment.of(e).describe().split(" · ")[0] for e in environments}) or ["—"]
    torch = sorted({e["torch"].split("+")[0] for e in environments if e.get("torch")}) or ["—"]
    cuda = sorted({e["cuda"] for e in environments if e.get("cuda")}) or ["—"]
    sep = label(lang, "list_sep")
    lines = [f"**{label(lang, 'nb_needs')}**", "",
             "- " + label(lang, "nb_needs_gpu").format(gpu=sep.join(gpus), colab=colab_gpu),
             "- " + label(lang, "nb_needs_torch").format(torch=sep.join(torch), cuda=sep.join(cuda))]
    if wanted:
        names = sep.join(f"`{spec.split('==')[0]}`" for spec in wanted.values())
        lines.append("- " + label(lang, "nb_needs_packages").format(packages=names))
    return "\n".join(lines)


def colab_metadata(colab_gpu: str) -> dict:
    """What Colab reads to open the notebook with a GPU runtime of that type."""
    return {"accelerator": COLAB_ACCELERATOR, "colab": {"gpuType": colab_gpu}}
