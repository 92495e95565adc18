"""The ``simkit`` command's options: one argparse parser for every command.

The command line (:mod:`simkit.app.cli`) runs what it parses; the web app parses
a query's options with the same parser (:func:`simkit.app.answers.parse`), so an
option means the same, and is checked the same way, whichever way it comes.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from simkit import games
from simkit.base.errors import InputError


class _Once(argparse._StoreAction):
    """An option that takes one value: given twice, it is refused (argparse
    would keep the last one silently)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault(_GIVEN, set())
        if option_string is not None and self.dest in given:
            parser.error(f"{option_string} is given twice ({getattr(namespace, self.dest)!r} "
                         f"and {values!r}): give it once")
        given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


_GIVEN = "_options_given"       # the single-valued options seen, dropped after parsing


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2, and
    refuses a single-valued option given twice."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)
        self.register("action", "store", _Once)

    def parse_known_args(  # type: ignore[override]  # argparse's stub overloads it
            self, args: Sequence[str] | None = None,
            namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        ns, extras = super().parse_known_args(args, namespace)
        ns.__dict__.pop(_GIVEN, None)
        return ns, extras

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{message} (see '{self.prog} --help')")


if TYPE_CHECKING:
    #: The subcommands of :func:`build_parser`.
    _Commands = argparse._SubParsersAction[_Parser]


#: The most digits a whole number on the command line may have (every count and
#: seed is far shorter; Python refuses to read more than 4,300).
MAX_DIGITS = 30


def _integer(text: str) -> int:
    """A whole number as typed: ASCII digits, a minus sign allowed, nothing else
    (``int`` would also take spaces, ``+``, other scripts' digits, ``"\uff11\uff10"``,
    and underscores)."""
    if not re.fullmatch(r"-?[0-9]+", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (ASCII digits, "
                                         f"e.g. 1000)")
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"{text[:12]}... ({len(text):,} characters) is too "
                                         f"large: at most {MAX_DIGITS} digits")
    return int(text)


def _whole(text: str, lo: int) -> int:
    value = _integer(text)
    if value < lo:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least {lo}")
    return value


def _positive(text: str) -> int:
    return _whole(text, 1)


def _at_most(most: int, what: str) -> Callable[[str], int]:
    """A type: a whole number from 1 to ``most`` (``what`` says why the cap)."""
    def check(text: str) -> int:
        value = _whole(text, 1)
        if value > most:
            raise argparse.ArgumentTypeError(f"{text!r}: expected 1 to {most:,} ({what})")
        return value
    return check


#: The most settings one tune tries (each is a whole tournament).
MAX_TRIALS = 100_000
#: The most rounds of one adaptation, and adaptations of one variant, that
#: compare --adapt takes.
MAX_ROUNDS, MAX_SEEDS = 50, 16
#: The most hands or games one trial of a search plays (tune's --hands/--games,
#: compare's --adapt-games): a trial of that many already takes hours.
MAX_TRIAL_DEALS = 100_000_000
#: The most records ``show --where`` prints.
MAX_LIMIT = 10_000


def _index(text: str) -> int:
    """A unit's number in a run: below the streams a run has (``rng.MAX_STREAMS``)."""
    from simkit.base.rng import MAX_STREAMS

    value = _whole(text, 0)
    if value >= MAX_STREAMS:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number from 0 to "
                                         f"{MAX_STREAMS - 1} (2**44 - 1)")
    return value


def _seed(text: str) -> int:
    value = _integer(text)
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 0 to 2**64-1")
    return value


