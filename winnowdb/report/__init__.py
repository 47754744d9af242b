"""Stage 6 of the data flow: results shown to people and written for programs.

* ``escape``: characters a screen would act on, made visible (terminal and HTML);
* ``paths``: paths as a person reads them (relative, shortened below a shared folder);
* ``lines``: line numbers of character offsets;
* ``writers``: JSON and CSV on standard output, streamed;
* ``tables``: rows as a rich table, or through ``writers``;
* ``compare_view``, ``stats_view``: what ``compare`` and ``stats`` print;
* ``html_data`` and ``html``: the HTML report's content and its rendering (``templates/``).
"""
