"""The web app's API (simkit/app/web/server.py) through FastAPI's TestClient: every
endpoint, the same numbers as the command line, bad requests refused with one
sentence, jobs that report progress and stop, files only from the app's own
folders."""

from __future__ import annotations

import functools
import json
import operator
import socket
import threading
import time

import pytest
from fastapi.testclient import TestClient

from simkit.app import answers
from simkit.app.web import server

#: The app answers only at this machine's names: the test client asks as one.
LOCAL = "http://127.0.0.1"

PEPPER = [("game", "pepper"), ("hand", "JH JD AH KH 9C 9S"), ("players", "4"),
          ("seed", "1"), ("samples", "2000")]
#: A job of about ten seconds: the most samples the web app takes.
LONG = [("game", "pepper"), ("hand", "JH JD AH KH 9C 9S"),
        ("samples", str(answers.limits()["advise"]["samples"]))]


@pytest.fixture
def client(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "index.html").write_text("<h1>the reports</h1>")
    (reports / "study").mkdir()
    (reports / "study" / "index.html").write_text("<h1>one study</h1>")
    (tmp_path / "secret.txt").write_text("not for the web")
    with TestClient(server.create_app(str(reports), warm=False), base_url=LOCAL) as c:
        yield c


def _query(pairs) -> str:
    from urllib.parse import urlencode
    return urlencode(pairs)


def _refused(resp, status: int = 400, *names: str) -> str:
    """A refusal as every bad request gets it: the status, JSON with one
    sentence naming ``names``, no traceback."""
    assert resp.status_code == status, (resp.status_code, resp.text)
    body = resp.json()
    assert set(body) == {"error"}, body
    text = body["error"]
    assert text, text
    assert "\n" not in text, text
    assert "Traceback" not in text, text
    for name in names:
        assert name in text, (name, text)
    return text


def _cli_json(capsys, *argv) -> dict:
    from simkit.app.cli import main
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# --- pages and files ----------------------------------------------------------------------

@pytest.mark.parametrize(("path", "marker"), [("/", "advisor.js"), ("/hand", "hand.js"),
                                          ("/compare", "compare.js")])
def test_every_page_is_served_with_its_script(client, path, marker):
    resp = client.get(path)
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/html")
    assert marker in resp.text
    assert 'class="top"' in resp.text
    for asset in ("/static/style.css", f"/static/{marker}", "/static/common.js",
                  "/static/forms.js"):
        assert client.get(asset).status_code == 200, asset


def test_every_page_links_to_the_others_and_the_reports(client):
    js = client.get("/static/common.js").text
    for href in ('"/"', '"/hand"', '"/compare"', '"/reports/"'):
        assert href in js, href


def test_the_pages_load_nothing_from_the_network(client):
    for path in ("/", "/hand", "/compare", "/static/common.js", "/static/advisor.js",
                 "/static/style.css"):
        text = client.get(path).text
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text, path


def test_reports_are_served_from_the_reports_directory(client):
    assert "the reports" in client.get("/reports/").text
    assert "one study" in client.get("/reports/study/").text
    resp = client.get("/reports/study", follow_redirects=False)
    assert resp.status_code in (301, 302, 307)
    assert resp.headers["location"] == "/reports/study/"
    _refused(client.get("/reports/nothing.html"), 404, "nothing.html")


def test_reports_page_says_so_when_there_are_none(tmp_path):
    with TestClient(server.create_app(str(tmp_path / "none"), warm=False), base_url=LOCAL) as c:
        resp = c.get("/reports/")
        assert resp.status_code == 200
        assert "No reports yet" in resp.text
        assert "simkit report all" in resp.text


