"""The web app of ``simkit serve``: pages, the JSON API and the jobs behind long runs.

Every answer comes from :mod:`simkit.app.answers`, the functions the command
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
  ``/api/compare``, ``/api/estimate``, ``/api/show``, ``/api/measures`` (what a
  search can aim at); ``POST /api/replay``
  (``{"record": text, "policy": [...]}``).
- Jobs, for the pages' long runs: ``POST /api/jobs?command=advise&...``
  (or ``compare``, ``search``) starts one on its own thread (a search: in a
  process of its own, :mod:`simkit.app.search_answers`); ``GET /api/jobs/{id}`` gives its status and
  progress (0..1) and, once done, its result; ``DELETE`` cancels it.  A job
  nobody has asked about for :data:`ABANDONED` seconds is cancelled: a
  closed tab's work stops.

Nothing can tie the server up:

- every size a request names is held to :func:`simkit.app.answers.limits`, and
  every check of the answer runs before any work (:func:`simkit.app.answers.check`),
  for the direct answers, ``/api/estimate`` and jobs alike;
- ``/api/advise`` and ``/api/compare`` answer directly only runs estimated at
  :data:`SYNC_SECONDS` or less (longer ones: a job), and stop their work
  within a second when the client goes away;
- :class:`~simkit.app.web.jobs.Runs` counts every run, job or direct answer: at most
  :data:`MAX_RUNNING` at once, and per client (its address and its
  ``X-Simkit-Client`` header or ``simkit_client`` cookie) one heavy run
  (estimated over :data:`HEAVY` seconds) and :data:`PER_CLIENT` in all;
  beyond, HTTP 429;
- SIGTERM and Ctrl-C stop every run at once (:func:`serve`), so the server
  exits within a few seconds.

The app's rooms: :mod:`~simkit.app.web.limits` (what a request may carry),
:mod:`~simkit.app.web.jobs` (the runs and jobs), :mod:`~simkit.app.web.pages`
(the pages and files); this module holds the API and starts the server.

Bad input is HTTP 400 with ``{"error": "one sentence"}`` (the
:class:`~simkit.base.errors.InputError` text); anything unexpected is logged here
and answered with a one-line 500, never a traceback.  Bodies, query values,
paths and the number of query parameters are capped; files are served only
from the app's own ``static/`` folder and the reports directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import pathlib
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from simkit.app import answers
from simkit.app.web import jobs
from simkit.app.web.jobs import (  # noqa: F401  (KEPT: the docs read the limits here)
    ABANDONED,
    HEAVY,
    KEPT,
    MAX_RUNNING,
    PER_CLIENT,
    Busy,
    Command,
    Jobs,
    Run,
    Runs,
    Stopping,
    Warmth,
)
from simkit.app.web.limits import (
    MAX_BODY,
    MAX_PARAMS,
    MAX_VALUE,
    Gate,
    Guard,
    client_of,
    error,
    job_command,
    query,
)
from simkit.app.web.pages import DOCS_SITE, STATIC, pages
from simkit.base.errors import InputError
from simkit.runs.batches import Cancelled, Work

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger("simkit.app.web")

#: The longest run (estimated, seconds) ``/api/advise`` and ``/api/compare``
#: answer directly; a longer one is refused with a pointer to the jobs.
SYNC_SECONDS = 5.0
#: Seconds between looks for a gone client while a direct answer is worked out.
POLL = 0.1
#: How many times its estimate (and at least the limit) a direct answer may
#: take before it is stopped.
LATE = 3
#: Seconds ``simkit serve`` waits for open requests on SIGTERM or Ctrl-C
#: (their runs are stopped first, so they end well within it).
GRACE = 3
#: Seconds a connection has to send a whole request's headers; connections
#: waiting to, at most; connections and requests at once (beyond: 503).
HEADER_SECONDS, PENDING, MAX_CONNECTIONS = 10, 128, 512


def _prepared(command: str, params: list[tuple[str, str]],
              stop: threading.Event | None = None
              ) -> tuple[argparse.Namespace, dict[str, Any]]:
    """The checked arguments of ``command`` (parsed and held to the limits,
    every check of the answer run) and its estimate: all before any work.
    ``stop`` ends the estimate's timing runs (the server is shutting down)."""
    a = answers.parse(command, params)
    answers.check(command, a)
    return a, answers.estimate(command, a, stop)


