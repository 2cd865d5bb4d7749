import json

import pytest

from tcguide.core import store
from tcguide.core.errors import GuideError

CAPTURE = store.Capture(
    snippet="snippets/a.py", inputs={"source": "abc", "helpers": {}, "depends": {}, "tooling": "t"},
    environment={"gpu": "G", "torch": "2.11.0"}, captured_at="2026-11-22T10:00:00Z",
    cells=(store.CellRecord("c", ({"output_type": "stream", "name": "stdout", "text": "a\nb\n"},), 1.5),),
    packages={"torch": "2.11.0"},
)


def test_round_trip_and_diff_friendly_layout(tmp_path):
    path = tmp_path / "a.out.json"
    store.save(CAPTURE, path)
    assert store.load(path) == CAPTURE
    text = path.read_text()
    assert '"text": [\n      "a\\n",\n      "b\\n"\n     ]' in text  # one line of output per line of file
    assert text == store.dumps(CAPTURE)  # stable


@pytest.mark.parametrize("content, line, words", [
    ('{"format": ', 1, "corrupt JSON"),
    ('{\n"format": "tcguide-capture/2",\n}', 3, "corrupt JSON"),
    ('[1]', 1, "not a JSON object"),
    ('{\n "format": "tcguide-capture/1"}', 2, "format 'tcguide-capture/1'; this tooling reads 'tcguide-capture/2'"),
    ('{"format": "tcguide-capture/2"}', 1, "invalid: the document has no 'captured_at', 'cells'"),
])
def test_corrupt_or_foreign_files_are_clear_errors(tmp_path, content, line, words):
    path = tmp_path / "a.out.json"
    path.write_text(content)
    with pytest.raises(GuideError) as caught:
        store.load(path)
    assert caught.value.line == line
    assert words in str(caught.value)
    assert str(caught.value).startswith(str(path))


def _rewrite(tmp_path, edit, redigest=True):
    """The stored CAPTURE with one edit; redigest as a careless tool would (so only validation can catch it)."""
    doc = json.loads(store.dumps(CAPTURE))
    edit(doc)
    if redigest:
        doc["digest"] = store.digest(doc)
    path = tmp_path / "a.out.json"
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False))
    return path


def _error(path) -> GuideError:
    with pytest.raises(GuideError) as caught:
        store.load(path)
    assert "Traceback" not in str(caught.value)
    return caught.value


def _set(*where, value):
    def edit(doc):
        target = doc
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = value
    return edit


@pytest.mark.parametrize("edit, line, words", [
    (_set("cells", 0, "outputs", 0, "text", value=5), 10, "cells.0.outputs.0.text must be text"),
    (_set("cells", 0, "wall_time_s", value="1.5"), 16, "cells.0.wall_time_s must be a number of seconds, not '1.5'"),
    (_set("cells", 0, "wall_time_s", value=-1), 16, "must be a number of seconds, not -1"),
    (_set("cells", 0, "outputs", 0, "output_type", value="html"), 9, "must be one of stream, error"),
    (_set("cells", 0, "outputs", 0, value={"output_type": "display_data", "data": {"image/svg+xml": "<html/>"}}),
     9, "image/svg+xml is not an SVG document"),
    (_set("cells", 0, "outputs", 0, value={"output_type": "display_data", "data": {"image/png": "aGVsbG8="}}),
     9, "image/png is not a base64 PNG image"),
    (_set("cells", 0, "outputs", 0, value={"output_type": "display_data", "data": {"text/html": "<b>"}}),
     8, "a figure is one image/svg+xml or image/png"),
    (_set("cells", 0, "outputs", 0, "extra", value=1), 8, "unknown field 'extra'"),
    (_set("environment", "gpu", value=[1]), 21, "environment.gpu must be text or a whole number"),
    (_set("captured_at", value="yesterday"), 2, "captured_at must be a UTC time"),
    (_set("cells", 0, "name", value="Not A Name"), 5, "is not a cell name"),
])
def test_invalid_fields_name_file_line_and_field(tmp_path, edit, line, words):
    error = _error(_rewrite(tmp_path, edit))
    assert words in str(error)
    assert error.line == line, str(error)


def test_nan_time_is_an_error_with_its_line(tmp_path):
    path = tmp_path / "a.out.json"
    path.write_text(store.dumps(CAPTURE).replace('"wall_time_s": 1.5', '"wall_time_s": NaN'))
    error = _error(path)
    assert "NaN is not a number JSON allows" in str(error) and error.line == 16


@pytest.mark.parametrize("edit", [
    _set("cells", 0, "outputs", 0, "text", value=["a\n", "B\n"]),  # the output
    _set("environment", "gpu", value="NVIDIA H200"),  # the provenance
    _set("captured_at", value="2026-11-23T10:00:00Z"),
    _set("cells", 0, "wall_time_s", value=0.5),
])
def test_a_hand_edit_no_longer_matches_the_digest(tmp_path, edit):
    error = _error(_rewrite(tmp_path, edit, redigest=False))
    assert "edited by hand — recapture" in str(error)


def test_outputs_are_world_readable(tmp_path):
    path = tmp_path / "a.out.json"
    store.save(CAPTURE, path)
    assert path.stat().st_mode & 0o777 == 0o644
