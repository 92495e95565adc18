"""Pepper policies (seeds/pepper.md §7): ``random`` and the parameterised ``heuristic``.

Their decisions are written twice, readably in ``reference.py`` and fast in
``kernel.py``, held together by the differential tests; this module holds
the parameters, which the kernels read as rows indexed by :data:`PARAM`
(trick estimates in hundredths).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from simkit.base.config import Choice, Config, codes, layout, option
from simkit.base.errors import InputError
from simkit.policy import EXPERT, HEURISTIC, RandomParams, policies_maker

#: Tricks the heuristic adds to its hand estimate at each table size (by the
#: number of players) when ``tuned``: the best ``aggression`` of
#: ``simkit tune pepper --players N --param aggression=-1.5:1.5`` against the
#: hand-set heuristic, plus the best the same search finds against the tuned
#: one while it wins in whole games beyond its interval;
#: ``benchmarks/tuned_offsets.py`` runs both (seeds/pepper.md 7.2).
#: The optimum differs by table size, so it cannot be one ``aggression``.
TABLE_OFFSET: dict[int, float] = {2: 0.99, 3: 0.15, 4: -0.40}


def _offsets_text() -> str:
    """The offsets as ``tuned``'s help states them: from :data:`TABLE_OFFSET`."""
    return ", ".join(f"{v:+.2f} with {n}" for n, v in sorted(TABLE_OFFSET.items()))


class PolicyName(Choice):
    """Pepper's policies (seeds/pepper.md §7): the names :data:`POLICIES` registers."""

    HEURISTIC = "heuristic"
    EXPERT = "expert"
    RANDOM = "random"


class SlamPlay(Choice):
    """The declaring side's play in Ndogo and Kubwa while it has won every
    trick (seeds/pepper.md §7.2)."""

    PLAN = "plan"
    SIMPLE = "simple"


class Model(Choice):
    """What the expert's worlds are weighed by (seeds/pepper.md §7.3)."""

    TABLE = "table"
    VOIDS = "voids"


@dataclasses.dataclass(frozen=True)
class HeuristicParams(Config):
    """Parameters of the ``heuristic`` policy (estimates are in tricks; the
    kernels read them in hundredths, so both engines agree exactly)."""

    what = "heuristic parameter"
    KIND = HEURISTIC

    aggression: float = option(0.0, "tricks added to the hand estimate before it is rounded down "
                               "to a bid (negative: more cautious)", lo=-6.0, hi=6.0, scale=100)
    partner_help: float = option(0.75, "tricks expected from the partner (4 players only)",
                                 lo=0.0, hi=6.0, scale=100)
    kubwa_margin: int = option(0, "bid Kubwa when sure tricks fall short of all by at most this", lo=0, hi=8)
    kubwa_est: float = option(12.0, "also bid Kubwa when the hand estimate (with the partner's help, before aggression) reaches this many tricks: strong hands short of certain, whose chance of every trick may pay at a higher Kubwa stake (12: never, the old rule)", lo=4.0, hi=12.0, scale=100, span=6.5)
    draw_trumps: bool = option(True, "lead the top trump while opponents may still hold trumps")
    cover_third: bool = option(True, "4 players: when the partner's card wins so far but an "
                               "opponent still to play may beat it, win the trick with the "
                               "cheapest card nobody still to play can beat (false: always "
                               "play low under a winning partner, the old rule)")
    ndogo_lower: bool = option(True, "when Ndogo pays no more than T-1 made with every trick "
                               "(ndogo_stake 1), call T-1 instead of Ndogo unless an opponent "
                               "already holds T-1 (false: call Ndogo, the old rule)")
    slam_play: SlamPlay = option(SlamPlay.PLAN, "the declaring side's play in Ndogo and Kubwa while it has "
                            "won every trick: plan (draw trumps, cash side bosses, lead losers "
                            "to the partner keeping trumps as entries, win safely or as high as "
                            "possible) or simple (the ordinary play, the old rule)")
    keep_guards: bool = option(True, "a defender that cannot follow suit and does not win the "
                               "trick discards a side-suit card that beats none of the "
                               "declaring side's possible losers, keeping its guards (its "
                               "highest card of a suit in which a lower card is unseen and the "
                               "declaring side has not shown out; false: the lowest card, the "
                               "old rule)")
    tuned: bool = option(True, "add the table size's tuned offset to the hand estimate "
                         f"before it is rounded to a bid (7.2, in tricks by players: "
                         f"{_offsets_text()}; false: the hand-set estimate, the old rule)")


