"""The variant lab: rule variants compared on paired deals (``compare``), with
players re-fitted to each variant (``adapt``), the skill trace (``skill``) and
rule search (``search``).  The designer's measures every game's summary
declares live below the games: :mod:`simkit.design` (balance, position,
length) and :mod:`simkit.base.drama` (who led)."""
