"""The front ends: the ``simkit`` command (``cli``, ``options``), the browser app
(``web``), the HTML reports (``report``), and what both ask of the library
(``answers``, ``glossary``)."""