async def _watched(request: Request, run: Run, fn: Callable[[], dict[str, Any]],
                   most: float) -> dict[str, Any] | JSONResponse:
    """``fn()`` (a direct answer's work, stopped by ``run.stop``) on a worker
    thread while this looks every :data:`POLL` seconds whether the client has
    gone, and if so stops the work: it ends within a second, not minutes later.
    A run that takes over ``most`` seconds (more than its estimate promised a
    direct answer may) is stopped too, and answered 503: it should be a job."""
    runs: Runs = request.app.state.runs
    started = asyncio.get_running_loop().time()
    late = False

    def work() -> dict[str, Any]:
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
            if not task.done() and asyncio.get_running_loop().time() - started > most:
                late = True
                run.stop.set()
        return task.result()
    except Cancelled:
        if late:
            return error(503, f"this answer took over {most:g} s, longer than a direct answer "
                              "may: run it as a job (POST /api/jobs with the same options)")
        return error(503, "the run was stopped: the client went away or the server is "
                          "shutting down")
    finally:
        if not task.done():             # this request itself was cancelled
            run.stop.set()


# --- routes -------------------------------------------------------------------------------

api = APIRouter(prefix="/api")


@api.get("/health")
async def health(request: Request) -> dict[str, Any]:
    w: Warmth = request.app.state.warmth
    out: dict[str, Any] = {"status": "ready" if w.ready.is_set() else "warming"}
    if not w.ready.is_set() and w.detail:
        out["detail"] = w.detail
    out["running"] = request.app.state.runs.running
    return out


def _limits(runs: Runs, abandoned: float) -> dict[str, Any]:
    """The bounds of every answer's options and of the server's runs."""
    return {**answers.limits(), "sync_seconds": SYNC_SECONDS, "heavy_seconds": HEAVY,
            "running": runs.most, "per_client": runs.per_client,
            "abandoned_seconds": abandoned, "body_bytes": MAX_BODY,
            "value_chars": MAX_VALUE, "params": MAX_PARAMS}


@api.get("/limits")
async def limits(request: Request) -> dict[str, Any]:
    return _limits(request.app.state.runs, request.app.state.jobs.abandoned)


@api.get("/glossary")
def glossary() -> dict[str, Any]:
    """Every game term in plain words (:func:`simkit.app.glossary.as_json`): the
    pages' explanations read it."""
    from simkit.app import glossary as terms

    return terms.as_json()


@api.get("/games")
def games_info(request: Request) -> dict[str, Any]:
    return {**answers.games_info(),
            "limits": _limits(request.app.state.runs, request.app.state.jobs.abandoned)}


async def _answer(request: Request, command: Command) -> dict[str, Any] | JSONResponse:
    """A direct answer: checked, estimated, refused when longer than
    :data:`SYNC_SECONDS` or when the server or the client is busy, else
    worked out while the client waits (and stopped if it leaves)."""
    pairs = query(request)
    runs: Runs = request.app.state.runs
    runs.room()
    a, e = await run_in_threadpool(_prepared, command, pairs, runs.halt)
    if e["seconds"] > SYNC_SECONDS:
        raise InputError(f"this {command} would take {e['text']}, over the {SYNC_SECONDS:g} "
                         f"s a direct answer may take: run it as a job (POST "
                         f"/api/jobs?command={command} with the same options), as the pages "
                         f"do")
    run = runs.admit(client_of(request), e["seconds"] > HEAVY)
    # the estimate is a promise: a run that breaks it by far is stopped
    return await _watched(request, run, lambda: jobs.answer_fn(command)(a, Work(stop=run.stop)),
                          most=max(LATE * SYNC_SECONDS, LATE * e["seconds"]))


