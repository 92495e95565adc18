"""The skeleton every study follows, and helpers shared by the studies:
proportions with their intervals, number formatting for summary sentences,
interval error bars and panels of differences.

A study module declares its parts once, as a :class:`Study` named ``STUDY``
(see the contract in :mod:`analyses`), and its ``run`` is ``STUDY.run``:
check the arguments, simulate the tables, compute the findings from them, draw
each figure with its own function, and assemble the
:class:`~simkit.study.StudyResult`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from simkit import study
from simkit.base import stats
from simkit.base.plots import use_file_backend
from simkit.base.stats import Values
from simkit.study import StudyResult, check_args

__all__ = [
    "GameStudy",
    "Plot",
    "Study",
    "cell",
    "check_args",
    "diff_cols",
    "difference_panels",
    "draw",
    "errorbar",
    "finish",
    "int_groups",
    "percent",
    "player_color",
    "proportion",
    "row_at",
    "signed",
]

Tables = Mapping[str, pd.DataFrame]
#: A colour as matplotlib's colour maps give it: red, green, blue, alpha.
RGBA = tuple[float, float, float, float]


# ---------------------------------------------------------------- the skeleton

@dataclass(frozen=True)
class Plot:
    """One figure of a study: its file name, its caption, and the function
    that draws it from the study's tables (and nothing else)."""

    name: str
    caption: str
    draw: Callable[[Tables], Figure]


def draw(plots: Sequence[Plot], tables: Tables) -> dict[str, Figure]:
    """Each plot's figure by name, in order, drawn for files
    (:func:`simkit.base.plots.use_file_backend`).  Should one fail, those already
    drawn are closed before the error goes on."""
    use_file_backend()
    figures: dict[str, Figure] = {}
    try:
        for plot in plots:
            figures[plot.name] = plot.draw(tables)
    except BaseException:
        for fig in figures.values():
            plt.close(fig)
        raise
    return figures


def _given(value: Any, hands: int, seed: int) -> Any:
    """A constant, or what a function of (hands, seed) gives."""
    return value(hands, seed) if callable(value) else value


@dataclass(frozen=True)
class Study:
    """What a study consists of; :meth:`run` runs it.

    ``simulate(hands, seed, progress, threads)`` returns the tables by name
    (in page order) from checked arguments; ``findings(tables)`` the summary
    sentences, computed from the tables only; ``figures`` the :class:`Plot`
    of each figure, in page order; ``provenance(hands)`` the keywords of
    :func:`simkit.study.provenance` other than ``seed``, ``started`` and
    ``threads`` (sizes, rules, policies, extras); ``descriptions`` (table
    name -> text) and ``notes`` are constants or functions of (hands, seed);
    ``size`` says what ``hands`` counts (``simkit report --list``);
    ``kernels`` names the warm-up steps (:mod:`simkit.bygame.warm`, ``GAME:STEP``)
    whose kernels it runs, compiled ahead by :func:`analyses.run_studies`.
    """

    name: str
    title: str
    default_hands: int
    simulate: Callable[[int, int, bool, int | None], dict[str, pd.DataFrame]]
    findings: Callable[[Tables], list[str]]
    figures: Sequence[Plot]
    provenance: Callable[[int], dict[str, Any]]
    descriptions: Mapping[str, str] | Callable[[int, int], Mapping[str, str]] = field(
        default_factory=dict)
    notes: Sequence[str] | Callable[[int, int], Sequence[str]] = ()
    size: str = "hands per table"
    kernels: Sequence[str] = ()

    def run(self, hands: int | None = None, seed: int = 0, progress: bool = False,
            threads: int | None = None) -> StudyResult:
        """Check the arguments (``hands`` None is ``default_hands``), simulate,
        find, draw, and return the :class:`~simkit.study.StudyResult`; the
        provenance's run time covers all of it."""
        started = time.perf_counter()
        hands = self.default_hands if hands is None else hands
        check_args(hands, seed, threads)
        hands, seed = int(hands), int(seed)
        tables = self.simulate(hands, seed, progress, threads)
        summary = self.findings(tables)
        descriptions = dict(_given(self.descriptions, hands, seed))
        notes = list(_given(self.notes, hands, seed))
        about = self.provenance(hands)
        if not about.get("policies"):           # every report says who played
            raise ValueError(f"study {self.name} does not say which policies played")
        figures = draw(self.figures, tables)     # last, so that no failure leaves them open
        return StudyResult(
            name=self.name, title=self.title, summary=summary, tables=tables, figures=figures,
            captions={plot.name: plot.caption for plot in self.figures},
            descriptions=descriptions, notes=notes,
            provenance=study.provenance(seed=seed, **about, threads=threads, started=started))



@dataclass
class GameStudy:
    """A study made once per game from the game's name and its setup (the policy
    ladders, the tuning studies): a subclass's ``__post_init__`` sets ``NAME``,
    ``TITLE``, ``DEFAULT_HANDS`` and ``STUDY``, so that each instance has the
    attributes a study module has (the contract of :mod:`analyses`)."""

    game: str
    setup: Any
    NAME: str = field(init=False)
    TITLE: str = field(init=False)
    DEFAULT_HANDS: int = field(init=False)
    STUDY: Study = field(init=False)

    def run(self, hands: int | None = None, seed: int = 0, progress: bool = False,
            threads: int | None = None) -> StudyResult:
        """The study (see :class:`Study`)."""
        return self.STUDY.run(hands, seed, progress, threads)

# ---------------------------------------------------------------- numbers

