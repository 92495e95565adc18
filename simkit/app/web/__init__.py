"""The browser app behind ``simkit serve``: the advisor, the hand viewer and
compare as pages, on the same functions the command line answers with
(:mod:`simkit.app.answers`).  :mod:`simkit.app.web.server` is the app (the API,
and the server's start and stop); :mod:`~simkit.app.web.limits` holds what a
request may carry, :mod:`~simkit.app.web.jobs` the runs and jobs behind the
answers, :mod:`~simkit.app.web.pages` the pages and files.  ``static/`` holds
the pages (plain HTML, CSS and JavaScript, no build step, no network): one
shell, ``page.html``, filled with each page's own parts.
"""