@api.get("/advise", response_model=None)
async def advise(request: Request) -> dict[str, Any] | JSONResponse:
    return await _answer(request, Command.ADVISE)


@api.get("/compare", response_model=None)
async def compare(request: Request) -> dict[str, Any] | JSONResponse:
    return await _answer(request, Command.COMPARE)


@api.get("/estimate")
def estimate(request: Request) -> dict[str, Any]:
    _, e = _prepared(job_command(request), query(request, ("command",)),
                     request.app.state.runs.halt)
    return {**e, "sync": e["seconds"] <= SYNC_SECONDS}


@api.get("/measures")
def measures(request: Request) -> dict[str, Any]:
    """The measures a search can aim at, as ``simkit search GAME --list --json``
    gives them (``game``, and ``players`` if not the game's default)."""
    from simkit import games
    from simkit.app import search_answers

    pairs = dict(query(request))
    unknown = sorted(set(pairs) - {"game", "players"})
    if unknown:
        raise InputError(f"unknown option {unknown[0][:40]!r} for measures: expected game, "
                         f"players")
    if "game" not in pairs:
        raise InputError(f"give the game: game={'|'.join(games.GAMES)}")
    players = pairs.get("players")
    if players is not None and not players.isdigit():
        raise InputError(f"bad players {players[:40]!r}: expected a whole number")
    return search_answers.measures(games.get(pairs["game"]).name,
                                   int(players) if players else None)


@api.get("/show")
def show(request: Request) -> dict[str, Any]:
    a = answers.parse("show", query(request))
    return answers.show(a)


@api.post("/replay")
async def replay(request: Request) -> dict[str, Any]:
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
def job_start(request: Request) -> dict[str, Any]:
    what = job_command(request)
    pairs = query(request, ("command",))
    the_jobs: Jobs = request.app.state.jobs
    the_jobs.runs.room()
    a, e = _prepared(what, pairs, the_jobs.runs.halt)   # bad options: 400 now, not a failed job
    run = the_jobs.runs.admit(client_of(request), e["seconds"] > HEAVY)
    return {"id": the_jobs.start(what, a, run).id}


@api.get("/jobs/{job_id}")
def job_state(job_id: str, request: Request) -> dict[str, Any]:
    the_jobs: Jobs = request.app.state.jobs
    return the_jobs.get(job_id).state()


@api.delete("/jobs/{job_id}")
def job_cancel(job_id: str, request: Request) -> dict[str, Any]:
    the_jobs: Jobs = request.app.state.jobs
    return the_jobs.cancel(job_id).state()


# --- the app ------------------------------------------------------------------------------

async def _input_error(request: Request, exc: Exception) -> JSONResponse:
    return error(400, str(exc))


async def _busy(request: Request, exc: Exception) -> JSONResponse:
    return error(429, str(exc), {"Retry-After": "2"})


async def _stopping(request: Request, exc: Exception) -> JSONResponse:
    return error(503, str(exc))


async def _cancelled(request: Request, exc: Exception) -> JSONResponse:
    return error(503, "the server is shutting down: the request was stopped")


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return error(400, f"bad request {where}: {first.get('msg', 'invalid')}")


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    text = exc.detail if isinstance(exc.detail, str) else "not found"
    if exc.status_code == 404 and text == "Not Found":
        text = f"nothing at {request.url.path[:100]!r}"
    return error(exc.status_code, text)