def _port(text: str) -> int:
    value = _integer(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a port from 1 to 65535")
    return value


def _game(text: str) -> str:
    try:
        return games.check(text)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


_GAME_HELP = "the game: " + ", ".join(games.GAMES)
_POLICY_HELP = "policy for every seat, or repeat once per seat"


def _rules_options(p: argparse.ArgumentParser, policy_help: str = _POLICY_HELP) -> None:
    p.add_argument("--players", type=_integer, help="number of players")
    p.add_argument("--preset", default="seed", help="named rule set (see 'simkit rules GAME')")
    p.add_argument("--rules", metavar="FILE.toml", help="rule values from a TOML file")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="override one rule (repeatable)")
    p.add_argument("--policy", metavar="NAME[:k=v,...]", action="append", help=policy_help)


def _backend_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--chunk", type=_positive,
                   help="hands (or games) per chunk, the unit of resuming and of work "
                        "(default: 1000000 hands, 100000 games, 10000000 aggregated hands)")
    p.add_argument("--backend", choices=("threads", "dask"),
                   help="threads (default: this process, all cores) or dask (a local "
                        "dask.distributed cluster, or --scheduler)")
    p.add_argument("--workers", type=_positive,
                   help="--backend dask: local worker processes (default: one per core)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="--backend dask: use this existing cluster (--out must be on a "
                        "filesystem every worker shares)")


@dataclass(frozen=True)
class _Run:
    """The words of a command that plays runs at one game's table."""

    about: str                      # its line in 'simkit --help'
    hands: str                      # what its --hands counts
    games: str                      # what its --games counts
    policy: str = _POLICY_HELP      # what a --policy is to it


_RUNS = {
    "simulate": _Run(
        about="play hands or whole games, write Parquet, print a summary",
        hands="hands to play (default 100000; for games played in hands)",
        games="whole games to play instead of hands (what a game's records count: see "
              "'simkit rules GAME')"),
    "tournament": _Run(
        about="policies against each other on duplicate deals: ratings, pairwise "
              "differences, a figure",
        hands="deals every table plays (default 100000; for games played in hands)",
        games="whole games every table plays instead (default 20000 for games played "
              "only in whole games)",
        policy="an entrant (repeat: at least two); a policy plays every seat of its side "
               "at its tables"),
    "tune": _Run(
        about="search a policy's parameters against a field on duplicate deals, then "
              "confirm the best on fresh deals",
        hands="duplicate deals each trial plays against each policy of the field "
              "(default 20000, Burraco 1000)",
        games="whole games instead (default 1000 for games played only in whole games)",
        policy="the policy tuned, with any parameters held fixed (default: the game's "
               "default policy)"),
}


def _size_options(p: argparse.ArgumentParser, command: str) -> None:
    """--hands or --games (one of them): how much a run of ``command`` plays."""
    size = p.add_mutually_exclusive_group()
    # every trial of a tune plays them: capped, as compare's --adapt-games is
    count = (_at_most(MAX_TRIAL_DEALS, "every trial plays them") if command == "tune"
             else _positive)
    size.add_argument("--hands", type=count, help=_RUNS[command].hands)
    size.add_argument("--games", type=count, help=_RUNS[command].games)


def _run_options(p: argparse.ArgumentParser, *, progress: bool = True,
                 json_out: bool = False) -> None:
    """--seed and --threads, and --no-progress and --json where the command has them."""
    p.add_argument("--seed", type=_seed, default=0,
                   help="the run's seed: with a hand's number it fixes the hand (default 0)")
    p.add_argument("--threads", type=_positive, help="threads (default: all cores)")
    if progress:
        p.add_argument("--no-progress", action="store_true", help="no progress bar")
    if json_out:
        p.add_argument("--json", action="store_true", help="print JSON")


def _game_command(sub: _Commands, name: str) -> argparse.ArgumentParser:
    """``simkit NAME GAME``: a command that plays runs at one game's table, with
    its rules and policy options (its words: :data:`_RUNS`)."""
    p = sub.add_parser(name, help=_RUNS[name].about)
    p.add_argument("game", type=_game, help=_GAME_HELP)
    _rules_options(p, _RUNS[name].policy)
    return p


def _simulate_parser(sub: _Commands) -> None:
    p = _game_command(sub, "simulate")
    _size_options(p, "simulate")
    _run_options(p)
    p.add_argument("--out", metavar="DIR",
                   help="write the run into this directory (e.g. runs/pepper.parquet): "
                        "_manifest.json and one Parquet part per chunk; the same command "
                        "again resumes an interrupted run")
    p.add_argument("--aggregate", action="store_true",
                   help="with --hands: keep only counts and sums per group of hands (bid, "
                        "made, bidder's hand class, seat); memory does not grow with the run")
    _backend_options(p)


def _tournament_parser(sub: _Commands) -> None:
    p = _game_command(sub, "tournament")
    _size_options(p, "tournament")
    _run_options(p, json_out=True)
    p.add_argument("--out", metavar="DIR", help="keep the run here (one Parquet part per "
                   "chunk: each table's measure per deal), with _ratings.parquet, "
                   "_pairs.parquet and _ratings.png; the same command again resumes")
    _backend_options(p)


def _tune_parser(sub: _Commands) -> None:
    p = _game_command(sub, "tune")
    p.add_argument("--param", metavar="NAME=LOW:HIGH", action="append", default=[],
                   help="a parameter searched: a range (NAME=LOW:HIGH) or choices "
                        "(NAME=A,B,...; true,false for a switch); repeat for more")
    p.add_argument("--against", metavar="SPEC", action="append",
                   help="a policy of the field every trial plays (repeatable; default: the "
                        "game's default policy)")
    p.add_argument("--confirm-against", metavar="SPEC", action="append", default=[],
                   help="a policy the best settings also meet on fresh deals, beyond the "
                        "default, the field and the named settings (repeatable)")
    p.add_argument("--trials", type=_at_most(MAX_TRIALS, "each trial is a whole tournament"),
                   help=f"settings tried (default 30, at most {MAX_TRIALS:,})")
    _size_options(p, "tune")
    p.add_argument("--sampler", choices=("tpe", "cmaes", "auto"), default="tpe",
                   help="Optuna's sampler: tpe (the default), cmaes, or auto (CMA-ES for the "
                        "numbers, TPE for the choices)")
    p.add_argument("--prune", action="store_true",
                   help="stop weak trials early: each plays its deals in rungs, three times "
                        "as many each, and stops where it is not among the best third "
                        "(Optuna's successive halving)")
    p.add_argument("--out", metavar="DIR", help="keep the search here (SQLite): the same "
                   "command again continues it, or reprints a finished one")
    _run_options(p, json_out=True)
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="play the trials' tournaments on this Dask cluster")


