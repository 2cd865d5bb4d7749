"""Chapters as Jupyter notebooks: built from a page and its cells (stdlib only), exported by the
CLI, and executed (nbclient)."""
