"""The core: snippet files, the store of captured outputs, freshness, the environment record, the
catalog of embedded cells, directives, glue and claims, errors and labels. Stdlib only; imports
nothing from the other folders."""