#: ``--adapt-*`` sizes: (option, cap, why capped, help), compare's and search's.
_ADAPT_SIZES = (
    ("rounds", MAX_ROUNDS, "each round is a search", "at most this many rounds per "
     "adaptation: it stops earlier once no setting beats the field (default 6; one that "
     "reaches the cap while still improving says so)"),
    ("trials", MAX_TRIALS, "each trial is a tournament", "settings tried per round "
     "(default: 16 + 8 per parameter searched, 96 for Pepper's heuristic)"),
    ("games", MAX_TRIAL_DEALS, "every trial plays them", "duplicate whole games a "
     "trial plays unless stopped early "
     "(default: Pepper 30000, Pitch 30000 sessions, Shiesta 120000, Burraco 6000); an "
     "adaptation's confirmation (and compare's best-response check) plays as many fresh "
     "ones"),
    ("seeds", MAX_SEEDS, "each is a whole adaptation", "independent adaptations of "
     "every variant, each with its own seed; the comparison is played once per "
     "adaptation, and a finding must hold in every one (default 2)"))


def _adapt_options(p: argparse.ArgumentParser, sizes: tuple[tuple[str, int, str, str], ...]
                   ) -> None:
    """``--param`` and the ``--adapt-*`` sizes given, which apply with ``--adapt``."""
    p.add_argument("--param", metavar="NAME=LOW:HIGH", action="append", default=[],
                   help="with --adapt: search only these parameters (repeatable; default: "
                        "every parameter of the policy)")
    for what, most, why, text in sizes:
        p.add_argument(f"--adapt-{what}", type=_at_most(most, why),
                       help=f"with --adapt: {text}; at most {most:,}")


