"""A real torch snippet captured on this machine's CPU: provenance and seeding with torch."""

import torch

from tcguide import store
from tcguide.capture import machine_environment


def test_torch_snippet_capture_records_torch_and_is_seeded(project):
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
