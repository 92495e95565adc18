"""The variant lab: rule variants compared on paired deals (``compare``), with
players re-fitted to each variant (``adapt``) and the measures a designer asks
for (``design``: balance, length, ``drama``, ``skill``)."""
