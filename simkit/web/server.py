"""The web app of ``simkit serve``: pages, the JSON API and the jobs behind long runs.

Every answer comes from :mod:`simkit.answers`, the functions the command
line prints, so ``GET /api/advise?...`` returns exactly what ``simkit advise
... --json`` prints for the same options.  The query parameters are the
CLI's long option names (``game``, ``hand``, ``set`` and ``policy``
repeated, ...), parsed by the CLI's own parser.

- Pages: ``/`` (the advisor), ``/hand`` (the hand viewer), ``/compare``,
  ``/reports/`` (the rendered reports directory), assets under ``/static/``.
- ``GET /api/health``: ``{"status": "ready"}`` once the kernels the pages
  use are compiled (a background thread from startup), ``"warming"`` before;
  answered on the event loop, so at once even while runs take every thread.
- ``GET /api/games``, ``/api/advise``, ``/api/compare``, ``/api/estimate``,
  ``/api/show``; ``POST /api/replay`` (``{"record": text, "policy": [...]}``).
- Jobs, for the pages' long runs: ``POST /api/jobs?command=advise&...``
  starts one on its own thread; ``GET /api/jobs/{id}`` gives its status and
  progress (0..1) and, once done, its result; ``DELETE`` cancels it.  A job
  nobody has asked about for :data:`ABANDONED` seconds is cancelled: a
  closed tab's work stops.

Bad input is HTTP 400 with ``{"error": "one sentence"}`` (the
:class:`~simkit.errors.InputError` text); anything unexpected is logged here
and answered with a one-line 500, never a traceback.  Bodies, query values
and the number of query parameters are capped; files are served only from
the app's own ``static/`` folder and the reports directory.
"""

from __future__ import annotations

import json
import logging
import pathlib
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
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse
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
#: Seconds without a poll after which a running job is cancelled (its tab is gone).
ABANDONED = 5.0
#: Seconds a finished job's answer is kept for its page to fetch.
KEPT = 120.0
#: Jobs running at once; more is refused until one finishes.
MAX_RUNNING = 8
JOB_COMMANDS = ("advise", "compare")


# --- errors and limits ------------------------------------------------------------------

def _error(status: int, text: str) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


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
            log.exception("simkit serve: %s %s failed", scope.get("method"), scope.get("path"))
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


def _run(command: str, params: list[tuple[str, str]]) -> dict:
    """The answer of ``advise`` or ``compare`` for the query's options."""
    a = answers.parse(command, params)
    # in steps under the kernel lock, as jobs run: numba's thread pool is
    # entered by one thread at a time (its workqueue layer is not thread-safe)
    work = Work()
    return answers.advise(a, work) if command == "advise" else answers.compare(a, work)


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


# --- jobs ---------------------------------------------------------------------------------

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

    def __init__(self, abandoned: float = ABANDONED, kept: float = KEPT):
        self.abandoned, self.kept = abandoned, kept
        self.lock = threading.Lock()
        self.jobs: dict[str, Job] = {}
        self.watchman: threading.Thread | None = None

    def start(self, command: str, params: list[tuple[str, str]]) -> Job:
        a = answers.parse(command, params)       # bad options: 400 now, not a failed job
        with self.lock:
            running = sum(j.status == "running" for j in self.jobs.values())
            if running >= MAX_RUNNING:
                raise InputError(f"the server is busy with {running} runs: wait for one to "
                                 f"finish or cancel it")
            job = Job(uuid.uuid4().hex, command)
            self.jobs[job.id] = job
            if self.watchman is None:
                self.watchman = threading.Thread(target=self._watch, daemon=True,
                                                 name="simkit-jobs")
                self.watchman.start()
        job.thread = threading.Thread(target=self._work, args=(job, a), daemon=True,
                                      name=f"simkit-job-{job.id[:8]}")
        job.thread.start()
        return job

    def _work(self, job: Job, a) -> None:
        def report(fraction: float) -> None:
            job.progress = min(1.0, max(job.progress, float(fraction)))

        work = Work(report=report, stop=job.stop)
        try:
            fn = answers.advise if job.command == "advise" else answers.compare
            result = fn(a, work=work)
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


# --- routes -------------------------------------------------------------------------------

api = APIRouter(prefix="/api")


@api.get("/health")
async def health(request: Request) -> dict:
    w: Warmth = request.app.state.warmth
    out = {"status": "ready" if w.ready.is_set() else "warming"}
    if not w.ready.is_set() and w.detail:
        out["detail"] = w.detail
    return out


@api.get("/games")
def games_info() -> dict:
    return answers.games_info()


