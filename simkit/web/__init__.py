"""The browser app behind ``simkit serve``: the advisor, the hand viewer and
compare as pages, on the same functions the command line answers with
(:mod:`simkit.answers`).  :mod:`simkit.web.server` is the app; ``static/``
holds the pages (plain HTML, CSS and JavaScript, no build step, no network).
"""
