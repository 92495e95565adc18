"""Studies: one module per question, each turning simulations into tables,
figures and plain-language findings.

``STUDIES`` maps a study's name (the slug of its report directory and the
name ``simkit report`` accepts) to its module.  Modules are imported only when
their study is run (:func:`simkit.report.run_studies`), so listing a study
costs nothing.

The contract of a study module::

    NAME: str            # the key it has in STUDIES, e.g. "pepper-bids"
    TITLE: str           # the report's title
    DEFAULT_HANDS: int   # default size; the module docstring says what it
                         # counts (e.g. hands per simulated table) and the
                         # default run takes about a minute at most on 2 cores

    def run(hands: int | None = None, seed: int = 0, progress: bool = False,
            threads: int | None = None) -> simkit.report.StudyResult: ...

``run`` simulates (``hands`` or ``DEFAULT_HANDS``; every random number from
``seed``, so the same arguments give the same tables whatever ``threads``),
aggregates, and returns a :class:`~simkit.report.StudyResult` named ``NAME``:
summary sentences computed from its tables (no numbers typed in by hand),
tables with documented columns in which every estimate carries its sample
size and 95% interval, figures with captions, method notes, and provenance
from :func:`simkit.report.provenance` (seed, sizes, rules, policies, run
time; code and library versions are added there).  With ``progress`` it may
show progress bars (on stderr), otherwise it is silent.  It writes no files:
:func:`simkit.report.render` does.  Bad arguments raise
:class:`simkit.errors.InputError`.
"""

STUDIES: dict[str, str] = {
    "pepper-bids": "analyses.pepper_bids",
    "pepper-kubwa": "analyses.pepper_kubwa",
    "pepper-variants": "analyses.pepper_variants",
    "pitch-payouts": "analyses.pitch_payouts",
    "shiesta-strategy": "analyses.shiesta_strategy",
    "burraco-scoring": "analyses.burraco_scoring",
}