def _search_parser(sub: _Commands) -> None:
    p = sub.add_parser("search", help="search rule settings for a designer's goals (targets, "
                       "bounds, objectives): Optuna, every trial on the base's deals, the best "
                       "setting or the Pareto front confirmed on fresh deals")
    p.add_argument("game", type=_game, help=_GAME_HELP)
    p.add_argument("--list", action="store_true",
                   help="list the measures a search can aim at (key, name, meaning, unit)")
    p.add_argument("--rule", metavar="KEY=LOW:HIGH", action="append", default=[],
                   help="a rule searched: a range (KEY=LOW:HIGH) or values (KEY=V1,V2,...); "
                        "repeat for more")
    p.add_argument("--goal", metavar="MEASURE=VALUE", action="append", default=[],
                   help="a target (MEASURE=VALUE, minimised as |M - V|) or a bound "
                        "(MEASURE<=VALUE, MEASURE>=VALUE); a share as 0.01 or 1%%; MEASURE by "
                        "name or key (see --list); repeatable")
    p.add_argument("--minimize", metavar="MEASURE", action="append", default=[],
                   help="an objective to make as small as the rules allow (repeatable)")
    p.add_argument("--maximize", metavar="MEASURE", action="append", default=[],
                   help="an objective to make as large as the rules allow (repeatable)")
    _rules_options(p)
    p.add_argument("--trials", type=_at_most(MAX_TRIALS, "each trial plays the whole deals"),
                   help=f"settings tried (default 30, at most {MAX_TRIALS:,})")
    p.add_argument("--hands", type=_positive,
                   help="hands each trial plays, for measures of single hands (default "
                        "200000, scaled down for slower games)")
    p.add_argument("--games", type=_positive,
                   help="whole games each trial plays, for measures of whole games (default "
                        "20000, scaled down for slower games)")
    p.add_argument("--sampler", choices=("tpe", "cmaes", "nsga2"),
                   help="Optuna's sampler: tpe (the default for one objective), cmaes (one "
                        "objective, no bound), nsga2 (the default for several)")
    p.add_argument("--out", metavar="DIR", help="keep the search here (SQLite study, result, "
                   "front.png): the same command again continues it, or reprints it")
    p.add_argument("--adapt", action="store_true",
                   help="re-fit the policy's parameters to every setting's rules before it "
                        "plays (as compare --adapt: the base from the policy, each setting "
                        "from the base's adapted setting; kept, and reused, by the hash of "
                        "what each depends on)")
    _adapt_options(p, _ADAPT_SIZES[:3])
    p.add_argument("--adapt-seed", type=_seed,
                   help="with --adapt: the adaptations' seed (default: --seed)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="play every trial's deals (and with --adapt the tuning's "
                        "tournaments) on this Dask cluster, in chunks: the same deals, so the "
                        "same answer")
    _run_options(p, json_out=True)


def _report_parser(sub: _Commands) -> None:
    p = sub.add_parser("report", help="run studies and render their HTML reports")
    p.add_argument("studies", nargs="*", metavar="STUDY",
                   help="study names, or 'all' (the default); see 'simkit report --list'")
    p.add_argument("--list", action="store_true", help="list the studies and exit")
    p.add_argument("--hands", type=_positive,
                   help="hands per simulated table (default: each study's own size)")
    p.add_argument("--out", default="reports", help="output directory (default: reports)")
    _run_options(p)


