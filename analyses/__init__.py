"""Studies: one module per question, each turning simulations into tables,
figures and plain-language findings.

``STUDIES`` maps a study's name (the slug of its report directory and the
name ``simkit report`` accepts) to its module, or to ``module:object`` for a
study made once per game (the policy ladders: the object has the attributes
a study module has).  Modules are imported only when
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

Every study has the same skeleton, :class:`analyses.common.Study`: a module
declares its parts once, as ``STUDY = Study(NAME, TITLE, DEFAULT_HANDS, ...)``,
and its ``run`` is ``STUDY.run(hands, seed, progress, threads)``, which

1. checks the arguments (:func:`simkit.report.check_args`; ``hands`` None is
   ``DEFAULT_HANDS``): a bad one raises :class:`simkit.errors.InputError`
   before any work;
2. simulates: ``simulate_tables(hands, seed, progress, threads)`` returns the
   tables by name, in page order, each with documented columns and every
   estimate with its sample size and 95% interval; every random number comes
   from ``seed``, so the same arguments give the same tables whatever
   ``threads``, and ``progress`` may show progress bars (on stderr);
3. finds: ``findings(tables)`` returns the summary sentences, computed from the
   tables only (no numbers typed in by hand);
4. draws: ``FIGURES`` is a tuple of :class:`analyses.common.Plot`, one per
   figure in page order: its name, its caption and the one function that
   draws it from the tables.  Drawing uses the backend that
   :func:`simkit.report.use_file_backend` selects then: importing a study
   changes no backend;
5. assembles the :class:`~simkit.report.StudyResult` named ``NAME`` with the
   table descriptions and method notes (constants, or functions of hands and
   seed) and the provenance from :func:`simkit.report.provenance`: seed,
   threads and run time from the skeleton, sizes, rules, policies and extras
   from the module's ``_provenance(hands)``; code and library versions are
   added there.

``run`` writes no files: :func:`simkit.report.render` does.
"""

STUDIES: dict[str, str] = {
    "pepper-bids": "analyses.pepper_bids",
    "pepper-kubwa": "analyses.pepper_kubwa",
    "pepper-variants": "analyses.pepper_variants",
    "pitch-payouts": "analyses.pitch_payouts",
    "shiesta-strategy": "analyses.shiesta_strategy",
    "burraco-scoring": "analyses.burraco_scoring",
    "pepper-policy-ladder": "analyses.policy_ladder:pepper",
    "pitch-policy-ladder": "analyses.policy_ladder:pitch",
    "shiesta-policy-ladder": "analyses.policy_ladder:shiesta",
    "burraco-policy-ladder": "analyses.policy_ladder:burraco",
}