@pytest.mark.parametrize("path", [
    "/reports/%2e%2e/secret.txt", "/reports/..%2fsecret.txt", "/reports/%2e%2e%2fsecret.txt",
    "/reports/study/%2e%2e/%2e%2e/secret.txt", "/reports/%2fetc%2fpasswd",
    "/static/%2e%2e/server.py", "/static/..%2fserver.py", "/static/%2e%2e/%2e%2e/cli.py",
])
def test_a_path_outside_the_apps_files_is_refused(client, path):
    resp = client.get(path)
    assert resp.status_code in (400, 404), (path, resp.status_code)
    assert "not for the web" not in resp.text
    assert "import" not in resp.text
    assert "root:" not in resp.text


def test_the_glossary_is_the_packages(client):
    """The pages' explanations (static/glossary.js reads ``.terms``) come from
    simkit.app.glossary, the one glossary the package keeps."""
    from simkit.app import glossary
    body = client.get("/api/glossary").json()
    assert body == json.loads(json.dumps(glossary.as_json()))
    kubwa = next(t for t in body["terms"] if t["key"] == "kubwa")
    assert kubwa["means"]
    assert kubwa["source"].startswith("seeds/pepper.md")
    assert "/api/glossary" in client.get("/static/glossary.js").text


def test_an_unknown_path_is_a_json_404(client):
    _refused(client.get("/api/nothing"), 404, "/api/nothing")


def test_an_answer_without_a_value_is_strict_json_null(client, monkeypatch):
    """A NaN in an answer (a plan never held, an empty group) is null, as in
    ``--json``: strict JSON (FastAPI serialises a returned dict through
    pydantic, which writes null; plain ``json.dumps`` would refuse it)."""
    nan = float("nan")
    monkeypatch.setattr(answers, "games_info",
                        lambda: {"p": nan, "rows": [{"ci": [nan, float("inf"), 0.5]}], "n": 3})
    resp = client.get("/api/games")
    assert resp.status_code == 200
    assert resp.text.startswith('{"p":null,"rows":[{"ci":[null,null,0.5]}],"n":3,')


# --- health and warming up ------------------------------------------------------------------

def test_health_says_warming_until_the_kernels_are_compiled():
    go = threading.Event()
    told = []

    def warm(report=None):
        report("pepper advisor")
        told.append(True)
        go.wait(10)

    with TestClient(server.create_app(warm=warm), base_url=LOCAL) as c:
        deadline = time.monotonic() + 5
        while not told and time.monotonic() < deadline:
            time.sleep(0.01)
        assert c.get("/api/health").json() == {"status": "warming", "detail": "pepper advisor",
                                                "running": 0}
        # the pages work meanwhile
        assert c.get("/api/show?game=pitch&seed=3&index=5").status_code == 200
        go.set()
        deadline = time.monotonic() + 5
        while c.get("/api/health").json()["status"] != "ready":
            assert time.monotonic() < deadline
            time.sleep(0.01)


def test_health_answers_at_once_during_a_run(client):
    job = client.post(f"/api/jobs?command=advise&{_query(LONG)}").json()["id"]
    try:
        time.sleep(0.3)
        t0 = time.perf_counter()
        assert client.get("/api/health").json() == {"status": "ready", "running": 1}
        assert time.perf_counter() - t0 < 0.5
    finally:
        client.delete(f"/api/jobs/{job}")


def test_a_failed_warm_up_still_leaves_the_app_ready():
    def warm(report=None):
        raise RuntimeError("compiler trouble")

    with TestClient(server.create_app(warm=warm), base_url=LOCAL) as c:
        deadline = time.monotonic() + 5
        while c.get("/api/health").json()["status"] != "ready":
            assert time.monotonic() < deadline
            time.sleep(0.01)


# --- the answers: the same as the command line ------------------------------------------------

def test_games_lists_every_game_with_what_the_forms_need(client):
    info = client.get("/api/games").json()
    # with the server's bounds, as /api/limits states them
    assert info.pop("limits") == client.get("/api/limits").json()
    assert info == json.loads(json.dumps(answers.games_info()))
    by = {g["name"]: g for g in info["games"]}
    assert set(by) == {"pepper", "pitch", "shiesta", "burraco"}
    assert by["pepper"]["hand_size"]["4"] == 6
    assert "JH" in functools.reduce(operator.iadd, by["pepper"]["deck"], [])
    assert by["pepper"]["advise"]
    assert not by["burraco"]["advise"]


