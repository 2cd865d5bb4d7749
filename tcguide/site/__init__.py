"""The MkDocs side: the plugin (a thin adapter over the modules below), the HTML of embedded cells,
search, figures, page heads, sitemaps and notebook pages. A move to another generator touches this
folder alone."""
