"""What every text a cell leaves goes through before it is stored: terminal semantics
(``terminal``), machine paths neutralised (``normalize``), and the file's caps, in that order."""

from __future__ import annotations

from tcguide.capture import terminal
from tcguide.capture.normalize import Normalizer


class Tidy:
    """Terminal semantics, machine paths neutralised, and the file's caps, in that order."""

    def __init__(self, normalize: Normalizer):
        self.normalize = normalize
        self.budget = terminal.Budget()

    def __call__(self, text: str) -> str:
        return self.budget.fit(self.normalize(terminal.tidy(text)))