@pytest.mark.parametrize(("pairs", "argv"), [
    (PEPPER, ["advise", "pepper", "--hand", "JH JD AH KH 9C 9S", "--players", "4",
              "--seed", "1", "--samples", "2000"]),
    ([("game", "pitch"), ("hand", "AS KS QS JS 10S 9S"), ("players", "3"), ("seat", "1"),
      ("dealer", "2"), ("set", "low=dealt"), ("policy", "classic"), ("seed", "4"),
      ("samples", "1500"), ("plans", "pass,2,3")],
     ["advise", "pitch", "--hand", "AS KS QS JS 10S 9S", "--players", "3", "--seat", "1",
      "--dealer", "2", "--set", "low=dealt", "--policy", "classic", "--seed", "4",
      "--samples", "1500", "--plans", "pass,2,3"]),
    ([*PEPPER[:-1], ("samples", "300"), ("bound", "1"), ("preset", "one-lap"),
      ("score", "20:12"), ("games", "50")],
     ["advise", "pepper", "--hand", "JH JD AH KH 9C 9S", "--players", "4", "--seed", "1",
      "--samples", "300", "--bound", "--preset", "one-lap", "--score", "20:12",
      "--games", "50"]),
])
def test_advise_returns_exactly_what_the_cli_prints(client, capsys, monkeypatch, pairs, argv):
    # answered directly however busy the machine is (the bound: test_web_limits.py)
    monkeypatch.setattr(server, "SYNC_SECONDS", 1e9)
    resp = client.get(f"/api/advise?{_query(pairs)}")
    assert resp.status_code == 200, resp.text
    assert resp.json() == _cli_json(capsys, *argv)


@pytest.mark.slow
def test_compare_returns_exactly_what_the_cli_prints(client, capsys, monkeypatch):
    monkeypatch.setattr(server, "SYNC_SECONDS", 1e9)
    pairs = [("game", "pepper"), ("variant", "A:"), ("variant", "B:fail=bid"),
             ("hands", "3000"), ("games", "30"), ("seed", "2")]
    resp = client.get(f"/api/compare?{_query(pairs)}")
    assert resp.status_code == 200, resp.text
    assert resp.json() == _cli_json(capsys, "compare", "pepper", "--variant", "A:",
                                     "--variant", "B:fail=bid", "--hands", "3000",
                                     "--games", "30", "--seed", "2")


def test_estimate_says_how_long_before_running(client):
    for command, pairs in (("advise", PEPPER), ("compare", [
            ("game", "pitch"), ("variant", "A:"), ("variant", "B:low=dealt"),
            ("hands", "5000"), ("games", "20")])):
        e = client.get(f"/api/estimate?command={command}&{_query(pairs)}").json()
        assert e["seconds"] > 0, e
        assert e["text"], e
    _refused(client.get(f"/api/estimate?command=bench&{_query(PEPPER)}"), 400, "bench")
    _refused(client.get(f"/api/estimate?{_query(PEPPER)}"), 400, "command")


@pytest.mark.parametrize(("game", "seed", "index"), [("pepper", 3, 1), ("pitch", 3, 5),
                                               ("shiesta", 2, 0), ("burraco", 1, 0)])
def test_show_gives_the_view_with_the_record_simkit_show_prints(client, capsys, game, seed,
                                                                index):
    from simkit.app.cli import main
    view = client.get(f"/api/show?game={game}&seed={seed}&index={index}").json()
    capsys.readouterr()
    assert main(["show", game, "--seed", str(seed), "--hand", str(index)]) == 0
    assert view["record"] == capsys.readouterr().out
    assert view["game"] == game
    assert len(view["seats"]) == view["players"]
    assert view["frames"]
    assert all(len(f["hands"]) == view["players"] for f in view["frames"])
    # the record's result lines are the view's result
    lines = dict(line.split(": ", 1) for line in view["record"].splitlines()
                 if ": " in line and not line.startswith("#"))
    assert view["result"]
    assert all(lines[k] == v for k, v in view["result"])


