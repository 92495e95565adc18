"""A server that cannot be tied up (simkit/app/web/server.py): every size a request
names is bounded and refused over its bound before any work; a direct
answer's work stops within a second of its client leaving; runs are capped
in all and per client (429) while /api/health still answers at once; SIGTERM
and Ctrl-C stop ``simkit serve`` within seconds under load; odd paths and
bodies are refused, never a 500.

The API through FastAPI's TestClient where the network does not matter, and
through uvicorn on a free port where it does (a client that disconnects, the
latency of /api/health, signals to a real ``simkit serve``)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from fastapi.testclient import TestClient

from simkit.app import answers
from simkit.app.web import jobs, server

#: The app answers only at this machine's names: the test client asks as one.
LOCAL = "http://127.0.0.1"

#: Runs of many deals: the full suite's, not the quick tier's (-m "not slow").
pytestmark = pytest.mark.slow

HAND = "JH JD AH KH 9C 9S"
#: The most samples the web app takes: an advice of about ten seconds, a heavy run.
BIG = answers.limits()["advise"]["samples"]
ROOT = Path(__file__).resolve().parent.parent


def _refused(resp, status: int, *names: str) -> str:
    """A refusal as every bad request gets it: the status, JSON with one
    sentence naming ``names``, no traceback."""
    assert resp.status_code == status, (resp.status_code, resp.text[:300])
    body = resp.json()
    assert set(body) == {"error"}, body
    text = body["error"]
    assert text, text
    assert "\n" not in text, text
    assert "Traceback" not in text, text
    assert len(text) < 400, text
    assert not re.search(r"[.!?] [A-Z]", text), text  # one sentence
    for name in names:
        assert name in text, (name, text)
    return text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _until(what, seconds: float, step: float = 0.02):
    """Wait for ``what()`` to be true: the seconds it took (fails after ``seconds``)."""
    t0 = time.monotonic()
    while not what():
        assert time.monotonic() - t0 < seconds, f"not within {seconds} s"
        time.sleep(step)
    return time.monotonic() - t0


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with TestClient(server.create_app(str(tmp_path_factory.mktemp("reports")),
                                      warm=False), base_url=LOCAL) as c:
        yield c


@pytest.fixture
def no_work(monkeypatch):
    """Any estimate, answer or job started fails the test (as a 500): a refusal
    must come before all of them."""
    def fail(*args, **kwargs):
        raise AssertionError("work started for a request that should have been refused")

    monkeypatch.setattr(answers, "estimate", fail)
    monkeypatch.setattr(jobs, "answer_fn", fail)
    monkeypatch.setattr(server.Jobs, "start", fail)


# --- every size is bounded, and checked before any work ---------------------------------------

def test_the_bounds_are_stated(client):
    lim = client.get("/api/limits").json()
    assert {k: lim[k] for k in ("advise", "compare", "show", "search")} == answers.limits()
    assert lim["advise"]["samples"] == BIG
    assert lim["compare"]["hands"] < 10 ** 12
    assert lim["running"] == server.MAX_RUNNING
    assert lim["per_client"] == server.PER_CLIENT
    assert lim["sync_seconds"] == server.SYNC_SECONDS
    assert client.get("/api/games").json()["limits"] == lim


PEPPER = f"game=pepper&{urlencode({'hand': HAND})}"
COMPARE = "game=pepper&variant=A:&variant=B:fail=bid"


@pytest.mark.parametrize(("method", "url", "name"), [
    ("GET", f"/api/advise?{PEPPER}&samples={10 ** 12}", "samples"),
    ("GET", f"/api/advise?{PEPPER}&score=1:1&games={10 ** 12}", "games"),
    ("GET", f"/api/compare?{COMPARE}&hands={10 ** 12}", "hands"),
    ("GET", f"/api/compare?{COMPARE}&games={10 ** 12}", "games"),
    ("GET", f"/api/show?game=pitch&index={10 ** 15}", str(10 ** 15)),
    ("POST", f"/api/jobs?command=advise&{PEPPER}&samples={10 ** 12}", "samples"),
    ("POST", f"/api/jobs?command=advise&{PEPPER}&seat=-1", "-1"),
    ("POST", f"/api/jobs?command=advise&{PEPPER}&score=banana", "banana"),
    # a score far below the target: each game played out from it would run for ages
    ("POST", f"/api/jobs?command=advise&{PEPPER}&score=-999999:-999999", "within 100"),
    ("POST", f"/api/jobs?command=advise&{PEPPER}&set=target=500&score=1001:0", "within 1,000"),
    ("POST", f"/api/jobs?command=compare&{COMPARE}&hands={10 ** 12}", "hands"),
    ("GET", f"/api/estimate?command=advise&{PEPPER}&samples={10 ** 12}", "samples"),
    ("GET", f"/api/estimate?command=advise&{PEPPER}&score=banana", "banana"),
    ("GET", f"/api/estimate?command=compare&{COMPARE}&hands={10 ** 12}", "hands"),
    ("GET", f"/api/advise?{PEPPER}&players=", "players"),
    ("GET", f"/api/advise?{PEPPER}&samples=", "samples"),
    ("POST", f"/api/jobs?command=advise&{PEPPER}&samples=", "samples"),
    ("GET", f"/api/estimate?command=compare&{COMPARE}&hands=", "hands"),
])
def test_a_size_over_its_bound_or_a_bad_value_is_400_before_any_work(client, no_work,
                                                                     method, url, name):
    t0 = time.perf_counter()
    _refused(client.request(method, url), 400, name)
    assert time.perf_counter() - t0 < 2.0
    assert client.app.state.runs.running == 0
    assert client.app.state.jobs.jobs == {}


@pytest.mark.parametrize(("option", "value", "word"), [
    ("seat", "-1", "-1"), ("dealer", "9", "9"), ("score", "banana", "banana"),
    ("players", "9", "9"), ("samples", "0", "0"), ("samples", "abc", "abc"),
    ("set", "fail=sometimes", "sometimes"), ("policy", "genius", "genius"),
    ("plans", "pass,moon", "moon"),
])
def test_every_handler_refuses_what_the_command_line_refuses(client, cli, workdir, no_work,
                                                             option, value, word):
    """One option checker: a value ``simkit advise`` refuses, /api/advise,
    /api/estimate and /api/jobs refuse too, in the same words."""
    line = cli.refused("advise", "pepper", "--hand", HAND, f"--{option}={value}", names=(word,))
    query = f"{PEPPER}&{urlencode({option: value})}"
    for method, url in (("GET", f"/api/advise?{query}"),
                        ("GET", f"/api/estimate?command=advise&{query}"),
                        ("POST", f"/api/jobs?command=advise&{query}")):
        text = _refused(client.request(method, url), 400, word)
        assert line == f"simkit: error: {text}\n", (url, line, text)


def test_a_direct_answer_longer_than_its_bound_is_refused_with_a_pointer_to_the_jobs(
        client, monkeypatch):
    """Direct answers take seconds at most, by the estimate the page shows."""
    long = {"seconds": server.SYNC_SECONDS + 1, "text": "about 6 s"}
    monkeypatch.setattr(answers, "estimate", lambda command, a, stop=None: long)
    monkeypatch.setattr(jobs, "answer_fn", lambda command: pytest.fail("it ran"))
    _refused(client.get(f"/api/advise?{PEPPER}&samples=1000"), 400, "about 6 s", "/api/jobs")
    _refused(client.get(f"/api/compare?{COMPARE}&hands=1000"), 400, "/api/jobs")
    assert client.get(f"/api/estimate?command=advise&{PEPPER}").json()["sync"] is False


# --- no 500 for odd paths and bodies ------------------------------------------------------------

@pytest.mark.parametrize("rel", ["a" * 60_000, "a/" * 30_000, "%00" * 1000, "x/" * 600 + "y"])
def test_a_long_or_odd_report_path_is_a_404_not_a_500(client, rel):
    _refused(client.get(f"/reports/{rel}"), 404)


@pytest.mark.parametrize("body", [b"[" * 100_000, b'{"record": ' + b"[" * 100_000,
                                  b'{"record": "x", "policy": ' + b"{" * 50_000])
def test_a_deeply_nested_body_is_a_400_not_a_500(client, body):
    _refused(client.post("/api/replay", content=body), 400)


# --- a real server: clients that leave, the cap, /api/health -----------------------------------

@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """``(base url, app)``: an app that runs at most three runs at once, served
    by uvicorn (as ``simkit serve`` serves it) on a free port, in a thread."""
    app = server.create_app(str(tmp_path_factory.mktemp("reports")), warm=False, most=3)
    uv = server.uvicorn_server(app, "127.0.0.1", _free_port())
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    _until(lambda: uv.started or not thread.is_alive(), 20)
    assert thread.is_alive(), "uvicorn did not start"
    yield f"http://127.0.0.1:{uv.config.port}", app
    uv.should_exit = True
    thread.join(10)


def _quick(monkeypatch, seconds: float) -> None:
    """Every run estimated at ``seconds`` (whatever its size): the rules under
    test, not this machine's speed, decide what is direct and what is heavy."""
    said = {"seconds": seconds, "text": f"{seconds} s"}
    monkeypatch.setattr(answers, "estimate", lambda command, a, stop=None: said)


