"""Run a chapter's notebook top to bottom, as a reader's "Run all" does, and say what went wrong.

Needs nbformat, nbclient and ipykernel (imported here only, not by the rest of the tooling).
Each cell has a time limit; the kernel runs in a scratch folder. Cells tagged
``skip-execution`` (files launched with torchrun) are skipped, as nbclient does; so are cells
tagged ``needs-cuda`` when the kernel has no CUDA, each reported with its reason. A cell
tagged ``raises-exception`` must raise the exception it declares (or the one it raised when
captured); any other error fails the run, named by page, snippet file, line and cell.
"""

from __future__ import annotations

import copy
import tempfile
import time
from dataclasses import dataclass, field

SKIP, NEEDS_CUDA, RAISES = "skip-execution", "needs-cuda", "raises-exception"
CUDA_PROBE = "import torch\nprint(torch.cuda.is_available())"


@dataclass
class Result:
    page: str
    seconds: float = 0.0
    executed: int = 0
    skipped: list[str] = field(default_factory=list)  # "where: why"
    failures: list[str] = field(default_factory=list)
    notebook: dict | None = None  # the notebook with the outputs of this run

    @property
    def ok(self) -> bool:
        return not self.failures


def where(cell: dict, page: str) -> str:
    meta = cell.get("metadata", {}).get("tcguide", {})
    if "cell" in meta:
        return f"{page}: {meta['snippet']}:{meta['line']} (cell {meta['cell']})"
    return f"{page}: {meta.get('snippet', 'generated cell')} ({cell.get('id')})"


def run(notebook: dict, page: str, timeout: int = 600, kernel: str = "python3") -> Result:
    """Execute a copy of the notebook; the result lists what was skipped and what failed."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    nb = nbformat.from_dict(copy.deepcopy(notebook))
    result = Result(page)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tcguide-run-") as folder:
        client = NotebookClient(nb, timeout=timeout, kernel_name=kernel, skip_cells_with_tag=SKIP,
                                resources={"metadata": {"path": folder}})
        with client.setup_kernel():
            cuda = "True" in _probe(client)
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                tags = cell.metadata.get("tags", [])
                reason = cell.metadata.get("tcguide", {}).get("needs_cuda")
                if SKIP in tags or (NEEDS_CUDA in tags and not cuda):
                    why = "runs under torchrun, one process per GPU" if SKIP in tags else f"needs CUDA: {reason}"
                    result.skipped.append(f"{where(cell, page)}: {why}")
                    continue
                captured = next((o.ename for o in cell.outputs if o.output_type == "error"), None)
                cell.outputs = []
                try:
                    client.execute_cell(cell, index)
                except CellTimeoutError:
                    result.failures.append(f"{where(cell, page)}: no result within {timeout} s")
                    break
                except CellExecutionError as exc:
                    result.failures.append(f"{where(cell, page)}: {exc.ename}: {exc.evalue} — an error the page "
                                           "does not declare")
                    break
                result.executed += 1
                problem = _declared(cell, captured)
                if problem:
                    result.failures.append(f"{where(cell, page)}: {problem}")
    result.seconds = time.monotonic() - started
    result.notebook = nb
    return result


def _probe(client) -> str:
    """What the kernel says about CUDA (run as a throw-away cell, not stored in the notebook)."""
    import nbformat

    probe = nbformat.v4.new_code_cell(CUDA_PROBE)
    client.nb.cells.append(probe)  # nbclient stores an executed cell back at its index
    try:
        client.execute_cell(probe, len(client.nb.cells) - 1, store_history=False)
    finally:
        client.nb.cells.pop()
    return "".join(o.get("text", "") for o in probe.outputs)


def _declared(cell, captured: str | None) -> str:
    """'' when a cell that declares raises= raised that (or what it raised when captured)."""
    meta = cell.metadata.get("tcguide", {})
    if RAISES not in cell.metadata.get("tags", []):
        return ""
    errors = [o for o in cell.outputs if o.output_type == "error"]
    declared = meta.get("raises", "")
    if not errors:
        return f"declares raises={declared} but raised nothing"
    ename = errors[0].ename
    if ename in (declared.rsplit(".", 1)[-1], captured):
        return ""
    return f"raised {ename}: {errors[0].evalue}; the page declares {declared}"