def test_show_takes_rules_and_policies(client):
    view = client.get("/api/show?game=pepper&seed=1&index=2&players=3&set=auction=one_lap"
                      "&policy=classic").json()
    assert view["players"] == 3
    assert "auction=one_lap" in view["record"]
    assert "cover_third=False" in view["record"]


def test_replay_gives_the_view_of_a_pasted_record(client, capsys, tmp_path):
    from simkit.app.cli import main
    shown = client.get("/api/show?game=pitch&seed=3&index=5").json()
    # the record cut before its play: the policies play the rest
    head = shown["record"].split("\ntrick 1:")[0] + "\n"
    view = client.post("/api/replay", json={"record": head, "policy": ["heuristic"]}).json()
    path = tmp_path / "rec.txt"
    path.write_text(head)
    capsys.readouterr()
    assert main(["replay", str(path), "--policy", "heuristic"]) == 0
    assert view["record"] == capsys.readouterr().out
    assert view["frames"][-1]["caption"]
    full = client.post("/api/replay", json={"record": shown["record"]}).json()
    assert full["record"] == shown["record"]
    assert full["result"] == shown["result"]


# --- bad requests ------------------------------------------------------------------------------

@pytest.mark.parametrize(("url", "names"), [
    ("/api/advise?game=pepper&hand=JH+JD+AH+KH+9C+1Z", ("1Z",)),
    ("/api/advise?game=pepper&hand=JH+JD+AH+KH+9C+JH", ("JH",)),
    ("/api/advise?game=pepper&hand=JH+JD+AH+KH+9C+2S", ("2S",)),
    ("/api/advise?game=pepper&hand=JH+JD+AH+KH+9C&samples=10", ()),
    ("/api/advise?game=pepper&hand=JH+JD+AH+KH+9C+9S&colour=red", ("colour",)),
    ("/api/advise?game=pepper&hand=JH+JD+AH+KH+9C+9S&samples=lots", ("lots",)),
    ("/api/advise?game=pepper&hand=JH+JD+AH+KH+9C+9S&seed=1&seed=2", ("seed",)),
    ("/api/advise?game=pepper&hand=JH+JD+AH+KH+9C+9S&bound=maybe", ("maybe",)),
    ("/api/advise?game=burraco&hand=JH", ("burraco",)),
    ("/api/advise?hand=JH+JD+AH+KH+9C+9S", ("game",)),
    ("/api/advise?game=poker&hand=JH", ("poker",)),
    ("/api/advise?game=pitch&hand=AS+KS+QS+JS+10S+9S&bound=1", ("bound",)),
    ("/api/compare?game=pepper&variant=A:", ("2 to 8 variants",)),
    ("/api/compare?game=pepper&variant=A:&variant=B:fail=sometimes", ("sometimes",)),
    ("/api/show?game=pitch&index=-1", ("-1",)),
    ("/api/show?game=pitch&index=1&set=low=never", ("never",)),
    ("/api/show?game=pitch&index=1&policy=genius", ("genius",)),
    ("/api/jobs/0123", ("0123",)),
])
def test_a_bad_request_is_refused_with_one_sentence(client, url, names):
    status = 404 if url.startswith("/api/jobs/") else 400
    _refused(client.get(url), status, *names)


def test_query_values_and_counts_are_capped(client):
    _refused(client.get("/api/advise?game=pepper&hand=" + "JH+" * 1000), 400, "hand",
             "too long")
    many = "&".join(f"set=a{i}=1" for i in range(300))
    _refused(client.get(f"/api/advise?game=pepper&{many}"), 400, "too many")


