"""Studies: one module per question, each turning simulations into tables,
figures and plain-language findings.

``STUDIES`` maps a study's name (the slug of its report directory and the
name ``simkit report`` accepts) to its module, or to ``module:object`` for a
study made once per game (the policy ladders: the object has the attributes
a study module has).  Modules are imported only when
their study is loaded (:func:`load_study`), so listing a study's name costs
nothing.  :func:`run_studies` runs studies by name and yields their results,
which ``simkit report`` renders (:func:`simkit.app.report.render_all`).  This
package is the studies' layer: it imports the library below the command
line, and nothing in ``simkit/`` but the command line imports it.

The contract of a study module::

    NAME: str            # the key it has in STUDIES, e.g. "pepper-bids"
    TITLE: str           # the report's title
    DEFAULT_HANDS: int   # default size; the module docstring says what it
                         # counts (e.g. hands per simulated table) and the
                         # default run takes about a minute at most on 2 cores
    HELD_BYTES: int      # optional: the bytes each hand takes where the study
                         # holds them all at once (``--hands`` is then capped by
                         # the machine's memory); absent, it plays in batches

    def run(hands: int | None = None, seed: int = 0, progress: bool = False,
            threads: int | None = None) -> simkit.study.StudyResult: ...

Every study has the same skeleton, :class:`analyses.common.Study`: a module
declares its parts once, as ``STUDY = Study(NAME, TITLE, DEFAULT_HANDS, ...)``,
and its ``run`` is ``STUDY.run(hands, seed, progress, threads)``, which

1. checks the arguments (:func:`simkit.study.check_args`; ``hands`` None is
   ``DEFAULT_HANDS``): a bad one raises :class:`simkit.base.errors.InputError`
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
   :func:`simkit.base.plots.use_file_backend` selects then: importing a study
   changes no backend;
5. assembles the :class:`~simkit.study.StudyResult` named ``NAME`` with the
   table descriptions and method notes (constants, or functions of hands and
   seed) and the provenance from :func:`simkit.study.provenance`: seed,
   threads and run time from the skeleton, sizes, rules, policies and extras
   from the module's ``_provenance(hands)``; code and library versions are
   added there.

``run`` writes no files: :func:`simkit.app.report.render` does.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

from simkit.base.errors import InputError
from simkit.bygame import warm
from simkit.runs.batches import check_held, max_threads
from simkit.study import StudyResult, check_args

STUDIES: dict[str, str] = {
    "pepper-bids": "analyses.pepper_bids",
    "pepper-kubwa": "analyses.pepper_kubwa",
    "pitch-payouts": "analyses.pitch_payouts",
    "shiesta-strategy": "analyses.shiesta_strategy",
    "burraco-scoring": "analyses.burraco_scoring",
    "pepper-policy-ladder": "analyses.policy_ladder:pepper",
    "pitch-policy-ladder": "analyses.policy_ladder:pitch",
    "shiesta-policy-ladder": "analyses.policy_ladder:shiesta",
    "burraco-policy-ladder": "analyses.policy_ladder:burraco",
    "pepper-tuning": "analyses.tuning:pepper",
    "pitch-tuning": "analyses.tuning:pitch",
    "shiesta-tuning": "analyses.tuning:shiesta",
    "burraco-tuning": "analyses.tuning:burraco",
    "pepper-variants": "analyses.variants:pepper",
    "pitch-variants": "analyses.variants:pitch",
    "shiesta-variants": "analyses.variants:shiesta",
    "burraco-variants": "analyses.variants:burraco",
    "pepper-rule-search": "analyses.rule_search:pepper",
    "pitch-rule-search": "analyses.rule_search:pitch",
    "shiesta-rule-search": "analyses.rule_search:shiesta",
    "burraco-rule-search": "analyses.rule_search:burraco",
}


def load_study(name: str) -> Any:
    """The study ``name``: its module, or for an entry ``module:attr`` of
    :data:`STUDIES` that module's object (a study made per game)."""
    module, _, attr = STUDIES[name].partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


