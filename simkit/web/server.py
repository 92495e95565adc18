"""The web app of ``simkit serve``: pages, the JSON API and the jobs behind long runs.

Every answer comes from :mod:`simkit.answers`, the functions the command
line prints, so ``GET /api/advise?...`` returns exactly what ``simkit advise
... --json`` prints for the same options.  The query parameters are the
CLI's long option names (``game``, ``hand``, ``set`` and ``policy``
repeated, ...), parsed by the CLI's own parser.

- Pages: ``/`` (the advisor), ``/hand`` (the hand viewer), ``/compare``,
  ``/reports/`` (the rendered reports directory), ``/docs/`` (the built
  documentation site, or how to build it), assets under ``/static/``.
- ``GET /api/health``: ``{"status": "ready", "running": N}`` once the
  kernels the pages use are compiled (a background thread from startup),
  ``"warming"`` before; ``running`` counts the runs being worked out.
  Answered on the event loop, so at once even while runs take every thread.
- ``GET /api/games``, ``/api/limits``, ``/api/glossary``, ``/api/advise``,
  ``/api/compare``, ``/api/estimate``, ``/api/show``; ``POST /api/replay``
  (``{"record": text, "policy": [...]}``).
- Jobs, for the pages' long runs: ``POST /api/jobs?command=advise&...``
  starts one on its own thread; ``GET /api/jobs/{id}`` gives its status and
  progress (0..1) and, once done, its result; ``DELETE`` cancels it.  A job
  nobody has asked about for :data:`ABANDONED` seconds is cancelled: a
  closed tab's work stops.

Nothing can tie the server up:

- every size a request names is held to :func:`simkit.answers.limits`, and
  every check of the answer runs before any work (:func:`simkit.answers.check`),
  for the direct answers, ``/api/estimate`` and jobs alike;
- ``/api/advise`` and ``/api/compare`` answer directly only runs estimated at
  :data:`SYNC_SECONDS` or less (longer ones: a job), and stop their work
  within a second when the client goes away;
- :class:`Runs` counts every run, job or direct answer: at most
  :data:`MAX_RUNNING` at once, and per client (its address and its
  ``X-Simkit-Client`` header or ``simkit_client`` cookie) one heavy run
  (estimated over :data:`HEAVY` seconds) and :data:`PER_CLIENT` in all;
  beyond, HTTP 429;
- SIGTERM and Ctrl-C stop every run at once (:func:`serve`), so the server
  exits within a few seconds.

Bad input is HTTP 400 with ``{"error": "one sentence"}`` (the
:class:`~simkit.errors.InputError` text); anything unexpected is logged here
and answered with a one-line 500, never a traceback.  Bodies, query values,
paths and the number of query parameters are capped; files are served only
from the app's own ``static/`` folder and the reports directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import pathlib
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
)
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from simkit import answers
from simkit.errors import InputError
from simkit.runner import Cancelled, Work

log = logging.getLogger("simkit.web")

STATIC = pathlib.Path(__file__).resolve().parent / "static"
PAGES = {"/": "advisor.html", "/hand": "hand.html", "/compare": "compare.html"}
#: Largest request body (a pasted record is a few kB).
MAX_BODY = 1 << 20
#: Longest query value and most query parameters a request may carry.
MAX_VALUE = 2000
MAX_PARAMS = 200
#: Longest file path under /reports/ (longer: no such report, at once).
MAX_PATH = 1000
#: Seconds without a poll after which a running job is cancelled (its tab is gone).
ABANDONED = 5.0
#: Seconds a finished job's answer is kept for its page to fetch.
KEPT = 120.0
#: Runs (jobs and direct answers) at once; more is refused (429) until one ends.
MAX_RUNNING = 8
#: Runs one client may have at once, and heavy ones among them.
PER_CLIENT = 4
#: A run estimated over this many seconds is heavy: one per client at a time.
HEAVY = 2.0
#: The longest run (estimated, seconds) ``/api/advise`` and ``/api/compare``
#: answer directly; a longer one is refused with a pointer to the jobs.
SYNC_SECONDS = 5.0
#: Seconds between looks for a gone client while a direct answer is worked out.
POLL = 0.1
#: Seconds ``simkit serve`` waits for open requests on SIGTERM or Ctrl-C
#: (their runs are stopped first, so they end well within it).
GRACE = 3
#: How a page may tell its client apart from others at the same address.
CLIENT_HEADER, CLIENT_COOKIE = "x-simkit-client", "simkit_client"
JOB_COMMANDS = ("advise", "compare")


# --- errors and limits ------------------------------------------------------------------

def _error(status: int, text: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status, headers=headers)


class Busy(Exception):
    """A run refused for now: too many runs, or this client has its share (429)."""


class Stopping(Exception):
    """A run refused because the server is shutting down (503)."""


class _TooLarge(Exception):
    """A request body over :data:`MAX_BODY`, found while it is read."""


class _Guard:
    """ASGI middleware: bodies over :data:`MAX_BODY` get 413, and an exception
    nothing else handled is logged with its traceback and answered as a
    one-line 500 (the client never sees the traceback)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if not length.isdigit():
            await _error(400, "bad Content-Length header: expected a number of bytes")(
                scope, receive, send)
            return
        if int(length) > MAX_BODY:
            await _error(413, f"the request body is too large: at most {MAX_BODY:,} bytes")(
                scope, receive, send)
            return
        got = 0

        async def counted():
            nonlocal got
            message = await receive()
            got += len(message.get("body", b""))
            if got > MAX_BODY:
                raise _TooLarge
            return message

        started = False

        async def watched(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not started:
                await _error(413, f"the request body is too large: at most {MAX_BODY:,} "
                                  f"bytes")(scope, receive, send)
        except Exception:
            log.exception("simkit serve: %s %s failed", scope.get("method"),
                          str(scope.get("path"))[:200])
            if not started:
                await _error(500, "internal error: the server could not answer this request "
                                  "(the details are in its log)")(scope, receive, send)


def _params(request: Request, drop: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """The query's (key, value) pairs in order, capped in number and length."""
    pairs = request.query_params.multi_items()
    if len(pairs) > MAX_PARAMS:
        raise InputError(f"too many query parameters ({len(pairs)}): at most {MAX_PARAMS}")
    for key, value in pairs:
        if len(key) > 100 or len(value) > MAX_VALUE:
            raise InputError(f"query value for {key[:40]!r} is too long: at most "
                             f"{MAX_VALUE} characters")
    return [(k, v) for k, v in pairs if k not in drop]


def _command(request: Request) -> str:
    """The ``command`` query parameter of estimate and jobs: advise or compare."""
    given = request.query_params.getlist("command")
    expected = " or ".join(f"command={c}" for c in JOB_COMMANDS)
    if len(given) != 1:
        raise InputError(f"give the command once: {expected}")
    if given[0] not in JOB_COMMANDS:
        raise InputError(f"bad command {given[0][:40]!r}: expected {expected}")
    return given[0]


def _client(request: Request) -> str:
    """Who asks: the client's address, and the ``X-Simkit-Client`` header or
    ``simkit_client`` cookie a page may send (tabs or people behind one address)."""
    host = request.client.host if request.client else "-"
    tag = request.headers.get(CLIENT_HEADER) or request.cookies.get(CLIENT_COOKIE) or ""
    return f"{host} {tag[:64]}"


def _prepared(command: str, params: list[tuple[str, str]],
              stop: threading.Event | None = None) -> tuple[argparse.Namespace, dict]:
    """The checked arguments of ``command`` (parsed and held to the limits,
    every check of the answer run) and its estimate: all before any work.
    ``stop`` ends the estimate's timing runs (the server is shutting down)."""
    a = answers.parse(command, params)
    answers.check(command, a)
    return a, answers.estimate(command, a, stop)


def _answer_fn(command: str) -> Callable[..., dict]:
    return answers.advise if command == "advise" else answers.compare


# --- warming up ---------------------------------------------------------------------------

@dataclass
class Warmth:
    """The kernels the pages use, compiled in a background thread at startup."""

    warm: Callable[..., Any] | None
    ready: threading.Event = field(default_factory=threading.Event)
    detail: str = ""

    def start(self) -> None:
        if self.warm is None:
            self.ready.set()
            return
        threading.Thread(target=self._run, name="simkit-warm-up", daemon=True).start()

    def _report(self, *what) -> None:
        self.detail = " ".join(str(w) for w in what)

    def _run(self) -> None:
        try:
            assert self.warm is not None
            self.warm(report=self._report)
        except Exception:      # the kernels then compile on first use instead
            log.exception("simkit serve: warming up failed")
        finally:
            self.ready.set()


# --- runs and jobs ------------------------------------------------------------------------

@dataclass(eq=False)
class Run:
    """One answer being worked out, a job's or a direct one: who asked, whether
    it is heavy (estimated over :data:`HEAVY` seconds), its stop switch."""

    client: str
    heavy: bool
    stop: threading.Event = field(default_factory=threading.Event)


class Runs:
    """Every run of one app, jobs and direct answers alike, until its thread
    ends: at most :attr:`most` at once; per client one heavy run and
    :attr:`per_client` in all (a cancelled run no longer counts for its
    client); :meth:`stop_all` on shutdown."""

    def __init__(self, most: int = MAX_RUNNING, per_client: int = PER_CLIENT):
        self.most, self.per_client = most, per_client
        self.lock = threading.Lock()
        self.active: list[Run] = []
        self.stopping = False
        #: Set on shutdown: also ends the estimates' timing runs, which are no runs.
        self.halt = threading.Event()

    @property
    def running(self) -> int:
        """Runs whose work has not ended yet."""
        return len(self.active)

    def room(self) -> None:
        """Busy (or Stopping) when no run could start now."""
        with self.lock:
            self._room()

    def _room(self) -> None:
        if self.stopping:
            raise Stopping("the server is shutting down: no new runs")
        if len(self.active) >= self.most:
            raise Busy(f"the server is busy with {len(self.active)} runs, the most it takes "
                       f"at once: try again when one has finished")

    def admit(self, client: str, heavy: bool) -> Run:
        """A new run of ``client``'s, or Busy naming the rule it would break."""
        with self.lock:
            self._room()
            mine = [r for r in self.active if r.client == client and not r.stop.is_set()]
            if heavy and any(r.heavy for r in mine):
                raise Busy("you have a long run going already, and one runs at a time per "
                           "client: wait for it to finish, or cancel it")
            if len(mine) >= self.per_client:
                raise Busy(f"you have {len(mine)} runs going already, the most one client "
                           f"may have: wait for one to finish")
            run = Run(client, heavy)
            self.active.append(run)
            return run

    def end(self, run: Run) -> None:
        with self.lock:
            if run in self.active:
                self.active.remove(run)

    def stop_all(self) -> None:
        """Stop every run and refuse new ones (the server is shutting down)."""
        with self.lock:
            self.stopping = True
            self.halt.set()
            for run in self.active:
                run.stop.set()


@dataclass
class Job:
    """One long run on its own thread; ``seen`` is when its page last asked."""

    id: str
    command: str
    stop: threading.Event = field(default_factory=threading.Event)
    status: str = "running"
    progress: float = 0.0
    result: dict | None = None
    error: str | None = None
    seen: float = field(default_factory=time.monotonic)
    ended: float | None = None
    thread: threading.Thread | None = None

    def state(self) -> dict:
        return {"id": self.id, "command": self.command, "status": self.status,
                "progress": self.progress, "result": self.result, "error": self.error}


class Jobs:
    """The running and recently finished jobs of one app, and the watchman
    thread that cancels abandoned ones and forgets old answers."""

    def __init__(self, runs: Runs | None = None, abandoned: float = ABANDONED,
                 kept: float = KEPT):
        self.runs = runs or Runs()
        self.abandoned, self.kept = abandoned, kept
        self.lock = threading.Lock()
        self.jobs: dict[str, Job] = {}
        self.watchman: threading.Thread | None = None

    def start(self, command: str, a: argparse.Namespace, run: Run) -> Job:
        """Work out ``command`` for the checked arguments ``a`` on a thread of
        its own, as ``run`` (admitted by :attr:`runs`, ended with the thread)."""
        job = Job(uuid.uuid4().hex, command, stop=run.stop)
        with self.lock:
            self.jobs[job.id] = job
            if self.watchman is None:
                self.watchman = threading.Thread(target=self._watch, daemon=True,
                                                 name="simkit-jobs")
                self.watchman.start()
        job.thread = threading.Thread(target=self._work, args=(job, a, run), daemon=True,
                                      name=f"simkit-job-{job.id[:8]}")
        job.thread.start()
        return job

    def _work(self, job: Job, a, run: Run) -> None:
        def report(fraction: float) -> None:
            job.progress = min(1.0, max(job.progress, float(fraction)))

        work = Work(report=report, stop=job.stop)
        try:
            result = _answer_fn(job.command)(a, work=work)
        except Cancelled:
            job.status = "cancelled"
        except InputError as e:
            job.status, job.error = "failed", str(e)
        except Exception:
            log.exception("simkit serve: job %s (%s) failed", job.id, job.command)
            job.status, job.error = "failed", "internal error: the run failed (the details " \
                                              "are in the server's log)"
        else:
            if job.status == "running":
                job.result, job.progress, job.status = result, 1.0, "done"
        finally:
            self.runs.end(run)
        job.ended = time.monotonic()

    def get(self, job_id: str) -> Job:
        with self.lock:
            job = self.jobs.get(job_id)
        if job is None:
            raise HTTPException(404, f"no job {job_id[:40]!r}: it finished long ago, was "
                                     f"never started, or the server restarted")
        job.seen = time.monotonic()
        return job

    def cancel(self, job_id: str) -> Job:
        job = self.get(job_id)
        job.stop.set()
        if job.status == "running":
            job.status = "cancelled"
        return job

    def sweep(self) -> None:
        """Cancel jobs nobody polled lately; forget finished ones after :attr:`kept`."""
        now = time.monotonic()
        with self.lock:
            for job in list(self.jobs.values()):
                if job.status == "running" and now - job.seen > self.abandoned:
                    log.info("simkit serve: job %s abandoned, cancelled", job.id)
                    job.stop.set()
                    job.status = "cancelled"
                elif job.ended is not None and now - max(job.seen, job.ended) > self.kept:
                    del self.jobs[job.id]

    def _watch(self) -> None:
        while True:
            time.sleep(0.25)
            self.sweep()


async def _watched(request: Request, run: Run, fn: Callable[[], dict]):
    """``fn()`` (a direct answer's work, stopped by ``run.stop``) on a worker
    thread while this looks every :data:`POLL` seconds whether the client has
    gone, and if so stops the work: it ends within a second, not minutes later."""
    runs: Runs = request.app.state.runs

    def work() -> dict:
        try:
            return fn()
        finally:
            runs.end(run)

    task = asyncio.ensure_future(run_in_threadpool(work))
    task.add_done_callback(lambda t: t.cancelled() or t.exception())   # always retrieved
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=POLL)
            if not task.done() and await request.is_disconnected():
                run.stop.set()
        return task.result()
    except Cancelled:
        return _error(503, "the run was stopped: the client went away or the server is "
                           "shutting down")
    finally:
        if not task.done():             # this request itself was cancelled
            run.stop.set()


# --- routes -------------------------------------------------------------------------------

api = APIRouter(prefix="/api")


@api.get("/health")
async def health(request: Request) -> dict:
    w: Warmth = request.app.state.warmth
    out: dict = {"status": "ready" if w.ready.is_set() else "warming"}
    if not w.ready.is_set() and w.detail:
        out["detail"] = w.detail
    out["running"] = request.app.state.runs.running
    return out


def _limits(runs: Runs, abandoned: float) -> dict:
    """The bounds of every answer's options and of the server's runs."""
    return {**answers.limits(), "sync_seconds": SYNC_SECONDS, "heavy_seconds": HEAVY,
            "running": runs.most, "per_client": runs.per_client,
            "abandoned_seconds": abandoned, "body_bytes": MAX_BODY,
            "value_chars": MAX_VALUE, "params": MAX_PARAMS}


@api.get("/limits")
async def limits(request: Request) -> dict:
    return _limits(request.app.state.runs, request.app.state.jobs.abandoned)


@api.get("/glossary")
def glossary() -> dict:
    """Every game term in plain words (:func:`simkit.glossary.as_json`): the
    pages' explanations read it."""
    from simkit import glossary as terms

    return terms.as_json()


@api.get("/games")
def games_info(request: Request) -> dict:
    return {**answers.games_info(),
            "limits": _limits(request.app.state.runs, request.app.state.jobs.abandoned)}


async def _answer(request: Request, command: str):
    """A direct answer: checked, estimated, refused when longer than
    :data:`SYNC_SECONDS` or when the server or the client is busy, else
    worked out while the client waits (and stopped if it leaves)."""
    params = _params(request)
    runs: Runs = request.app.state.runs
    runs.room()
    a, e = await run_in_threadpool(_prepared, command, params, runs.halt)
    if e["seconds"] > SYNC_SECONDS:
        raise InputError(f"this {command} would take {e['text']}, over the {SYNC_SECONDS:g} "
                         f"s a direct answer may take: run it as a job (POST "
                         f"/api/jobs?command={command} with the same options), as the pages "
                         f"do")
    run = runs.admit(_client(request), e["seconds"] > HEAVY)
    return await _watched(request, run, lambda: _answer_fn(command)(a, Work(stop=run.stop)))


@api.get("/advise")
async def advise(request: Request):
    return await _answer(request, "advise")


@api.get("/compare")
async def compare(request: Request):
    return await _answer(request, "compare")


@api.get("/estimate")
def estimate(request: Request) -> dict:
    command = _command(request)
    _, e = _prepared(command, _params(request, ("command",)), request.app.state.runs.halt)
    return {**e, "sync": e["seconds"] <= SYNC_SECONDS}


@api.get("/show")
def show(request: Request) -> dict:
    a = answers.parse("show", _params(request))
    return answers.show(a)


@api.post("/replay")
async def replay(request: Request) -> dict:
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        raise InputError("the body is not JSON: send {\"record\": TEXT, \"policy\": "
                         "[SPEC, ...]}") from None
    except RecursionError:
        raise InputError("the body is nested too deeply: send {\"record\": TEXT, "
                         "\"policy\": [SPEC, ...]}") from None
    if not isinstance(body, dict) or not isinstance(body.get("record"), str):
        raise InputError("give the record as text: {\"record\": TEXT}")
    unknown = sorted(set(body) - {"record", "policy"})
    if unknown:
        raise InputError(f"unknown field {unknown[0][:40]!r}: expected record and policy")
    policy = body.get("policy") or None
    if policy is not None and not (isinstance(policy, list)
                                   and all(isinstance(p, str) for p in policy)):
        raise InputError("policy must be a list of policy texts, e.g. [\"heuristic\"]")
    return await run_in_threadpool(answers.replay, body["record"], policy)


@api.post("/jobs")
def job_start(request: Request) -> dict:
    command = _command(request)
    params = _params(request, ("command",))
    jobs: Jobs = request.app.state.jobs
    jobs.runs.room()
    a, e = _prepared(command, params, jobs.runs.halt)   # bad options: 400 now, not a failed job
    run = jobs.runs.admit(_client(request), e["seconds"] > HEAVY)
    return {"id": jobs.start(command, a, run).id}


@api.get("/jobs/{job_id}")
def job_state(job_id: str, request: Request) -> dict:
    return request.app.state.jobs.get(job_id).state()


@api.delete("/jobs/{job_id}")
def job_cancel(job_id: str, request: Request) -> dict:
    return request.app.state.jobs.cancel(job_id).state()


# --- pages and files ----------------------------------------------------------------------

pages = APIRouter()


def _page(name: str):
    async def page() -> FileResponse:
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})
    return page