@dataclasses.dataclass(frozen=True)
class ExpertParams(HeuristicParams):
    """Parameters of the ``expert`` policy (seeds/pepper.md 7.3): it bids and
    names the trump as the heuristic, with the heuristic's parameters, and
    plays by perfect-information Monte Carlo over ``worlds`` deals of the
    cards it cannot see."""

    what = "expert parameter"
    KIND = EXPERT

    worlds: int = option(16, "deals of the unseen cards, consistent with what the seat has "
                         "seen, solved with every card visible for each card it may play "
                         "(0: the oracle, which sees the real deal: for measuring only)",
                         lo=0, hi=64)
    model: Model = option(Model.TABLE, "what the worlds are weighed by: table (the likelihood of the "
                         "other seats' calls, trump and cards under the table's own policies, "
                         "7.3 Inference) or voids (only the suits shown out of, every world "
                         "alike: the expert before inference)")
    particles: int = option(128, "model=table: worlds drawn and weighed at each card, of which "
                            "the `worlds` heaviest are solved (at least `worlds`)",
                            lo=1, hi=1024)
    trust: float = option(0.1, "model=table: epsilon, the chance the model gives a seat of "
                          "acting off its policy, spread over its legal actions (0: a surprise "
                          "rules a world out; 1: every action alike, as voids)",
                          lo=0.0, hi=1.0, scale=1000)
    calls: bool = option(False, "model=table: weigh the other seats' bids and passes too, each "
                         "against the call its policy makes in the world (false: only the "
                         "bidder's trump and the cards)")
    redraw: int = option(0, "model=table: while the effective sample size of the weights is "
                         "below half of particles, draw particles more worlds, at most this "
                         "many times (0: never)", lo=0, hi=8)
    enumerate: bool = option(True, "model=table: when the deals of the unseen cards that fit "
                             "the voids are at most particles, weigh every one of them instead "
                             "of drawing (nothing drawn)")

    def check(self) -> None:
        if self.model is Model.TABLE and 0 < self.particles < self.worlds:
            raise InputError(f"bad value {self.particles!r} for expert parameter 'particles': "
                             f"expected at least worlds ({self.worlds})")


POLICIES: dict[str, type[Config]] = {PolicyName.HEURISTIC: HeuristicParams,
                                     PolicyName.EXPERT: ExpertParams,
                                     PolicyName.RANDOM: RandomParams}
#: Named settings (``--policy NAME``): ``classic`` is the heuristic as it was
#: before cover_third, ndogo_lower, slam_play, keep_guards and tuned, and
#: ``untuned`` the default heuristic before tuned (seeds/pepper.md 7.2).
NAMED: dict[str, str] = {
    "classic": "heuristic:cover_third=false,ndogo_lower=false,slam_play=simple,keep_guards=false,"
               "tuned=false",
    "untuned": "heuristic:tuned=false",
}
make_policies = policies_maker(POLICIES, default=PolicyName.HEURISTIC, named=NAMED)
#: The parameter layout the kernel reads (every policy's fields fit in it).
LAYOUT = ExpertParams

#: Where each parameter sits in a kernel's params row (the expert's are the
#: heuristic's, ``worlds``, ``model``, ``particles``, ``trust``, ``calls``,
#: ``redraw`` and ``enumerate``).
PARAM: Any = layout(ExpertParams, "PARAM")      # Any: an IntEnum made at run time
#: The kernels' names of the options' values: IntEnums, whose members numba reads as
#: constants (:func:`simkit.base.config.codes`).
SlamPlayCode, ModelCode = codes(SlamPlay, Model)


def hundredths(tricks: float) -> int:
    """Trick estimates are integers in hundredths, so both engines agree exactly."""
    return round(tricks * 100)
