"""The runs behind the web app's answers: how many may go at once, the jobs
that work out long ones on their own threads, and the warm-up at startup.

:class:`Runs` counts every run, job or direct answer: at most
:data:`MAX_RUNNING` at once, and per client one heavy run (estimated over
:data:`HEAVY` seconds) and :data:`PER_CLIENT` in all; beyond, :class:`Busy`
(HTTP 429).  :class:`Jobs` cancels a job nobody has asked about for
:data:`ABANDONED` seconds (a closed tab's work stops) and forgets a finished
one's answer after :data:`KEPT` seconds.
"""

from __future__ import annotations

import argparse
import enum
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.exceptions import HTTPException

from simkit.app import answers
from simkit.base.errors import InputError
from simkit.runs.batches import Cancelled, Work

log = logging.getLogger("simkit.app.web")

#: Seconds without a poll after which a running job is cancelled (its tab is gone).
ABANDONED = 5.0
#: Seconds a finished job's answer is kept for its page to fetch.
KEPT = 120.0
#: Runs (jobs and direct answers) at once; more is refused (429) until one ends.
MAX_RUNNING = 8
#: Runs one client may have at once, and heavy ones among them.
PER_CLIENT = 4
#: Long runs one address may have at once, whatever identities its clients hold.
HEAVY_PER_ADDRESS = 2
#: A run estimated over this many seconds is heavy: one per client at a time.
HEAVY = 2.0


class Command(enum.StrEnum):
    """The answers a job (or ``/api/estimate``) works out."""

    ADVISE = "advise"
    COMPARE = "compare"
    SEARCH = "search"


class Status(enum.StrEnum):
    """Where a job is: its ``status`` in ``GET /api/jobs/{id}``."""

    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"
    FAILED = "failed"


#: An answer's work: its checked arguments and its progress and stop switch.
Answer = Callable[[argparse.Namespace, Work | None], dict[str, Any]]


#: The most the server's kept adaptations (in simkit's cache) may hold.
ADAPT_BYTES = 200 << 20


def _tidy_adaptations() -> None:
    """After an adapted comparison, the cache's adaptations are tidied
    (:func:`simkit.lab.adapt.tidy`): the server's visitors must not fill the
    disk."""
    from simkit.lab import adapt

    try:
        adapt.tidy(adapt.default_place(), ADAPT_BYTES)
    except OSError:
        log.exception("simkit serve: tidying the kept adaptations failed")


def answer_fn(command: Command) -> Answer:
    """The function that works out ``command``'s answer."""
    return {Command.ADVISE: answers.advise, Command.COMPARE: answers.compare,
            Command.SEARCH: answers.search}[command]


class Busy(Exception):
    """A run refused for now: too many runs, or this client has its share (429)."""


class Stopping(Exception):
    """A run refused because the server is shutting down (503)."""


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

    def _report(self, *what: object) -> None:
        self.detail = " ".join(str(w) for w in what)

    def _run(self) -> None:
        try:
            assert self.warm is not None
            self.warm(report=self._report)
        except Exception:      # the kernels then compile on first use instead
            log.exception("simkit serve: warming up failed")
        finally:
            self.ready.set()


# --- runs ---------------------------------------------------------------------------------

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
        """A new run of ``client``'s (``"ADDRESS ID"``: its address and the
        identity the server gave it), or Busy naming the rule it would break:
        per client one heavy run and :attr:`per_client` in all, and per
        address (whatever identities it holds) :data:`HEAVY_PER_ADDRESS` heavy
        runs and all but one of the server's runs."""
        with self.lock:
            self._room()
            live = [r for r in self.active if not r.stop.is_set()]
            mine = [r for r in live if r.client == client]
            address = client.split(" ", 1)[0]
            near = [r for r in live if r.client.split(" ", 1)[0] == address]
            if heavy and any(r.heavy for r in mine):
                raise Busy("you have a long run going already, and one runs at a time per "
                           "client: wait for it to finish, or cancel it")
            if len(mine) >= self.per_client:
                raise Busy(f"you have {len(mine)} runs going already, the most one client "
                           f"may have: wait for one to finish")
            if heavy and sum(r.heavy for r in near) >= HEAVY_PER_ADDRESS:
                raise Busy(f"your address has {HEAVY_PER_ADDRESS} long runs going already, the "
                           "most one address may have: wait for one to finish")
            if len(near) >= max(1, self.most - 1):
                raise Busy(f"your address has {len(near)} runs going already: the server keeps "
                           "one for others; wait for one to finish")
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


# --- jobs ---------------------------------------------------------------------------------

@dataclass
class Job:
    """One long run on its own thread; ``seen`` is when its page last asked."""

    id: str
    command: Command
    stop: threading.Event = field(default_factory=threading.Event)
    status: Status = Status.RUNNING
    progress: float = 0.0
    result: dict[str, Any] | None = None
    error: str | None = None
    seen: float = field(default_factory=time.monotonic)
    ended: float | None = None
    thread: threading.Thread | None = None

    def state(self) -> dict[str, Any]:
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

    def start(self, command: Command, a: argparse.Namespace, run: Run) -> Job:
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

    def _work(self, job: Job, a: argparse.Namespace, run: Run) -> None:
        def report(fraction: float) -> None:
            job.progress = min(1.0, max(job.progress, float(fraction)))

        work = Work(report=report, stop=job.stop)
        try:
            result = answer_fn(job.command)(a, work)
        except Cancelled:
            job.status = Status.CANCELLED
        except InputError as e:
            job.status, job.error = Status.FAILED, str(e)
        except Exception:
            log.exception("simkit serve: job %s (%s) failed", job.id, job.command)
            job.status, job.error = Status.FAILED, "internal error: the run failed (the " \
                                                   "details are in the server's log)"
        else:
            if job.status is Status.RUNNING:
                job.result, job.progress, job.status = result, 1.0, Status.DONE
        finally:
            self.runs.end(run)
            if getattr(a, "adapt", False):
                _tidy_adaptations()
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
        if job.status is Status.RUNNING:
            job.status = Status.CANCELLED
        return job

    def sweep(self) -> None:
        """Cancel jobs nobody polled lately; forget finished ones after :attr:`kept`."""
        now = time.monotonic()
        with self.lock:
            for job in list(self.jobs.values()):
                if job.status is Status.RUNNING and now - job.seen > self.abandoned:
                    log.info("simkit serve: job %s abandoned, cancelled", job.id)
                    job.stop.set()
                    job.status = Status.CANCELLED
                elif job.ended is not None and now - max(job.seen, job.ended) > self.kept:
                    del self.jobs[job.id]

    def _watch(self) -> None:
        while True:
            time.sleep(0.25)
            self.sweep()