for _path, _name in PAGES.items():
    pages.add_api_route(_path, _page(_name), methods=["GET"], include_in_schema=False)


NO_REPORTS = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>simkit reports</title><link rel="stylesheet" href="/static/style.css"></head>
<body><nav class="top"><a class="brand" href="/">simkit</a><a href="/">Advisor</a>
<a href="/hand">Hand viewer</a><a href="/compare">Compare</a>
<a href="/reports/"{reports_here}>Reports</a><a href="/docs/"{docs_here}>Docs</a></nav>
<main class="page"><section class="panel">{body}</section></main>
</body></html>"""
NO_REPORTS_BODY = """<h1>No reports yet</h1>
<p>The reports directory <code>{where}</code> holds no reports yet. Render the studies with
<code>simkit report all</code> (a few minutes), then reload this page.</p>"""
NO_DOCS_BODY = """<h1>The documentation is not built</h1>
<p>The documentation site is built from this checkout with MkDocs:
<code>pip install -e ".[docs]" &amp;&amp; mkdocs build</code> (seconds), then reload this page
(it serves <code>{where}</code>). Until then the <a href="/README.md">README</a> gives the
quick start and the commands.</p>"""


def _note(body: str, here: str) -> HTMLResponse:
    """A page of the app's style saying what is missing (``here``: the tab)."""
    current = ' aria-current="page"'
    return HTMLResponse(NO_REPORTS.format(
        body=body, reports_here=current if here == "reports" else "",
        docs_here=current if here == "docs" else ""))


