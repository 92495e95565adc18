"""The web app's rule search (simkit/app/search_answers.py, the ``search`` job
of simkit/app/web/server.py) through FastAPI's TestClient: its options checked
before any work as ``simkit search`` checks them (a bad one: HTTP 400 and one
sentence naming the value and what is accepted), the web app's caps, the
measures a search can aim at, and (slow) a search job's answer, progress and
Cancel.
"""

from __future__ import annotations

import argparse
import json
import time
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from simkit.app import answers, search_answers
from simkit.app.web import server

LOCAL = "http://127.0.0.1"
#: A small search: five settings of Pepper's target, 600 games each.
SMALL = [("game", "pepper"), ("rule", "target=20:60"), ("goal", "hands per game: mean=12"),
         ("trials", "5"), ("games", "600"), ("seed", "0")]


@pytest.fixture
def client(tmp_path):
    with TestClient(server.create_app(str(tmp_path), warm=False), base_url=LOCAL) as c:
        yield c


def _with(**changes: str | None) -> list[tuple[str, str]]:
    """SMALL with options replaced (None: left out)."""
    out = [(k, v) for k, v in SMALL if k not in changes]
    return out + [(k, v) for k, v in changes.items() if v is not None]


def _refused(resp, *names: str) -> str:
    """HTTP 400 with one sentence (no traceback) naming each of ``names``."""
    assert resp.status_code == 400, (resp.status_code, resp.text)
    body = resp.json()
    assert set(body) == {"error"}, body
    text = body["error"]
    assert text, body
    assert "\n" not in text, text
    assert "Traceback" not in text, text
    for name in names:
        assert name in text, (name, text)
    return text


@pytest.mark.parametrize(("changes", "names"), [
    ({"rule": "target=0:80"}, ("target=0:80", "an integer from 1 to 10000")),
    ({"rule": "target=80:20"}, ("target=80:20",)),
    ({"rule": "colour=1:2"}, ("colour",)),
    ({"rule": "fail=flat,sometimes"}, ("sometimes", "flat")),
    ({"rule": None}, ("rule=KEY=LOW:HIGH",)),
    ({"goal": "nonsense=3"}, ("nonsense", "--list")),
    ({"goal": "hands per game: mean~3"}, ("MEASURE=VALUE",)),
    ({"goal": None}, ("goal=MEASURE=VALUE", "minimize", "maximize")),
    ({"trials": "201"}, ("trials 201", "at most 200")),
    ({"trials": "0"}, ("'0'", "at least 1")),
    ({"games": "50001"}, ("games 50,001", "at most 50,000")),
    ({"games": "lots"}, ("'lots'",)),
    ({"hands": "1000"}, ("--hands does not apply", "--games")),
    ({"seed": "-1"}, ("-1",)),
    ({"sampler": "random"}, ("random", "tpe")),
    ({"players": "9"}, ("9",)),
    ({"policy": "genius"}, ("genius",)),
    ({"out": "/tmp/x"}, ("'out'", "rule, goal")),
    ({"adapt": "1"}, ("'adapt'",)),
])
def test_a_bad_search_is_refused_before_any_work(client, changes, names):
    """Every bad option: 400 and one sentence naming the value (and what is
    accepted), at once from the job's start and from the estimate alike."""
    query = urlencode(_with(**changes))
    text = _refused(client.post(f"/api/jobs?command=search&{query}"), *names)
    assert _refused(client.get(f"/api/estimate?command=search&{query}"), *names) == text
    assert client.app.state.runs.running == 0


def test_the_checks_are_the_commands():
    """The web app's check of a search is ``simkit search``'s own: the same
    sentence for the same bad goal."""
    from simkit.base.errors import InputError
    from simkit.lab import search

    a = answers.parse("search", _with(goal="bids_kubwa_share>=lots"))
    with pytest.raises(InputError) as web:
        answers.check("search", a)
    with pytest.raises(InputError) as cli:
        search.make_spec("pepper", ["target=20:60"],
                         search.SpecSettings(goals=["bids_kubwa_share>=lots"]))
    assert str(web.value) == str(cli.value)


def test_the_limits_say_the_searchs_caps(client):
    lim = client.get("/api/limits").json()["search"]
    assert lim == {"trials": 200, "hands": 1_000_000, "games": 50_000}


def test_a_search_is_estimated_before_it_runs(client):
    e = client.get(f"/api/estimate?command=search&{urlencode(SMALL)}").json()
    assert e["seconds"] > 0
    assert e["text"]