def create_app(reports: str = "reports", *, docs: str | None = None,
               warm: Callable[..., Any] | bool | None = True, abandoned: float = ABANDONED,
               most: int = MAX_RUNNING, per_client: int = PER_CLIENT,
               hosts: Sequence[str] = ()) -> FastAPI:
    """The app: pages, API, jobs.  ``reports`` is the directory ``/reports/``
    serves, ``docs`` the built documentation site ``/docs/`` serves (default:
    :data:`DOCS_SITE`).  ``warm``: True compiles the pages' kernels at startup
    (:func:`simkit.app.answers.warm_up`, in a background thread), False skips it
    (the kernels compile on first use), or a function to call instead.
    ``abandoned``: seconds without a poll before a job is cancelled; ``most``
    and ``per_client``: runs at once in all and per client (:class:`Runs`,
    ``app.state.runs``).  ``hosts``: names the app answers to besides this
    machine's loopback names (:class:`~simkit.app.web.limits.Gate`)."""
    fn = answers.warm_up if warm is True else (None if warm is False else warm)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
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
    app.add_middleware(Guard)
    app.add_middleware(Gate, hosts=tuple(hosts))     # the last added is the outermost
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


def _protocol() -> type:
    """uvicorn's HTTP/1.1 protocol (h11) with two bounds uvicorn lacks: a
    connection must send a whole request's headers within
    :data:`HEADER_SECONDS` of opening (or of its last answer), else it is
    closed; and at most :data:`PENDING` connections may wait without a request
    under way, the oldest closed to make room, so that a flood of connections
    that never finish their headers cannot use up the server's files while
    real requests (``/api/health``) are still answered."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting: dict[Any, float] = {}      # connection: when it began to wait, in order

    class Protocol(H11Protocol):
        timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._wait()
            while len(waiting) > PENDING:
                oldest = next(iter(waiting))
                waiting.pop(oldest)
                oldest._drop()

        def _wait(self) -> None:
            waiting[self] = self.loop.time()
            self.timer = self.loop.call_later(HEADER_SECONDS, self._drop)

        def _drop(self) -> None:
            waiting.pop(self, None)
            if self.timer is not None:
                self.timer.cancel()
            if not self.transport.is_closing():
                self.transport.close()

        def handle_events(self) -> None:
            super().handle_events()
            if self.cycle is not None and not self.cycle.response_complete and self in waiting:
                waiting.pop(self)           # a request's headers are in: it is served
                if self.timer is not None:
                    self.timer.cancel()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self not in waiting:
                self._wait()                # the next request's headers, as soon

        def connection_lost(self, exc: Exception | None) -> None:
            waiting.pop(self, None)
            if self.timer is not None:
                self.timer.cancel()
            super().connection_lost(exc)

    return Protocol


def uvicorn_server(app: FastAPI, host: str, port: int) -> uvicorn.Server:
    """uvicorn's server for ``app``; its shutdown (SIGTERM, Ctrl-C) stops every
    run first, so that the open requests end at once and the graceful shutdown
    (at most :data:`GRACE` seconds) does not wait for their work; connections
    bounded as :func:`_protocol` says."""
    import uvicorn

    class Server(uvicorn.Server):
        #: The signal that stopped the server, if one did.
        stopped_by: int | None = None

        def handle_exit(self, sig: int, frame: Any) -> None:
            self.stopped_by = sig
            super().handle_exit(sig, frame)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            app.state.runs.stop_all()
            await super().shutdown(sockets)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
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
                                 timeout_graceful_shutdown=GRACE, http=_protocol(),
                                 timeout_keep_alive=HEADER_SECONDS,
                                 limit_concurrency=MAX_CONNECTIONS))


def serve(host: str = "127.0.0.1", port: int = 8765, open_browser: bool = False,
          reports: str = "reports", allow_hosts: Sequence[str] = ()) -> None:
    """Run the app until Ctrl-C or SIGTERM (which stop every run, then the
    server, within seconds): print its address, open it in the browser with
    ``open_browser``.  Binds to ``host`` (this machine only by default) and
    answers requests naming it, this machine's loopback names or
    ``allow_hosts`` in their ``Host`` header."""
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
    server = uvicorn_server(create_app(reports, hosts=(host, *allow_hosts)), host, port)
    server.run()
    if getattr(server, "stopped_by", None) == signal.SIGINT:
        # uvicorn raises Ctrl-C again once it has shut down, but asyncio's runner can
        # take it for its own (its task done, nothing raised): Ctrl-C, however it went
        raise KeyboardInterrupt