@api.get("/advise")
def advise(request: Request) -> dict:
    return _run("advise", _params(request))


@api.get("/compare")
def compare(request: Request) -> dict:
    return _run("compare", _params(request))


@api.get("/estimate")
def estimate(request: Request) -> dict:
    command = _command(request)
    return answers.estimate(command, answers.parse(command, _params(request, ("command",))))


@api.get("/show")
def show(request: Request) -> dict:
    return answers.show(answers.parse("show", _params(request)))


@api.post("/replay")
async def replay(request: Request) -> dict:
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        raise InputError("the body is not JSON: send {\"record\": TEXT, \"policy\": "
                         "[SPEC, ...]}") from None
    if not isinstance(body, dict) or not isinstance(body.get("record"), str):
        raise InputError("give the record as text: {\"record\": TEXT}")
    unknown = sorted(set(body) - {"record", "policy"})
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r}: expected record and policy")
    policy = body.get("policy") or None
    if policy is not None and not (isinstance(policy, list)
                                   and all(isinstance(p, str) for p in policy)):
        raise InputError("policy must be a list of policy texts, e.g. [\"heuristic\"]")
    return await run_in_threadpool(answers.replay, body["record"], policy)


@api.post("/jobs")
def job_start(request: Request) -> dict:
    command = _command(request)
    job = request.app.state.jobs.start(command, _params(request, ("command",)))
    return {"id": job.id}


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
<a href="/reports/" aria-current="page">Reports</a></nav>
<main class="page"><section class="panel"><h1>No reports yet</h1>
<p>The reports directory <code>{where}</code> holds no reports yet. Render the studies with
<code>simkit report all</code> (a few minutes), then reload this page.</p></section></main>
</body></html>"""


def _report_file(root: pathlib.Path, rel: str) -> pathlib.Path | None:
    """The file under ``root`` that ``rel`` names (a folder: its index.html), or
    None when there is none or ``rel`` leads outside ``root``."""
    if "\x00" in rel:
        return None
    try:
        base = root.resolve()
        target = (base / rel).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if not target.is_relative_to(base):
        return None
    if target.is_dir():
        target = target / "index.html"
    return target if target.is_file() else None


@pages.get("/reports", include_in_schema=False)
async def reports_root() -> RedirectResponse:
    return RedirectResponse("/reports/")


@pages.get("/reports/{rel:path}", include_in_schema=False)
async def reports(rel: str, request: Request):
    root: pathlib.Path = request.app.state.reports
    if rel in ("", "index.html") and not (root / "index.html").is_file():
        return HTMLResponse(NO_REPORTS.format(where=root), status_code=200)
    if not root.is_dir():
        raise HTTPException(404, f"no report {rel[:80]!r}: the reports directory does not "
                                 f"exist yet (simkit report all)")
    found = _report_file(root, rel)
    if found is None:
        raise HTTPException(404, f"no report file {rel[:80]!r} in the reports directory")
    if rel and not rel.endswith("/") and (root / rel).is_dir():
        return RedirectResponse(f"/reports/{rel}/")       # so its relative links resolve
    return FileResponse(found)


# --- the app ------------------------------------------------------------------------------

async def _input_error(request: Request, exc: Exception) -> JSONResponse:
    return _error(400, str(exc))


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


def create_app(reports: str = "reports", *, warm: Callable[..., Any] | None | bool = True,
               abandoned: float = ABANDONED) -> FastAPI:
    """The app: pages, API, jobs.  ``reports`` is the directory ``/reports/``
    serves.  ``warm``: True compiles the pages' kernels at startup
    (:func:`simkit.answers.warm_up`, in a background thread), False skips it
    (the kernels compile on first use), or a function to call instead.
    ``abandoned``: seconds without a poll before a job is cancelled."""
    from contextlib import asynccontextmanager

    fn = answers.warm_up if warm is True else (None if warm is False else warm)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.warmth.start()
        yield
        for job in list(app.state.jobs.jobs.values()):
            job.stop.set()

    app = FastAPI(title="simkit", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.warmth = Warmth(fn)
    app.state.jobs = Jobs(abandoned=abandoned)
    app.state.reports = pathlib.Path(reports).absolute()
    app.add_exception_handler(InputError, _input_error)
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


def serve(host: str = "127.0.0.1", port: int = 8765, open_browser: bool = False,
          reports: str = "reports") -> None:
    """Run the app until Ctrl-C: print its address, open it in the browser
    with ``open_browser``.  Binds to ``host`` (this machine only by default)."""
    import uvicorn

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
    uvicorn.run(create_app(reports), host=host, port=port, log_level="warning")