def row_at(frame: pd.DataFrame, label: Hashable) -> pd.Series:
    """The row of ``frame`` labelled ``label`` (``frame.loc[label]`` where the label is
    unique, typed as the one row it is: pandas-stubs types ``.loc`` of a label as
    a row or a frame); a KeyError if it is missing or not unique."""
    at = frame.index.get_loc(label)
    if not isinstance(at, (int, np.integer)):
        raise KeyError(f"{label!r} labels more than one row")
    return frame.iloc[int(at)]


def int_groups(frame: pd.DataFrame, column: str,
               sort: bool = True) -> Iterator[tuple[int, pd.DataFrame]]:
    """``frame.groupby(column, sort=sort)`` for a column of whole numbers (a player
    count, a seat), each key as an int (pandas-stubs types a key as any scalar)."""
    for key, group in frame.groupby(column, sort=sort):
        if not isinstance(key, (int, np.integer)):
            raise TypeError(f"{column} holds {key!r}, not a whole number")
        yield int(key), group


def cell(frame: pd.DataFrame, label: Hashable, column: str) -> float:
    """The number in row ``label`` (see :func:`row_at`) and ``column`` of ``frame``,
    as a float (pandas-stubs types a cell as any scalar pandas holds)."""
    return float(row_at(frame, label)[column])


def proportion(k: Values, n: Values) -> tuple[Any, Any, Any]:
    """``(k / n, lo, hi)`` with the Clopper-Pearson 95% interval; NaN where n is 0."""
    lo, hi = stats.proportion_ci(k, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(k, float) / np.asarray(n, float), lo, hi


def diff_cols(name: str, d: Mapping[str, float] | None) -> dict[str, float]:
    """The columns ``<name>_diff``, its interval and p-value, from a result of
    :func:`simkit.base.stats.compare_proportions` or :func:`~simkit.base.stats.compare_means`;
    NaN for None (a baseline row, compared with nothing)."""
    if d is None:
        d = dict.fromkeys(("diff", "lo", "hi", "p_value"), math.nan)
    return {f"{name}_diff": d["diff"], f"{name}_diff_ci_low": d["lo"],
            f"{name}_diff_ci_high": d["hi"], f"{name}_p_value": d["p_value"]}


def signed(x: float, k: int) -> str:
    """``x`` with ``k`` decimals, its sign always shown (a true minus sign)."""
    return f"{x:+.{k}f}".replace("-", "\u2212") if math.isfinite(x) else "n/a"


def percent(p: float, lo: float, hi: float, n: float | None = None) -> str:
    """A proportion as a percentage with its 95% interval (and n): enough decimals
    to tell the interval's ends apart, two significant digits for rates below 1%."""
    if not math.isfinite(p):
        return f"n/a (n={int(n or 0):,})"
    k = 1
    if 0 < 100 * p < 1:
        k = min(1 - math.floor(math.log10(100 * p)), 4)
    while k < 4 and math.isfinite(lo) and round(100 * lo, k) == round(100 * hi, k) and hi > lo:
        k += 1
    tail = f", n={int(n):,}" if n is not None else ""
    return f"{100 * p:.{k}f}% (95% CI {100 * lo:.{k}f}-{100 * hi:.{k}f}%{tail})"


# ---------------------------------------------------------------- drawing

def errorbar(ax: Axes, x: ArrayLike, y: ArrayLike, lo: ArrayLike, hi: ArrayLike,
             **kw: Any) -> ErrorbarContainer:
    """Points at ``y`` with bars from ``lo`` to ``hi`` (missing ends drawn as none)."""
    y, lo, hi = (np.asarray(v, float) for v in (y, lo, hi))
    yerr = np.nan_to_num(np.vstack([y - lo, hi - y]))
    return ax.errorbar(x, y, yerr=yerr, capsize=3, marker="o", ms=4, **kw)


def player_color(players: int, counts: Sequence[int], pad: float) -> RGBA:
    """The colour of a player count: viridis from the smallest of ``counts``
    (dark) up, ``pad`` keeping the largest off the light end."""
    return plt.get_cmap("viridis")((players - counts[0]) / (len(counts) - pad))


def finish(fig: Figure, axes: Iterable[Axes], xlabel: str, title: str) -> Figure:
    """Label each panel's x axis and draw its grid, title the figure and lay it out."""
    for ax in axes:
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def difference_panels(rows: pd.DataFrame, names: Sequence[str],
                      panels: Sequence[tuple[str, float, str]], width: float,
                      title: str) -> Figure:
    """A figure of differences from a baseline, one row of ``rows`` per line
    (labelled ``names``, top down) and one panel per ``(column, scale,
    xlabel)``: ``<column>_diff`` times ``scale`` with its 95% interval, red
    where ``<column>_p_value`` is below 0.05."""
    fig, axes = plt.subplots(1, len(panels), figsize=(width, 0.45 * len(rows) + 2.5),
                             sharey=True)
    y = np.arange(len(rows))
    for ax, (col, scale, xlabel) in zip(axes, panels):
        d = rows[f"{col}_diff"].to_numpy(float) * scale
        lo = rows[f"{col}_diff_ci_low"].to_numpy(float) * scale
        hi = rows[f"{col}_diff_ci_high"].to_numpy(float) * scale
        sig = rows[f"{col}_p_value"].to_numpy(float) < 0.05
        ax.errorbar(d, y, xerr=np.nan_to_num(np.vstack([d - lo, hi - d])), fmt="none",
                    ecolor="grey", capsize=3)
        ax.scatter(d, y, c=np.where(sig, "tab:red", "tab:grey"), zorder=3)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    axes[0].set_yticks(y, names)
    axes[0].invert_yaxis()
    fig.suptitle(title)
    fig.tight_layout()
    return fig
