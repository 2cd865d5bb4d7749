"""What ``make serve`` watches, and how often it looks.

MkDocs' dev server rebuilds the site when a file it watches changes: docs/, mkdocs.yml (and the
theme's folders with ``--watch-theme``). The guide's pages also show the snippet files, their captured
outputs and the claims, so those folders are watched too.

The server finds a change by polling the watched folders every half second (watchdog's polling
observer: MkDocs chose polling because native file events miss changes on some mounted file systems),
so a rebuild started a quarter of a second after an edit on average, half a second at worst, once
the build itself took longer than that. The watched paths move to an observer that polls every tenth
of a second: still polling, so it sees what MkDocs' own sees, for a few hundred ``stat`` calls a poll.
Only the public side of the server is used: ``watch``, ``unwatch`` and its ``observer``, which it
starts when it starts serving.
"""

from __future__ import annotations

from pathlib import Path

POLL_SECONDS = 0.1


def watch(server, config, folders: list[Path]):
    """The server watching what MkDocs had it watch and ``folders``, each polled every ``POLL_SECONDS``."""
    from watchdog.observers.polling import PollingObserver

    ours = [str(folder) for folder in folders if folder.exists()]
    theirs = [path for path in [config.docs_dir, config.config_file_path, *config.theme.dirs]
              if path and _unwatched(server, path)]
    server.observer = PollingObserver(timeout=POLL_SECONDS)
    for path in theirs + ours:
        server.watch(path)
    return server


def _unwatched(server, path: str) -> bool:
    """Take a path off the server's observer; False if the server was not watching it."""
    try:
        server.unwatch(path)
    except KeyError:
        return False
    return True