def _advise_parser(sub: _Commands) -> None:
    p = sub.add_parser("advise", help="what to bid with a hand: each bidding plan played "
                       "through the whole auction, its EV and, with --score, chance to win")
    p.add_argument("game", type=_game, help=_GAME_HELP)
    p.add_argument("--hand", help='the hand, e.g. "JH JD AH KH QH 9S"')
    p.add_argument("--from", dest="record", metavar="FILE",
                   help="take the hand, seat, dealer, rules and score from a text record "
                        "(its 'seat' line, else the seat left of the dealer; its 'score' line)")
    _rules_options(p)
    p.add_argument("--seat", type=_integer, help="the hand's seat (default: left of the dealer)")
    p.add_argument("--dealer", type=_integer, help="the dealer's seat (default 0)")
    p.add_argument("--samples", type=_positive, default=100_000,
                   help="deals of the unseen cards (default 100000)")
    p.add_argument("--score", metavar="US:THEM",
                   help="game score, the hand's side first (3 players: US:THEM or US:LEFT:RIGHT; "
                        "a negative first score as --score=-6:12): adds each bid's chance to win")
    p.add_argument("--games", type=_positive,
                   help="with --score: games played out from each position (default 10000)")
    p.add_argument("--plans", metavar="LIST",
                   help="bidding plans to play, comma-separated (default: all; e.g. "
                        "pass,3,kubwa)")
    p.add_argument("--declarer", action="store_true",
                   help="the older figures: each contract played by this hand's side with no "
                        "auction (what the hand is worth if it plays it)")
    p.add_argument("--bound", action="store_true",
                   help="add each contract's perfect-information bound: made as declarer "
                        "with every card visible, the best single trump (pepper)")
    _run_options(p, progress=False, json_out=True)


def _compare_parser(sub: _Commands) -> None:
    p = sub.add_parser("compare", help="rule variants on the same deals: each game's measures "
                       "and the designer's (balance, length, drama, skill), paired differences "
                       "with intervals and Holm-corrected p-values; --adapt re-fits the "
                       "players to each variant first")
    p.add_argument("game", type=_game, help=_GAME_HELP)
    p.add_argument("--variant", metavar="LABEL:key=value[,...]", action="append", default=[],
                   help="a rule variant, 2 to 8 in all (the first is the base), e.g. "
                        "--variant A: --variant B:all_pass=stick")
    p.add_argument("--sweep", metavar="KEY=V1,V2,...", action="append",
                   help="one variant per value of one rule (the first value is the base, or "
                        "the first --variant, whose rules the values then change); repeat it "
                        "to cross several rules into a grid (at most 8 variants in all)")
    p.add_argument("--players", type=_integer,
                   help="number of players (default: the rules' own, 4)")
    p.add_argument("--policy", metavar="NAME[:k=v,...]", action="append", help=_POLICY_HELP)
    p.add_argument("--hands", type=_positive,
                   help="hands per variant, for games played in hands (default 1000000)")
    p.add_argument("--games", type=_positive,
                   help="whole games per variant (default 20000; the skill trace plays a "
                        "tenth of them per rung)")
    p.add_argument("--margin", metavar="MEASURE=VALUE", action="append", default=[],
                   help="a measure's margin of practical equivalence, within which a "
                        "difference is 'no change' once two one-sided tests place it there "
                        "(every measure whose name holds MEASURE; a rate's as a fraction or "
                        "with %%, e.g. 'win rate=2%%'; repeatable)")
    p.add_argument("--adapt", action="store_true",
                   help="re-fit the policy's parameters to each variant's rules first (tuning "
                        "rounds against the field until no change beats it; the base from "
                        "the policy, later variants from the base's setting), and play each "
                        "variant with its own adapted players")
    p.add_argument("--out", metavar="DIR",
                   help="write every table as CSV here (variants.csv, bids.csv, design.csv, "
                        "sweep.csv, ...), and with --adapt keep the adaptations here too "
                        "(default: simkit's cache directory): the same comparison again "
                        "reuses them")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="with --adapt: play the tuning's tournaments on this Dask cluster")
    _adapt_options(p, _ADAPT_SIZES)
    p.add_argument("--no-skill", action="store_true",
                   help="leave out the skill trace (the ladder's tournaments)")
    _run_options(p, json_out=True)


