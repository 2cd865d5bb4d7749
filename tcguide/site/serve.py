"""What ``make serve`` watches, and how often it looks.

MkDocs' dev server rebuilds the site when a file it watches changes: docs/, mkdocs.yml (and the
theme's folders with ``--watch-theme``). The guide's pages also show the snippet files, their captured
outputs and the claims, so those folders are watched too.

The server finds a change by polling the watched folders every half second (watchdog's polling
observer: MkDocs chose polling because native file events miss changes on some mounted file systems),
then waits for a tenth of a second without another change before it builds: a rebuild started a
third of a second after an edit on average, six tenths at worst, once the build itself took about a
second and a half. The watched paths move to an observer that polls every tenth of a second (still
polling, so it sees what MkDocs' own sees, for a few hundred ``stat`` calls a poll, a millisecond),
and the wait for quiet is half a poll: the changes of one save (an editor that writes a file, then
renames it) are seen by the same poll. Only the public side of the server is used: ``watch``,
``unwatch``, its ``observer``, which it starts when it starts serving, and its ``build_delay``.
"""

from __future__ import annotations

from pathlib import Path

POLL_SECONDS = 0.1
QUIET_SECONDS = POLL_SECONDS / 2


def watch(server, config, folders: list[Path]):
    """The server watching what MkDocs had it watch and ``folders``, each polled every ``POLL_SECONDS``, and
    building once no change came for ``QUIET_SECONDS``."""
    from watchdog.observers.polling import PollingObserver

    ours = [str(folder) for folder in folders if folder.exists()]
    theirs = [path for path in [config.docs_dir, config.config_file_path, *config.theme.dirs]
              if path and _unwatched(server, path)]
    server.observer = PollingObserver(timeout=POLL_SECONDS)
    for path in theirs + ours:
        server.watch(path)
    server.build_delay = QUIET_SECONDS
    return server


def _unwatched(server, path: str) -> bool:
    """Take a path off the server's observer; False if the server was not watching it."""
    try:
        server.unwatch(path)
    except KeyError:
        return False
    return True