def test_the_command_line_of_a_search():
    """The options as the command line's, repeatable ones once per value, --json."""
    a = answers.parse("search", _with(minimize="bids_kubwa_share", policy="heuristic"))
    argv = search_answers.argv(a)
    assert argv[:2] == ["search", "pepper"]
    assert "--rule=target=20:60" in argv
    assert "--goal=hands per game: mean=12" in argv
    assert "--minimize=bids_kubwa_share" in argv
    assert "--policy=heuristic" in argv
    assert "--games=600" in argv
    assert "--trials=5" in argv
    assert argv[-1] == "--json"
    assert not any(x.startswith("--hands") for x in argv)
    again = answers.parse("search", [("game", "pepper"), *(
        tuple(x[2:].split("=", 1)) for x in argv[2:-1])])
    assert vars(again) == vars(a)


def test_the_measures_a_search_can_aim_at(client):
    """``/api/measures`` is ``simkit search GAME --list --json`` (its measures)."""
    got = client.get("/api/measures?game=pepper").json()
    assert got["players"] == 4
    keys = {m["key"]: m for m in got["measures"]}
    assert keys["hands_per_game_mean"]["unit"] == "game"
    assert keys["bids_kubwa_share"]["kind"] == "rate"
    assert got["measures"] == search_answers.measures("pepper")["measures"]
    assert client.get("/api/measures?game=shiesta&players=5").json()["players"] == 5
    _refused(client.get("/api/measures?game=poker"), "poker")
    _refused(client.get("/api/measures"), "game=")
    _refused(client.get("/api/measures?game=pepper&players=many"), "many")
    _refused(client.get("/api/measures?game=pepper&players=9"), "9")
    _refused(client.get("/api/measures?game=pepper&rule=x"), "'rule'")


def _wait(client, job_id: str, seconds: float = 120) -> tuple[dict, list[float]]:
    seen, deadline = [], time.monotonic() + seconds
    while True:
        s = client.get(f"/api/jobs/{job_id}").json()
        seen.append(s["progress"])
        if s["status"] != "running":
            return s, seen
        assert time.monotonic() < deadline, "the search took too long"
        time.sleep(0.2)


@pytest.mark.slow
def test_a_search_job_gives_what_the_cli_prints(client, capsys):
    """A search job's answer is ``simkit search ... --json``'s, and its
    progress moved through the trials."""
    from simkit.app.cli import main

    r = client.post(f"/api/jobs?command=search&{urlencode(SMALL)}")
    assert r.status_code == 200, r.text
    state, seen = _wait(client, r.json()["id"])
    assert state["status"] == "done", state
    res = state["result"]
    capsys.readouterr()
    assert main(["search", "pepper", "--rule", "target=20:60", "--goal",
                 "hands per game: mean=12", "--trials", "5", "--games", "600",
                 "--no-progress", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    for key in ("tables", "answer", "goals", "searched", "policies", "units"):
        assert res[key] == cli[key], key
    assert [t["rules"] for t in res["trials"]] == [t["rules"] for t in cli["trials"]]
    assert seen == sorted(seen)
    assert seen[-1] == 1.0


@pytest.mark.slow
def test_cancel_ends_the_searchs_process(client, monkeypatch):
    """Cancel: the job says so at once and its process (the run) ends within
    seconds, not after its trials."""
    started = []
    real = search_answers.subprocess.Popen

    def popen(*args, **kw):
        started.append(real(*args, **kw))
        return started[-1]

    monkeypatch.setattr(search_answers.subprocess, "Popen", popen)
    big = urlencode(_with(trials="200", games="50000"))
    job = client.post(f"/api/jobs?command=search&{big}").json()["id"]
    deadline = time.monotonic() + 20
    while not started:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(1.0)
    assert client.delete(f"/api/jobs/{job}").json()["status"] == "cancelled"
    deadline = time.monotonic() + 10
    while client.app.state.runs.running or started[0].poll() is None:
        assert time.monotonic() < deadline, "the search's process went on after Cancel"
        time.sleep(0.1)
    assert client.get(f"/api/jobs/{job}").json()["status"] == "cancelled"


@pytest.mark.slow
def test_a_failing_search_process_is_one_line(monkeypatch):
    """A refusal of the command in its process (one the web's checks did not
    catch) is the job's one-line InputError."""
    from simkit.base.errors import InputError

    a = answers.parse("search", SMALL)
    monkeypatch.setattr(search_answers, "argv", lambda a: ["search", "pepper", "--rule",
                                                           "target=0:1", "--json"])
    with pytest.raises(InputError, match="target=0:1"):
        search_answers.search(argparse.Namespace(**vars(a)))