def test_a_direct_answers_work_stops_within_a_second_of_its_client_leaving(live, monkeypatch):
    base, app = live
    _quick(monkeypatch, 1.0)            # ten seconds of work, answered directly
    with socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1]))) as s:
        s.sendall(f"GET /api/advise?{PEPPER}&samples={BIG} HTTP/1.1\r\n"
                  f"Host: 127.0.0.1\r\n\r\n".encode())
        _until(lambda: app.state.runs.running == 1, 10)
        time.sleep(0.5)                 # well into its work
        assert httpx.get(f"{base}/api/health").json()["running"] == 1
    took = _until(lambda: app.state.runs.running == 0, 3.0, step=0.01)
    print(f"stopped {took:.2f} s after the client left")
    assert took < 1.5
    assert httpx.get(f"{base}/api/health").json()["running"] == 0


def test_runs_are_capped_per_client_and_per_address_and_health_answers_at_once(live,
                                                                              monkeypatch):
    """Each client (an identity the server gives, in a cookie) one heavy run; one
    address, whatever identities it holds (a header it sends is no identity),
    all runs but one; /api/health answers at once all the while."""
    base, app = live
    _quick(monkeypatch, 30.0)           # heavy: one per client
    start = f"{base}/api/jobs?command=advise&{PEPPER}&samples={BIG}"
    ids = []
    clients = [httpx.Client(timeout=10) for _ in range(3)]
    a, b, c = clients
    try:
        ids.append(a.post(start).json()["id"])
        assert "simkit_client" in a.cookies
        _refused(a.post(start, headers={"X-Simkit-Client": "another"}), 429,
                 "one runs at a time")
        ids.append(b.post(start).json()["id"])
        assert app.state.runs.running == 2 == app.state.runs.most - 1
        # a third identity from the same address: two long runs per address, and the
        # server keeps its last run for others
        _refused(c.post(start), 429, "your address has 2 long runs")
        _quick(monkeypatch, 0.5)
        _refused(c.get(f"{base}/api/advise?{PEPPER}&samples=1000"), 429,
                 "keeps one for others")
        # /api/health answers within 100 ms all the while
        took = []
        for _ in range(20):
            t0 = time.perf_counter()
            assert c.get(f"{base}/api/health").json()["running"] == 2
            took.append(time.perf_counter() - t0)
            a.get(f"{base}/api/jobs/{ids[0]}")          # the jobs are watched
            time.sleep(0.05)
        print(f"/api/health under the cap: max {max(took) * 1000:.1f} ms, "
              f"median {sorted(took)[10] * 1000:.1f} ms")
        assert max(took) < 0.1, took
        # a cancelled run no longer counts for its client
        a.delete(f"{base}/api/jobs/{ids[0]}")
        _until(lambda: app.state.runs.running == 1, 2)
        _quick(monkeypatch, 30.0)
        ids.append(a.post(start).json()["id"])
    finally:
        for i in ids:
            httpx.delete(f"{base}/api/jobs/{i}")
        for x in clients:
            x.close()
    _until(lambda: app.state.runs.running == 0, 2)


