"""What `make serve` watches and how often it looks (tcguide/site/serve.py), on MkDocs' own dev server."""

from types import SimpleNamespace

from mkdocs.livereload import LiveReloadServer

from tcguide.site import serve


def test_the_server_watches_its_paths_and_the_guides_folders_polled_every_tenth_of_a_second(tmp_path):
    docs, snippets, theme = tmp_path / "docs", tmp_path / "snippets", tmp_path / "theme"
    for folder in (docs, snippets, theme):
        folder.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path / "site"))
    try:
        server.watch(str(docs))  # what mkdocs serve watches before the plugins' on_serve
        server.watch(str(tmp_path / "mkdocs.yml"))
        before = {emitter.watch.path for emitter in server.observer.emitters}
        config = SimpleNamespace(docs_dir=str(docs), config_file_path=str(tmp_path / "mkdocs.yml"),
                                 theme=SimpleNamespace(dirs=[str(theme)]))  # the theme: watched with --watch-theme
        served = serve.watch(server, config, [snippets, tmp_path / "claims"])  # no claims folder: not watched
        assert served is server
        assert server.observer.timeout == serve.POLL_SECONDS == 0.1
        assert server.build_delay == serve.QUIET_SECONDS == 0.05
        assert {emitter.watch.path for emitter in server.observer.emitters} == before | {str(snippets)}
    finally:
        server.server_close()
