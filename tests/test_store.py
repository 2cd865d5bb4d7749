import json

import pytest

from tcguide import store
from tcguide.errors import GuideError

CAPTURE = store.Capture(
    snippet="snippets/a.py", source_sha256="abc", environment={"gpu": "G", "torch": "2.11.0"},
    captured_at="2026-11-22T10:00:00Z",
    cells=(store.CellRecord("c", ({"output_type": "stream", "name": "stdout", "text": "a\nb\n"},), 1.5),),
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
    ('{\n"format": "tcguide-capture/1",\n}', 3, "corrupt JSON"),
    ('[1]', 1, "not a JSON object"),
    ('{"format": "tcguide-capture/0"}', None, "format 'tcguide-capture/0'; this tooling reads 'tcguide-capture/1'"),
    ('{"format": "tcguide-capture/1"}', None, "corrupt (bad or missing field: 'cells')"),
])
def test_corrupt_or_foreign_files_are_clear_errors(tmp_path, content, line, words):
    path = tmp_path / "a.out.json"
    path.write_text(content)
    with pytest.raises(GuideError) as caught:
        store.load(path)
    assert caught.value.line == line
    assert words in str(caught.value)
    assert str(caught.value).startswith(str(path))


def test_output_missing_a_field_is_corrupt(tmp_path):
    doc = json.loads(store.dumps(CAPTURE))
    del doc["cells"][0]["outputs"][0]["text"]
    path = tmp_path / "a.out.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(GuideError, match="missing field: 'text'"):
        store.load(path)