def _tree(root: pathlib.Path, rel: str, prefix: str, what: str):
    """The file ``rel`` under ``root`` served at ``/PREFIX/REL``, a redirect to a
    folder's slash, or a 404 naming ``what`` was not found."""
    found = _report_file(root, rel)
    if found is None:
        if len(rel) > MAX_PATH:
            raise HTTPException(404, f"no {what} {rel[:40]!r}...: a path under /{prefix}/ "
                                     f"is at most {MAX_PATH:,} characters")
        raise HTTPException(404, f"no {what} {rel[:80]!r}")
    path, folder = found
    if folder and rel and not rel.endswith("/"):
        return RedirectResponse(f"/{prefix}/{rel}/")       # so its relative links resolve
    return FileResponse(path)


def _report_file(root: pathlib.Path, rel: str) -> tuple[pathlib.Path, bool] | None:
    """``(file, folder)``: the file under ``root`` that ``rel`` names (a folder:
    its index.html, and ``folder`` True), or None when there is none, ``rel``
    leads outside ``root`` or cannot name a file (too long, a NUL)."""
    if "\x00" in rel or len(rel) > MAX_PATH:
        return None
    try:
        base = root.resolve()
        target = (base / rel).resolve()
        if not target.is_relative_to(base):
            return None
        folder = target.is_dir()
        if folder:
            target = target / "index.html"
        return (target, folder) if target.is_file() else None
    except (OSError, RuntimeError, ValueError):      # e.g. a name too long for the system
        return None


