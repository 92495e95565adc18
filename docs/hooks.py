"""MkDocs hooks: the parts of the site that the code or a measurement states.

A page asks for generated content with a line or an inline mark
``{{ NAME ARGS }}``; the hook replaces it when the site is built, so that no
figure, option, default or definition is typed twice:

- ``{{ cli }}``: every subcommand and option, from the command's own parser;
- ``{{ rules GAME }}``, ``{{ policies GAME }}``, ``{{ records GAME }}``: the
  rule options, presets, policies (every parameter, range and meaning) and
  record columns, as ``simkit rules GAME`` prints them;
- ``{{ book NAME }}``: the rule book ``seeds/NAME.md``, included;
- ``{{ changelog }}``: ``CHANGELOG.md``, included;
- ``{{ glossary }}``: the package's glossary (``simkit/app/glossary.toml``);
- ``{{ limits }}``, ``{{ held }}``: the web app's bounds and the memory caps;
- ``{{ summary STUDY }}``, ``{{ figure STUDY N }}``: a rendered report's
  findings (its ``study.json``, with its size, seed and date) and figures;
- ``{{ bench }}``, ``{{ first_start }}``, ``{{ compile_costs }}``: the performance
  tables, from the JSON the benchmarks wrote into ``benchmarks/results/``;
- ``{{ value FILE KEY.PATH }}``: one value of a JSON file;
- ``{{ const MODULE NAME }}``: a constant, as the code states it;
- ``{{ output ARGV }}``: what ``simkit ARGV`` prints, run as the site is built;
- ``{{ rooms }}``: the package's folders, each with its modules, their lines
  and what the folder holds (its ``__init__`` docstring's first sentence).

Every report figure, and the advisor's screenshot, is copied into the site
from where it lives (``reports/``, ``simkit/app/web/``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import shlex

ROOT = pathlib.Path(__file__).resolve().parent.parent
_PAGE = {"depth": 0}        # the page being built: links are made relative to it
MARK = re.compile(r'\{\{ *([a-z_]+)((?: +(?:"[^"]*"|[^ }"]+))*) *\}\}')


def _json(rel: str):
    return json.loads((ROOT / rel).read_text(encoding="utf-8"))


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------- the command line

def _option_row(action: argparse.Action) -> list[str] | None:
    if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
        return None
    if action.option_strings:
        name = ", ".join(f"`{s}`" for s in action.option_strings)
        if action.nargs != 0:
            name += f" `{action.metavar or action.dest.upper()}`"
    else:
        name = f"`{action.metavar or action.dest}`"
    more = []
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        more.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
    help_text = (action.help or "") % {"default": action.default} if action.help else ""
    if isinstance(action, argparse._AppendAction) and "repeat" not in help_text:
        more.append("repeatable")
    if (action.default not in (None, False, [], argparse.SUPPRESS) and action.option_strings
            and "default" not in help_text):
        more.append(f"default `{action.default}`")
    return [name, help_text + (f" ({'; '.join(more)})" if more else "")]


def cli() -> str:
    """Every subcommand with its usage and options, from ``build_parser()``."""
    from simkit.app.options import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    out = []
    for name, p in sub.choices.items():
        out.append(f"## `simkit {name}`\n\n{helps.get(name, '')}\n")
        usage = " ".join(p.format_usage().split())
        out.append(f"```text\n{usage.removeprefix('usage: ')}\n```\n")
        rows = [r for a in p._actions if (r := _option_row(a)) is not None]
        if rows:
            out.append(_table(["option", "what it does"], rows))
    return "\n".join(out)


# ----------------------------------------------------------------- the games

def _game(name: str):
    from simkit import games
    return games.get(name)


def rules(name: str) -> str:
    g = _game(name)
    rows = [[f"`{k}`", f"`{d}`", acc, doc] for k, d, acc, doc in g.rules.describe()]
    out = _table(["rule", "default", "accepted", "what it means"], rows)
    presets = [[f"`{p}`", ", ".join(f"`{k}={v}`" for k, v in vals.items())
                or "the seed documents' rules"] for p, vals in g.presets.items()]
    return out + "\n**Presets** (`--preset NAME`):\n\n" + _table(["preset", "rules"], presets)


def policies(name: str) -> str:
    g = _game(name)
    out = []
    for pname, cls in g.policies.items():
        rows = [[f"`{k}`", f"`{d}`", acc, doc] for k, d, acc, doc in cls.describe()]
        out.append(f"#### `{pname}`\n")
        out.append(_table(["parameter", "default", "accepted", "what it does"], rows)
                   if rows else "No parameters.\n")
    if g.named_policies:
        out.append("#### Named settings\n")
        out.append(_table(["name", "is"], [[f"`{n}`", f"`{s}`"]
                                           for n, s in g.named_policies.items()]))
    return "\n".join(out)


def records(name: str) -> str:
    from simkit import engine

    g = _game(name)
    out = []
    for unit in g.units.values():
        cols = [c for item in unit.schema
                for c in (item.columns if isinstance(item, engine.Each) else (item,))]
        out.append(f"**{unit.label.capitalize()} records** (`--{unit.name}s`; {unit.doc}):\n")
        out.append(_table(["column", "type", "what it holds"],
                          [[f"`{n}`", d, doc] for n, d, doc in (c.describe() for c in cols)]))
    return "\n".join(out)


def _site_link(href: str) -> str:
    """A link of the glossary (``/docs/games/pepper/#3-bids``) as a link between the
    site's pages (``games/pepper.md#3-bids``), checked by the strict build."""
    path, _, anchor = href.removeprefix("/docs/").partition("#")
    page = path.rstrip("/") + ".md" if path else "index.md"
    return f"{'../' * _PAGE['depth']}{page}" + (f"#{anchor}" if anchor else "")


def glossary() -> str:
    """Every term with its anchor (``#term-KEY``, the app's explanations link to it)
    and where it comes from as links: the rule-book sections, per game when each
    game's book has its own."""
    from simkit.app import glossary as g

    out = []
    for t in sorted(g.TERMS, key=lambda t: t.word.lower()):
        where = ", ".join(t.games) if t.games else "every game"
        also = f" Also: {', '.join(t.aliases)}." if t.aliases else ""
        seen: list[str] = []
        for game in t.games or g.GAMES:
            for link in g.links(t, game):
                text = f"[{link['text']}]({_site_link(link['href'])})"
                if "/glossary/" not in link["href"] and text not in seen:
                    seen.append(text)
        source = "; ".join(seen) if seen else t.source
        out.append(f'<span id="term-{t.key}"></span>**{t.word}** ({where})\n'
                   f":   {t.means}{also} *Source: {source}.*\n")
    return "\n".join(out)


#: Where each rule book of ``seeds/`` lives on the site.
BOOKS = {"pepper": "games/pepper.md", "pitch": "games/pitch.md", "shiesta": "games/shiesta.md",
         "burraco": "games/burraco.md", "records": "reference/records.md"}


def book(name: str) -> str:
    """``seeds/NAME.md``, included (not copied): its title dropped for the
    page's own, its headings one level down, its links to the other rule
    books pointed at their pages."""
    text = (ROOT / "seeds" / f"{name}.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    up = "../" * _PAGE["depth"]
    out, fenced = [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#"):
            line = "#" + line
        out.append(line)
    body = "\n".join(out)
    return re.sub(r"\]\((\w+)\.md(#[^)]*)?\)",
                  lambda m: f"]({up}{BOOKS[m.group(1)]}{m.group(2) or ''})"
                  if m.group(1) in BOOKS else m.group(0), body)


def changelog() -> str:
    """``CHANGELOG.md``, included."""
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def limits() -> str:
    from simkit.app.answers import limits as web_limits

    rows = []
    for command, sizes in web_limits().items():
        for key, most in sizes.items():
            shown = (", ".join(f"{g} {v:,}" for g, v in most.items()) if isinstance(most, dict)
                     else f"{most:,}" if isinstance(most, int) else most)
            rows.append([f"`{command}`", f"`{key}`", shown])
    return _table(["answer", "size", "at most"], rows)


def held() -> str:
    from simkit.runs.batches import HELD_BYTES, held_most

    return _table(["what is held", "bytes each", "at most, on the machine that built this"],
                  [[k, f"{v:,}", f"{held_most(k):,}"] for k, v in HELD_BYTES.items()])


# ----------------------------------------------------------------- measurements

def summary(study: str) -> str:
    d = _json(f"reports/{study}/study.json")
    p = d.get("provenance", {})
    size = ", ".join(f"{k} {p[k]:,}" for k in ("hands", "games") if isinstance(p.get(k), int))
    head = (f"*From `reports/{study}/study.json`: {size}, seed {p.get('seed')}, rendered "
            f"{str(p.get('created_utc', ''))[:10]} (`simkit report {study}`).*\n\n")
    return head + "\n".join(f"- {s}" for s in d["summary"]) + "\n"




def figure(study: str, n: str = "0") -> str:
    d = _json(f"reports/{study}/study.json")
    name = d["figures"][int(n)]
    caption = d.get("captions", {}).get(name, name)
    up = "../" * _PAGE["depth"]
    return f"![{_cell(caption)}]({up}reports/{study}/{name}.png)\n\n*{caption}*\n"


def const(module: str, name: str) -> str:
    """A constant as the code states it (``{{ const simkit.app.web.server MAX_RUNNING }}``)."""
    import importlib

    v = getattr(importlib.import_module(module), name)
    return f"{v:,}" if isinstance(v, int) else f"{v:g}" if isinstance(v, float) else str(v)


def value(rel: str, path: str) -> str:
    node = _json(rel)
    for key in path.split("."):
        node = node[int(key)] if isinstance(node, list) else node[key]
    return f"{node:,}" if isinstance(node, int) else str(node)


def output(*argv: str) -> str:
    """What ``simkit ARGV`` prints, run when the site is built (a text block
    headed by the command), so that an example answer is never pasted."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "simkit.app.cli", *argv], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise ValueError(f"simkit {shlex.join(argv)} failed: {run.stderr.strip()[-300:]}")
    return f"```text\n$ simkit {shlex.join(argv)}\n{run.stdout.rstrip()}\n```\n"


def _dated(rel: str) -> tuple[dict, str]:
    d = _json(rel)
    return d, (f"*Measured {d['measured_utc'][:10]} on {d['machine']} "
               f"(`{d['command']}`; `{rel}`).*\n\n")


def bench() -> str:
    """One row per case: its rate and its ratio to the yardstick on one thread
    and on all of them."""
    d, head = _dated("benchmarks/results/bench.json")
    rows: dict[tuple, dict] = {}
    for r in d["records"]:
        rows.setdefault((r["game"], r["case"], r["players"], r["unit"]), {})[r["threads"]] = r
    top = max(r["threads"] for r in d["records"])

    def cells(by: dict, threads: int) -> list[str]:
        r = by.get(threads)
        return ["", ""] if r is None else [f"{r['rate']:,.0f}", f"{r['vs_yardstick']:.3g}"]
    return head + _table(["game", "case", "players", "unit", "per second, 1 thread",
                          "vs yardstick", f"per second, {top} threads", "vs yardstick"],
                         [[*key, *cells(by, 1), *cells(by, top)] for key, by in rows.items()])


def first_start() -> str:
    d, head = _dated("benchmarks/results/first_start.json")
    def label(c: str) -> str:       # "report all's kernels, 2 processes": its warm-up
        cmd, _, rest = c.partition("'s ")
        return f"`simkit {cmd}`'s {rest}" if rest else f"`simkit {c}`"
    rows = [[label(r["command"]), f"{r['first_s']:.1f}", f"{r['second_s']:.1f}"]
            for r in d["records"]]
    return head + _table(["command", "first start (s)", "second start (s)"], rows)


def compile_costs() -> str:
    """Compile seconds per game (every warm-up step, one thread, empty cache)
    and each heuristic case's one-thread ratio to the yardstick, before and
    after the batch kernels were merged, from the two runs of
    ``benchmarks/compile_costs.py``."""
    runs = []
    for rel in ("benchmarks/results/compile_costs_before.json",
                "benchmarks/results/compile_costs.json"):
        d = _json(rel)
        declared = next(r for r in d["records"]["results"] if r["mode"] == "declared")
        runs.append((d, rel, declared))
    games: dict[str, list[float]] = {}
    for k, (_, _, r) in enumerate(runs):
        for step in r["steps"]:
            games.setdefault(step["step"].split(":")[0], [0.0, 0.0])[k] += step["wall_s"]
    rows = [[g, f"{b:.0f}", f"{a:.0f}"] for g, (b, a) in games.items()]
    rows.append(["all", *(f"{sum(v[k] for v in games.values()):.0f}" for k in (0, 1))])
    ratios = [{(x["game"], x["players"]): x["vs_yardstick"] for x in r["bench"]
               if x["threads"] == 1 and x["case"] == "heuristic"} for _, _, r in runs]
    rows += [[f"{g} {p}p, ratio to the yardstick", f"{ratios[0][g, p]:.3g}",
              f"{ratios[1].get((g, p), float('nan')):.3g}"]
             for g, p in ratios[0] if p == 4]
    head = "".join(f"*{label}: measured {d['measured_utc'][:10]} on {d['machine']} "
                   f"(`{d['command']}`; `{rel}`).*\n\n"
                   for label, (d, rel, _) in zip(("Before", "After"), runs))
    return head + _table(["game", "before: compile s", "after: compile s"], rows)


# ----------------------------------------------------------------- the code's layout

def _first_sentence(path: pathlib.Path) -> str:
    import ast

    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    if path.parent.name == "simkit":        # the package's own line names it: say the top
        doc = doc.split("\n\n", 1)[-1]
    first = re.split(r"(?<=\.)\s+(?=[A-Z`])", " ".join(doc.split()))[0]
    return first.rstrip(".") + "."


def rooms() -> str:
    """A row per folder of ``simkit/`` and ``analyses/`` (the top of each
    first): its modules with their line counts, and what it holds."""
    rows = []
    for top in ("simkit", "analyses"):
        inner = sorted(p.parent for p in (ROOT / top).glob("**/__init__.py")
                       if p.parent != ROOT / top)
        folders = [ROOT / top, *inner]
        for folder in folders:
            mods = sorted(folder.glob("*.py"))
            listed = ", ".join(f"`{m.name}` {m.read_text(encoding='utf-8').count(chr(10))}"
                               for m in mods if m.name != "__init__.py")
            init = folder / "__init__.py"
            what = _first_sentence(init) if init.exists() else ""
            rel = folder.relative_to(ROOT).as_posix() + "/"
            rows.append([f"`{rel}`", what, listed])
    return _table(["folder", "what it holds", "modules (lines)"], rows)


GENERATORS = {f.__name__: f for f in (cli, rules, policies, records, book, changelog, glossary,
                                      limits, held, summary, figure, const, value, output,
                                      bench, first_start, compile_costs, rooms)}


def on_page_markdown(markdown: str, page, config, files) -> str:
    _PAGE["depth"] = page.file.src_uri.count("/")

    def replace(m: re.Match) -> str:
        name, args = m.group(1), shlex.split(m.group(2))
        if name not in GENERATORS:
            raise ValueError(f"{page.file.src_path}: unknown mark {{{{ {name} }}}}")
        return GENERATORS[name](*args)
    return MARK.sub(replace, markdown)


#: What an inline reStructuredText role in a docstring (:func:`x`) becomes in
#: mkdocstrings' HTML: the role's text before the code, which is dropped.
_ROLE = re.compile(r":(?:func|class|data|mod|meth|attr|exc|obj):<code>~?")


def on_page_content(html: str, page, config, files) -> str:
    return _ROLE.sub("<code>", html)


#: The theme's search dialog as it writes it, and the same with its accessible name.
SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'
SEARCH_NAMED = ('<div class="md-search" data-md-component="search" role="dialog" '
                'aria-label="Search the documentation">')


def on_post_page(html: str, page, config) -> str:
    """Every page's search dialog named for screen readers (the theme gives a dialog
    no name); the build fails if the theme stops writing the dialog as expected."""
    if SEARCH_DIALOG not in html:
        raise ValueError(f"{page.file.src_path}: the theme's search dialog changed; "
                         f"name it in docs/hooks.py")
    return html.replace(SEARCH_DIALOG, SEARCH_NAMED)


def on_files(files, config):
    """Every report figure, so that ``{{ figure ... }}`` can show it."""
    from mkdocs.structure.files import File

    for png in [*sorted((ROOT / "reports").glob("*/*.png")), SCREENSHOT]:
        rel = png.relative_to(ROOT).as_posix()
        files.append(File(rel, str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files


#: The advisor's screenshot (the README's too), shown on the home page.
SCREENSHOT = ROOT / "simkit" / "app" / "web" / "screenshot.png"