def test_replay_refuses_bad_records_and_bodies(client):
    _refused(client.post("/api/replay", json={"record": "game: chess\n"}), 400)
    _refused(client.post("/api/replay", content=b"{not json"), 400, "JSON")
    _refused(client.post("/api/replay", json={"text": "x"}), 400, "record")
    _refused(client.post("/api/replay", json={"record": "x", "extra": 1}), 400, "extra")
    _refused(client.post("/api/replay", json={"record": "x", "policy": "heuristic"}), 400,
             "policy")
    shown = client.get("/api/show?game=pepper&seed=3&index=1").json()["record"]
    broken = shown.replace("trick 2: 3:AH", "trick 2: 3:AS")
    _refused(client.post("/api/replay", json={"record": broken}), 400)


def test_an_oversized_body_is_refused(client):
    _refused(client.post("/api/replay", content=b"x" * (server.MAX_BODY + 1)), 413,
             "too large")

    def chunks():        # no Content-Length: counted as it arrives
        for _ in range(server.MAX_BODY // 65536 + 2):
            yield b"x" * 65536

    _refused(client.post("/api/replay", content=chunks()), 413, "too large")


def test_an_unexpected_failure_is_a_one_line_500_not_a_traceback(client, monkeypatch):
    def broken():
        raise RuntimeError("a bug deep inside")

    monkeypatch.setattr(answers, "games_info", broken)
    text = _refused(client.get("/api/games"), 500)
    assert "a bug deep inside" not in text


# --- jobs -------------------------------------------------------------------------------------

def _wait(client, job_id: str, until, seconds: float = 20.0) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        state = client.get(f"/api/jobs/{job_id}").json()
        if until(state):
            return state
        assert time.monotonic() < deadline, state
        time.sleep(0.05)


def test_a_job_reports_progress_and_gives_the_answer(client):
    job_id = client.post(f"/api/jobs?command=advise&{_query(PEPPER)}").json()["id"]
    seen = []
    state = _wait(client, job_id, lambda s: seen.append(s["progress"]) or s["status"] != "running")
    assert state["status"] == "done"
    assert state["error"] is None
    assert state["progress"] == 1.0
    assert seen == sorted(seen)
    assert state["result"] == client.get(f"/api/advise?{_query(PEPPER)}").json()


def test_a_long_job_shows_progress_and_stops_within_a_second_when_cancelled(client):
    job_id = client.post(f"/api/jobs?command=advise&{_query(LONG)}").json()["id"]
    state = _wait(client, job_id, lambda s: s["progress"] > 0, seconds=10)
    assert 0 < state["progress"] < 1
    assert state["status"] == "running"
    t0 = time.monotonic()
    assert client.delete(f"/api/jobs/{job_id}").json()["status"] == "cancelled"
    job = client.app.state.jobs.jobs[job_id]
    job.thread.join(2.0)
    assert not job.thread.is_alive()
    assert time.monotonic() - t0 < 1.5
    assert client.get(f"/api/jobs/{job_id}").json()["status"] == "cancelled"


def test_a_job_nobody_polls_is_cancelled(tmp_path):
    with TestClient(server.create_app(warm=False, abandoned=0.5), base_url=LOCAL) as c:
        job_id = c.post(f"/api/jobs?command=advise&{_query(LONG)}").json()["id"]
        job = c.app.state.jobs.jobs[job_id]
        job.thread.join(4.0)
        assert not job.thread.is_alive()
        assert job.status == "cancelled"


def test_two_jobs_at_once_both_get_their_answers(client):
    other = [*PEPPER[:3], ("seed", "7"), ("samples", "1500")]
    ids = [client.post(f"/api/jobs?command=advise&{_query(p)}").json()["id"]
           for p in (PEPPER, other)]
    states = [_wait(client, i, lambda s: s["status"] != "running") for i in ids]
    assert [s["status"] for s in states] == ["done", "done"]
    assert states[0]["result"]["seed"] == 1
    assert states[1]["result"]["seed"] == 7


@pytest.mark.slow
def test_compare_runs_as_a_job_too(client):
    pairs = [("game", "pitch"), ("variant", "A:"), ("variant", "B:low=dealt"),
             ("hands", "2000"), ("games", "10")]
    job_id = client.post(f"/api/jobs?command=compare&{_query(pairs)}").json()["id"]
    state = _wait(client, job_id, lambda s: s["status"] != "running")
    assert state["status"] == "done"
    assert state["result"]["labels"] == ["A", "B"]


def test_a_bad_job_is_refused_before_it_starts(client):
    _refused(client.post(f"/api/jobs?command=advise&{_query(PEPPER)}&colour=red"), 400,
             "colour")
    _refused(client.post(f"/api/jobs?command=simulate&{_query(PEPPER)}"), 400, "simulate")
    # every check of the answer runs before the job starts: a bad hand, seat or
    # score is refused now, not reported later by a failed job
    for query, name in (("hand=JH+JD+AH+KH+9C+1Z", "1Z"),
                        ("hand=JH+JD+AH+KH+9C+9S&seat=-1", "-1"),
                        ("hand=JH+JD+AH+KH+9C+9S&score=banana", "banana")):
        _refused(client.post(f"/api/jobs?command=advise&game=pepper&{query}"), 400, name)
    assert client.app.state.jobs.jobs == {}
    assert client.app.state.runs.running == 0


# --- serve ------------------------------------------------------------------------------------

def test_serve_binds_this_machine_and_prints_the_address(monkeypatch, capsys):
    ran = {}

    class Server:
        def __init__(self, app, host, port):
            ran.update(app=app, host=host, port=port)

        def run(self):
            pass

    monkeypatch.setattr(server, "uvicorn_server", Server)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server.serve(port=port)
    assert ran["host"] == "127.0.0.1"
    assert ran["port"] == port
    assert f"http://127.0.0.1:{port}/" in capsys.readouterr().out
    # the whole app (no lifespan: no warm-up thread here)
    c = TestClient(ran["app"], base_url=LOCAL)
    assert c.get("/hand").status_code == 200
    assert c.get("/api/games").status_code == 200


def test_serve_refuses_a_port_in_use_with_one_sentence():
    from simkit.base.errors import InputError
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(InputError, match=str(port)):
            server.serve(port=port)
    with pytest.raises(InputError, match="65536"):
        server.serve(port=65536)


def test_the_docs_are_served_for_the_docs_links(client):
    r = client.get("/README.md")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    assert r.text.startswith("# simkit")
    assert "simkit serve" in r.text


def test_the_built_documentation_is_served_under_docs(tmp_path):
    """/docs/ serves the MkDocs site when it is built; until then a page of the
    app's style says how to build it, with the README as the way in."""
    site = tmp_path / "site"
    with TestClient(server.create_app(str(tmp_path), docs=str(site), warm=False),
                    base_url=LOCAL) as c:
        r = c.get("/docs/")
        assert r.status_code == 200
        assert "The documentation is not built" in r.text
        assert "mkdocs build" in r.text
        assert 'href="/README.md"' in r.text
        assert 'href="/docs/" aria-current="page"' in r.text
        (site / "guides").mkdir(parents=True)
        (site / "index.html").write_text("<h1>simkit docs</h1>")
        (site / "guides" / "index.html").write_text("<h1>guides</h1>")
        assert c.get("/docs/").text == "<h1>simkit docs</h1>"
        assert c.get("/docs", follow_redirects=False).headers["location"] == "/docs/"
        r = c.get("/docs/guides", follow_redirects=False)
        assert r.status_code in (302, 307)
        assert r.headers["location"] == "/docs/guides/"
        assert c.get("/docs/guides/").text == "<h1>guides</h1>"
        for bad in ("nothing.html", "a/" * 3000):
            r = c.get(f"/docs/{bad}")
            assert r.status_code == 404, bad
            assert "no documentation page" in r.json()["error"], bad