def resolve_studies(names: str | Iterable[str] | None) -> list[str]:
    """Study names in order, without repeats; ``"all"`` (or none given) is every study,
    and a game's name (``"pitch"``) is every study of that game (``pitch-*``).

    An unknown name is an :class:`InputError` naming it and the accepted names.

    >>> resolve_studies(["pitch", "pepper-bids", "PITCH-payouts"])[-3:]
    ['pitch-variants', 'pitch-rule-search', 'pepper-bids']
    >>> resolve_studies("pitch")[0]
    'pitch-payouts'
    """
    if names is None or isinstance(names, str):
        names = [] if names is None else [names]
    names = [str(n).strip().lower() for n in names] or ["all"]
    out: list[str] = []
    for n in names:
        of_game = [m for m in STUDIES if m.startswith(n + "-")]
        if n not in STUDIES and n != "all" and not of_game:
            games = sorted({m.split("-")[0] for m in STUDIES})
            raise InputError(f"unknown study {n!r}: expected {', '.join(STUDIES)}, a game "
                             f"({', '.join(games)}) or all")
        for m in (STUDIES if n == "all" else of_game if n not in STUDIES else [n]):
            if m not in out:
                out.append(m)
    return out


def _compile_ahead(kernels: list[str], threads: int | None, progress: bool) -> None:
    """Compile the studies' kernels in one process per core (:mod:`simkit.bygame.warm`)
    before the first study runs: on a fresh install they would otherwise
    compile one after another on one core.  Nothing to do with one thread."""
    processes = min(max_threads(), threads or max_threads())
    if processes < 2 or not kernels:
        return
    t0 = time.perf_counter()
    if progress:
        print(f"loading the kernels ({processes} processes; a first run compiles them: "
              "minutes)", file=sys.stderr, flush=True)
    warm.warm(kernels, processes)
    if progress:
        print(f"kernels ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)


def run_studies(names: str | Iterable[str] | None, hands: int | None = None, seed: int = 0,
                progress: bool = True, threads: int | None = None) -> Iterator[StudyResult]:
    """Run studies by name, one after another, yielding each one's result (for
    :func:`simkit.app.report.render_all`, which renders each as it comes and
    then the index: ``simkit report``).

    ``names``: study names from :data:`STUDIES`, or ``"all"`` (also the
    meaning of None or an empty list).  ``hands`` overrides each study's
    ``DEFAULT_HANDS``.  All arguments are checked before the first result:
    an unknown study, ``hands < 1``, or a bad seed or thread count is an
    :class:`InputError`.
    """
    todo = resolve_studies(names)
    modules = {n: load_study(n) for n in todo}
    for n, mod in modules.items():
        if getattr(mod, "NAME", None) != n:
            raise RuntimeError(f"study {STUDIES[n]} has NAME "
                               f"{getattr(mod, 'NAME', None)!r}, expected {n!r}")
        if hands is not None and getattr(mod, "HELD_BYTES", None):
            check_held(hands, f"--hands for {n}", mod.HELD_BYTES)
    check_args(hands, seed, threads)
    return _run(todo, modules, hands=hands, seed=seed, progress=progress, threads=threads)


def _run(todo: list[str], modules: dict[str, Any], *, hands: int | None, seed: int,
         progress: bool, threads: int | None) -> Iterator[StudyResult]:
    """:func:`run_studies`' work, once its arguments are checked."""
    from tqdm import tqdm

    _compile_ahead([k for n in todo for k in modules[n].STUDY.kernels], threads, progress)
    with tqdm(todo, desc="studies", unit="study", disable=not progress,
              dynamic_ncols=True) as bar:
        for n in bar:
            mod = modules[n]
            size = hands if hands is not None else mod.DEFAULT_HANDS
            bar.set_description(f"study {n}")
            if progress:
                bar.write(f"{n}: {mod.TITLE} (hands={size:,}, seed={seed})")
            yield mod.run(hands=hands, seed=seed, progress=progress, threads=threads)
