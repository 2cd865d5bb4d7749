"""A real torch snippet captured on this machine's CPU: provenance and seeding with torch.

torch is imported by the tests, not at collection, so that the tiers without torch collect fast."""

import pytest

from tcguide.core import store
from tcguide.capture.driver import machine_environment
from tests.helpers import alive, pids_in, wait_for

pytestmark = pytest.mark.capture


@pytest.fixture
def torch():
    import torch

    return torch


def test_torch_snippet_capture_records_torch_and_is_seeded(project, torch):
    project.snippet("t.py", """
        # %% compile
        import torch

        @torch.compile(backend="eager")
        def f(x):
            return torch.sin(x) + 1

        print(f(torch.rand(3)))
        """)
    env = machine_environment()
    assert env["torch"] == torch.__version__
    assert project.capture("t.py", env=env) == 0
    first = store.load(project.output("t.py"))
    assert first.environment["torch"] == torch.__version__
    text = first.cell("compile").outputs[0]["text"]
    assert text.startswith("tensor([")
    assert project.capture("t.py", env=env, force=True) == 0
    assert store.load(project.output("t.py")).cell("compile").outputs[0]["text"] == text


def test_torchrun_file_runs_one_process_per_gpu_and_records_rank_zero(project, torch):
    project.snippet("dist.py", """
        # /// capture
        # gpus = 2
        # launcher = "torchrun"
        # timeout = 120
        # ///

        # %% setup
        import torch
        import torch.distributed as dist
        dist.init_process_group("gloo")
        print(f"rank {dist.get_rank()} of {dist.get_world_size()}")

        # %% all-reduce
        t = torch.ones(1) * (dist.get_rank() + 1)
        dist.all_reduce(t)
        print("sum", t.item())
        dist.destroy_process_group()
        """)
    # a machine with two GPUs as far as scheduling goes; the gloo backend needs none
    assert project.capture("dist.py", env={"gpu_count": 2, "gpu": "test", "torch": torch.__version__}) == 0
    cells = store.load(project.output("dist.py"))
    assert cells.cell("setup").outputs[0]["text"] == "rank 0 of 2\n"
    assert cells.cell("all-reduce").outputs[0]["text"] == "sum 3.0\n"
    assert cells.environment["gpu_count"] == 2


def test_torchrun_ranks_end_when_the_file_times_out(project, tmp_path, capsys, torch):
    pids = tmp_path / "pids"
    project.snippet("hang.py", f"""
        # /// capture
        # gpus = 2
        # launcher = "torchrun"
        # timeout = 20
        # ///

        # %% hang
        import os, time
        with open({str(pids)!r}, "a") as f:
            print(os.getpid(), file=f, flush=True)
        time.sleep(600)
        """)
    status = project.capture("hang.py", env={"gpu_count": 2, "gpu": "test", "torch": torch.__version__})
    assert status == 1
    assert "snippets/hang.py:7: cell 'hang' still running after the file's timeout of 20 s" in capsys.readouterr().out
    ranks = pids_in(pids)
    assert len(ranks) == 2
    wait_for(lambda: not any(alive(p) for p in ranks), 30, "the torchrun ranks to end")
