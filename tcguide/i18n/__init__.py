"""Translations: which English version each page follows and whether it still matches, what changed in
English since (from git), the new-language scaffold, and heading anchors shared by all languages."""