def test_connections_that_never_finish_their_headers_cannot_block_health(live):
    """A flood of connections that send half a request's headers: the oldest
    waiting ones are closed to make room, each has seconds to finish, and
    /api/health still answers at once; the server's open files stay few."""
    import os
    import resource

    base, _ = live
    port = int(base.rsplit(":", 1)[1])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 4096)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    before = len(os.listdir("/proc/self/fd"))
    socks = []
    try:
        for _ in range(min(1500, want - before - 100)):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        t0 = time.perf_counter()
        got = httpx.get(f"{base}/api/health", timeout=5)
        assert got.status_code == 200
        assert time.perf_counter() - t0 < 2
        # the server side of the waiting ones: at most PENDING held (this process is both)
        open_now = len(os.listdir("/proc/self/fd")) - before - len(socks)
        assert open_now <= server.PENDING + 20, open_now
    finally:
        for s in socks:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_direct_answer_that_breaks_its_estimate_is_stopped(live, monkeypatch):
    """Estimated at a tenth of a second, a run of ten seconds: stopped once it
    takes three times the limit a direct answer has, and answered 503."""
    base, app = live
    _quick(monkeypatch, 0.1)
    monkeypatch.setattr(server, "SYNC_SECONDS", 0.5)
    t0 = time.perf_counter()
    got = httpx.get(f"{base}/api/advise?{PEPPER}&samples={BIG}", timeout=30)
    took = time.perf_counter() - t0
    assert got.status_code == 503
    assert "longer than a direct answer may" in got.json()["error"]
    assert took < 6
    _until(lambda: app.state.runs.running == 0, 3)