def _record_parsers(sub: _Commands) -> None:
    p = sub.add_parser("show", help="one hand (Shiesta: game) as a run plays it, as a text "
                       "record (seeds/records.md)")
    p.add_argument("game", type=_game, nargs="?", help="the game (with --run: the run's)")
    _rules_options(p)
    p.add_argument("--seed", type=_seed, help="the run's seed (default 0)")
    p.add_argument("--hand", type=_index, help="the hand's number in the run (Shiesta: the "
                   "game's)")
    p.add_argument("--run", metavar="DIR", help="take the game, rules, policies and seed from "
                   "a finished run's manifest")
    p.add_argument("--where", metavar="EXPR", help="with --run: the hands whose records "
                   "match this condition on the record columns, e.g. "
                   "\"contract == 7 and not made\"")
    p.add_argument("--limit", type=_at_most(MAX_LIMIT, "records printed"),
                   help="with --where: at most this many records (default 5)")
    p = sub.add_parser("replay", help="replay a text record with the reference engine, "
                       "checking every move and the score; print it completed")
    p.add_argument("file", help="the record ('-': standard input)")
    p.add_argument("--policy", metavar="NAME[:k=v,...]", action="append",
                   help="play the moves the record leaves out with this policy (every "
                        "seat, or once per seat); default: the record's own policy lines")


def build_parser() -> argparse.ArgumentParser:
    names = [g.capitalize() for g in games.GAMES]
    parser = _Parser(prog="simkit", description="Monte Carlo simulation of "
                     f"{', '.join(names[:-1])} and {names[-1]}.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _simulate_parser(sub)
    _report_parser(sub)
    p = sub.add_parser("rules", help="print a game's rules, variants, defaults and records")
    p.add_argument("game", type=_game, help=_GAME_HELP)
    p = sub.add_parser("glossary", help="the game terms and the words of simkit's answers, "
                       "in plain words, with where each comes from")
    p.add_argument("game", nargs="?", type=_game,
                   help="only this game's terms and those of every game (default: all)")
    p.add_argument("--json", action="store_true", help="print the glossary as JSON")
    p = sub.add_parser("bench", help="measure kernel throughput")
    p.add_argument("games", nargs="*", type=_game, help="games to measure (default: all)")
    p.add_argument("--json", action="store_true", help="print JSON records")
    p.add_argument("--hands", type=_positive, default=2_000_000, help="hands per measurement")
    _advise_parser(sub)
    _compare_parser(sub)
    _tournament_parser(sub)
    _tune_parser(sub)
    _search_parser(sub)
    _record_parsers(sub)
    p = sub.add_parser("serve", help="the browser app on this machine: click a hand for "
                       "advice, step through any hand, compare rule variants")
    p.add_argument("--port", type=_port, default=8765, help="port (default 8765)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--open", action="store_true", help="open the app in a web browser")
    p.add_argument("--reports", metavar="DIR", default=None,
                   help="the rendered reports served at /reports/ (default: reports)")
    p.add_argument("--allow-host", metavar="NAME", action="append", default=[],
                   help="also answer requests that name this host (a name of this machine "
                        "on your network); by default only 127.0.0.1, localhost, ::1 and "
                        "--host are answered, so that another site's page cannot reach the "
                        "app by rebinding its own name (repeatable)")
    p = sub.add_parser("verify", help="check a run directory's parts against the sizes and "
                       "checksums its manifest recorded; nothing is changed")
    p.add_argument("run", metavar="RUN", help="the run directory (simulate or tournament --out)")
    return parser