def _is_file(path: pathlib.Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


@functools.cache
def _readme() -> str:
    """The documentation: the checkout's README next to the package (an editable
    install), else the copy the installed package's metadata carries."""
    beside = pathlib.Path(__file__).resolve().parents[2] / "README.md"
    if _is_file(beside):
        return beside.read_text(encoding="utf-8")
    from importlib import metadata

    try:
        return metadata.metadata("simkit").get_payload() or ""     # type: ignore[attr-defined]
    except metadata.PackageNotFoundError:
        return ""


@pages.get("/README.md", include_in_schema=False)
async def readme() -> PlainTextResponse:
    """The documentation, as text (the reports' and the pages' Docs link)."""
    text = _readme()
    if not text:
        raise HTTPException(404, "no documentation in this install: see simkit --help")
    return PlainTextResponse(text)


#: The documentation site, as ``mkdocs build`` writes it in the checkout.
DOCS_SITE = pathlib.Path(__file__).resolve().parents[2] / "site"


def _serve_tree(prefix: str, what: str, missing: str) -> None:
    """``/PREFIX/...``: the files of the directory ``app.state.PREFIX`` (the
    rendered reports, the built documentation), or, while it has no
    index.html, a page of the app's style saying how to make it."""
    async def root() -> RedirectResponse:
        return RedirectResponse(f"/{prefix}/")

    async def files(rel: str, request: Request):
        top: pathlib.Path = getattr(request.app.state, prefix)
        if rel in ("", "index.html") and not _is_file(top / "index.html"):
            return _note(missing.format(where=top), prefix)
        return _tree(top, rel, prefix, what)

    pages.add_api_route(f"/{prefix}", root, methods=["GET"], include_in_schema=False)
    pages.add_api_route(f"/{prefix}/{{rel:path}}", files, methods=["GET"],
                        include_in_schema=False)


_serve_tree("reports", "report file", NO_REPORTS_BODY)
_serve_tree("docs", "documentation page", NO_DOCS_BODY)


# --- the app ------------------------------------------------------------------------------

async def _input_error(request: Request, exc: Exception) -> JSONResponse:
    return _error(400, str(exc))


async def _busy(request: Request, exc: Exception) -> JSONResponse:
    return _error(429, str(exc), {"Retry-After": "2"})


async def _stopping(request: Request, exc: Exception) -> JSONResponse:
    return _error(503, str(exc))


async def _cancelled(request: Request, exc: Exception) -> JSONResponse:
    return _error(503, "the server is shutting down: the request was stopped")


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return _error(400, f"bad request {where}: {first.get('msg', 'invalid')}")


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    text = exc.detail if isinstance(exc.detail, str) else "not found"
    if exc.status_code == 404 and text == "Not Found":
        text = f"nothing at {request.url.path[:100]!r}"
    return _error(exc.status_code, text)


def create_app(reports: str = "reports", *, docs: str | None = None,
               warm: Callable[..., Any] | None | bool = True, abandoned: float = ABANDONED,
               most: int = MAX_RUNNING, per_client: int = PER_CLIENT) -> FastAPI:
    """The app: pages, API, jobs.  ``reports`` is the directory ``/reports/``
    serves, ``docs`` the built documentation site ``/docs/`` serves (default:
    :data:`DOCS_SITE`).  ``warm``: True compiles the pages' kernels at startup
    (:func:`simkit.answers.warm_up`, in a background thread), False skips it
    (the kernels compile on first use), or a function to call instead.
    ``abandoned``: seconds without a poll before a job is cancelled; ``most``
    and ``per_client``: runs at once in all and per client (:class:`Runs`,
    ``app.state.runs``)."""
    from contextlib import asynccontextmanager

    fn = answers.warm_up if warm is True else (None if warm is False else warm)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.warmth.start()
        yield
        app.state.runs.stop_all()

    app = FastAPI(title="simkit", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.warmth = Warmth(fn)
    app.state.runs = Runs(most, per_client)
    app.state.jobs = Jobs(app.state.runs, abandoned=abandoned)
    app.state.reports = pathlib.Path(reports).absolute()
    app.state.docs = pathlib.Path(docs).absolute() if docs is not None else DOCS_SITE
    app.add_exception_handler(InputError, _input_error)
    app.add_exception_handler(Busy, _busy)
    app.add_exception_handler(Stopping, _stopping)
    app.add_exception_handler(Cancelled, _cancelled)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http_error)
    app.include_router(api)
    app.include_router(pages)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(_Guard)
    return app


def _check_port(host: str, port: int) -> None:
    """Refuse a port that is taken, before uvicorn would fail with a traceback."""
    if not 0 < port < 65536:
        raise InputError(f"bad --port {port}: expected 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise InputError(f"bad --host {host!r}: not an address of this machine") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            raise InputError(f"cannot listen on {host}:{port} ({e.strerror}): choose another "
                             f"--port") from None


def uvicorn_server(app: FastAPI, host: str, port: int):
    """uvicorn's server for ``app``; its shutdown (SIGTERM, Ctrl-C) stops every
    run first, so that the open requests end at once and the graceful shutdown
    (at most :data:`GRACE` seconds) does not wait for their work."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets=None) -> None:
            app.state.runs.stop_all()
            await super().shutdown(sockets)

        @contextlib.contextmanager
        def capture_signals(self):
            # SIGHUP as uvicorn takes SIGTERM: a clean shutdown, then the
            # signal raised again for the command's own handler (one line, 129)
            with super().capture_signals():
                main = threading.current_thread() is threading.main_thread()
                before = signal.signal(signal.SIGHUP, self.handle_exit) if main else None
                try:
                    yield
                finally:
                    if main:
                        signal.signal(signal.SIGHUP, before)

    return Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                 timeout_graceful_shutdown=GRACE))


def serve(host: str = "127.0.0.1", port: int = 8765, open_browser: bool = False,
          reports: str = "reports") -> None:
    """Run the app until Ctrl-C or SIGTERM (which stop every run, then the
    server, within seconds): print its address, open it in the browser with
    ``open_browser``.  Binds to ``host`` (this machine only by default)."""
    _check_port(host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    print(f"simkit: serving on {url} (Ctrl-C to stop)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"simkit: listening on {host}: other machines can reach this app", file=sys.stderr)
    if open_browser:
        import webbrowser
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    uvicorn_server(create_app(reports), host, port).run()