def _raw(base: str, request: bytes) -> tuple[int, bytes]:
    """``(status, body)`` of one raw HTTP request (no client library's URL limits)."""
    with socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), timeout=10) as s:
        s.sendall(request)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


@pytest.mark.parametrize("rel", ["a" * 100_000, "a/" * 50_000])
def test_a_100000_character_report_path_is_a_404_not_a_500(live, rel):
    status, body = _raw(live[0], f"GET /reports/{rel} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                 f"Connection: close\r\n\r\n".encode())
    assert status == 404, (status, body[:200])
    assert "error" in json.loads(body), (status, body[:200])


def test_a_deeply_nested_body_over_the_wire_is_a_400(live):
    body = b"[" * 100_000
    status, answer = _raw(live[0], b"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Content-Type: application/json\r\nConnection: close\r\n"
                          + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    assert status == 400
    assert "nested" in json.loads(answer)["error"]


# --- SIGTERM and Ctrl-C -------------------------------------------------------------------------

@contextlib.contextmanager
def _serving(tmp_path):
    """A real ``simkit serve`` process, once it answers: ``(process, base URL)``;
    killed at the end if it is still running."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "simkit.app.cli", "serve", "--port", str(port)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        def up() -> bool:
            assert proc.poll() is None, proc.communicate()
            try:
                return httpx.get(f"{base}/api/health", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        _until(up, 60, step=0.1)
        yield proc, base
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_simkit_serve_within_five_seconds_under_load(tmp_path, sig):
    with _serving(tmp_path) as (proc, base):
        job = httpx.post(f"{base}/api/jobs?command=advise&{PEPPER}&samples={BIG}",
                         timeout=60).json()["id"]

        def moving() -> bool:
            return httpx.get(f"{base}/api/jobs/{job}").json()["progress"] > 0

        _until(moving, 30, step=0.1)
        # and a direct answer in flight, its client waiting
        threading.Thread(target=lambda: httpx.get(
            f"{base}/api/advise?{PEPPER}&samples=20000", timeout=30), daemon=True).start()
        time.sleep(0.3)
        assert httpx.get(f"{base}/api/health").json()["running"] >= 1
        t0 = time.monotonic()
        proc.send_signal(sig)
        proc.wait(timeout=10)
        took = time.monotonic() - t0
        _out, err = proc.communicate()
        print(f"{sig.name}: simkit serve exited {took:.2f} s after the signal "
              f"(code {proc.returncode})")
        assert took < 5.0, err
        assert "Traceback" not in err, err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_an_idle_simkit_serve_stops_on_a_signal_in_one_line(tmp_path, sig):
    """Idle, as under load: exit code 128 + the signal, and one line saying so."""
    with _serving(tmp_path) as (proc, _):
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=10)
    said = "interrupted" if sig == signal.SIGINT else f"stopped by {sig.name}"
    assert proc.returncode == 128 + sig, err
    assert err.strip().splitlines() == [f"simkit: {said}"], err


# --- who may drive the server: its own pages only --------------------------------------------

JOB = f"/api/jobs?command=advise&{PEPPER}"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.evil.example",
                                  "localhost.evil", ""])
def test_a_host_that_is_not_the_servers_is_refused(client, no_work, host):
    """DNS rebinding: another site's name pointed at this machine reaches no
    answer, no file and no job."""
    for method, path in (("GET", "/api/health"), ("GET", "/README.md"), ("GET", "/reports/"),
                         ("POST", JOB), ("GET", f"/api/advise?{PEPPER}")):
        got = client.request(method, path, headers={"Host": host})
        assert got.status_code == 403, (host, path)
        assert "answers only at its own addresses" in got.json()["error"]


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:9999", "[::1]:8765",
                                  "LOCALHOST"])
def test_this_machines_names_are_answered(client, host):
    assert client.get("/api/health", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://127.0.0.1:1"},                       # another port: another origin
    {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"},      # <img src=...>
    {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"},
    {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"},     # a link to the API
])
def test_another_sites_page_can_neither_start_work_nor_read_an_answer(client, no_work,
                                                                      headers):
    for method, path, body in (("POST", JOB, None),
                               ("POST", "/api/replay", b"record text"),
                               ("GET", f"/api/advise?{PEPPER}", None),
                               ("GET", f"/api/estimate?command=advise&{PEPPER}", None),
                               ("GET", "/api/show?game=pepper&index=0", None)):
        got = client.request(method, path, headers={**headers, "Content-Type": "text/plain"},
                             content=body)
        assert got.status_code == 403, (headers, path)
        assert got.json()["error"].startswith("requests from another site's page are refused")
        assert not any(k.lower().startswith("access-control-") for k in got.headers)


def test_a_link_from_another_site_opens_a_page_but_reads_no_file(client):
    nav = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate",
           "Sec-Fetch-Dest": "document"}
    assert client.get("/", headers=nav).status_code == 200
    assert client.get("/compare", headers=nav).status_code == 200
    sub = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors",
           "Sec-Fetch-Dest": "script"}
    assert client.get("/static/common.js", headers=sub).status_code == 403
    own = {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors",
           "Origin": "http://127.0.0.1"}
    assert client.get("/api/health", headers=own).status_code == 200


def test_no_answer_grants_another_origin_anything(client):
    for path in ("/api/health", "/api/games", "/", "/static/common.js"):
        got = client.get(path, headers={"Origin": "http://127.0.0.1"})
        assert not any(k.lower().startswith("access-control-") for k in got.headers), path
    pre = client.options("/api/jobs", headers={"Origin": "http://evil.example",
                                               "Access-Control-Request-Method": "POST"})
    assert pre.status_code == 403
    assert "access-control-allow-origin" not in pre.headers


def test_the_server_gives_each_client_its_identity():
    """A client's identity is the server's signed cookie: kept while it is
    sent back, replaced when forged."""
    from simkit.app.web.limits import CLIENT_COOKIE
    app = server.create_app(warm=False)
    with TestClient(app, base_url=LOCAL) as c:
        given = c.get("/api/health").cookies[CLIENT_COOKIE]
        again = c.get("/api/health", headers={"Cookie": f"{CLIENT_COOKIE}={given}"})
        assert CLIENT_COOKIE not in again.cookies           # kept: nothing new to set
        forged = c.get("/api/health", headers={"Cookie": f"{CLIENT_COOKIE}=chosen.abc"})
        assert forged.cookies[CLIENT_COOKIE] not in ("chosen.abc", given)


def test_an_estimate_is_kept_by_everything_it_depends_on(client, monkeypatch):
    """Two compare estimates that differ only in a rule that makes sessions
    longer are timed apart, not answered from one timing."""
    timed = []
    real = answers._timed

    def spy(run, most, stop):
        timed.append(most)
        return real(run, most, stop)

    monkeypatch.setattr(answers, "_timed", spy)
    monkeypatch.setattr(answers, "_timings", {})
    base = "/api/estimate?command=compare&game=pitch&variant=A:&games=400&hands=1000&skill=0"
    short = client.get(base + "&variant=B:session_hands=20").json()
    n = len(timed)
    long_ = client.get(base.replace("variant=A:", "variant=A:session_hands=400")
                       + "&variant=B:session_hands=399").json()
    assert len(timed) > n                       # the new rules were timed, not looked up
    assert long_["seconds"] > 2 * short["seconds"]    # sessions 20 times as long
