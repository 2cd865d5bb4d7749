"""Tooling of the torch.compile guide, a folder per concern; imports run only downward:

    cli ─→ site ─→ i18n, notebooks ─→ core
     └──→ capture ──────────────────────↗

- ``core``: snippet files, the store, freshness, the environment record, the catalog,
  directives, glue, claims and check (stdlib only);
- ``capture``: the capture driver and runner, run on the GPU machine (stdlib only, no MkDocs);
- ``site``: the MkDocs plugin and what it renders;
- ``i18n``: translation status, the new-language scaffold, heading anchors;
- ``notebooks``: chapters as Jupyter notebooks;
- ``cli``: ``python3 -m tcguide <command>``.

``tests/test_layout.py`` holds the package to this.
"""
