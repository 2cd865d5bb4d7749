"""Machine paths and memory addresses become neutral forms, and nothing else is touched."""

import os
import sys

import pytest

from tcguide.capture.normalize import Normalizer


@pytest.fixture
def normalize():
    return Normalizer.for_this_machine("/srv/checkout", extra={"/scratch/job": "<work>"})


@pytest.mark.parametrize("text, expected", [
    ("/srv/checkout/snippets/a.py", "snippets/a.py"),
    ("cd /srv/checkout && ls", "cd . && ls"),
    ("/scratch/job/out.txt", "<work>/out.txt"),
    ("<object object at 0x7f3a2b1c0d10>", "<object object at 0x…>"),
    ("<function f at 0x7f3a2b1c0d10>", "<function f at 0x…>"),
    ("tensor address 0x7f3a2b1c0d10", "tensor address 0x…"),
])
def test_machine_paths_and_addresses_are_neutralised(normalize, text, expected):
    assert normalize(text) == expected


@pytest.mark.parametrize("text", [
    "/srv/checkout2/snippets/a.py",  # a sibling folder whose name starts with the checkout's
    "/srv/checkoutx",
    "/scratch/jobs/1",
    "x/srv/checkout/y",  # the checkout's path inside another path
    "mask = 0xdeadbeefcafe",  # a hex literal, not an address
    "sha 0x0123456789abcdef0",
    "ids: 140234567890123",
])
def test_text_that_only_looks_alike_is_left_alone(normalize, text):
    assert normalize(text) == text


def test_python_itself_is_neutralised():
    normalize = Normalizer.for_this_machine("/srv/checkout")
    assert normalize(f"running {sys.executable} -c pass") == "running python3 -c pass"
    if sys.prefix not in ("/", "/usr", "/usr/local"):
        assert normalize(os.path.join(sys.prefix, "include")) == "<prefix>/include"


def test_a_path_cut_from_the_left_loses_the_capture_folders_it_still_names():
    """Dynamo's guard lines print a source path cut to its last characters: the scratch folders'
    unique names are what is left of the machine's path."""
    normalize = Normalizer.for_this_machine(
        "/tmp/tcguide-capture-x1y2/a.py.sandbox", extra={"/tmp/tcguide-capture-x1y2": "<work>"},
        tails={"a.py.sandbox/": "", "tcguide-capture-x1y2/": "<work>/"})
    assert normalize("# x = a + 1  # mp/tcguide-capture-x1y2/a.py.sandbox/snippets/a.py:13 in f") == \
        "# x = a + 1  # snippets/a.py:13 in f"
    assert normalize("see ture-x1y2/a.py.sandbox/snippets/a.py") == "see snippets/a.py"
    assert normalize("log in re-x1y2/logs/runner.log or tcguide-capture-x1y2/b") == \
        "log in re-x1y2/logs/runner.log or <work>/b"
    assert normalize("/tmp/tcguide-capture-x1y2/a.py.sandbox/snippets/a.py") == "snippets/a.py"
    assert normalize("other/a.py.sandboxes/x") == "other/a.py.sandboxes/x"
