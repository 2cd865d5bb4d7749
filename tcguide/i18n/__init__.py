"""Translations: which English version each page follows and whether it still matches, the
new-language scaffold, and heading anchors shared by all languages."""
