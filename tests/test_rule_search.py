"""The rule-search studies (analyses/rule_search.py): the searches shipped in
analyses/searched/ are the very searches the studies ask (else ``report all``
would search anew, minutes), read back unchanged, and refused when damaged."""

from __future__ import annotations

import json
import shutil

import pytest

from analyses import rule_search
from simkit.base.errors import InputError
from simkit.lab import search


@pytest.mark.parametrize("game", list(rule_search.QUESTIONS))
def test_the_shipped_search_is_the_one_the_study_asks(game):
    study = rule_search.STUDIES[game]
    spec = study.spec(study.DEFAULT_HANDS, 0)
    kept = search.kept_result(spec, rule_search.KEPT / game)
    assert kept is not None, f"python -m analyses.rule_search {game} keeps it again"
    assert kept["game"] == game
    assert kept["trials"]
    assert kept["tables"]["front"]
    # another seed is another search: not the shipped one
    assert search.kept_result(study.spec(study.DEFAULT_HANDS, 1), rule_search.KEPT / game) is None


def test_a_damaged_shipped_result_is_refused_in_one_line(tmp_path):
    study = rule_search.STUDIES["burraco"]
    spec = study.spec(study.DEFAULT_HANDS, 0)
    place = tmp_path / "burraco"
    shutil.copytree(rule_search.KEPT / "burraco", place)
    res = json.loads((place / search.RESULT).read_text())
    res["answer"]["met"] = not res["answer"]["met"]
    (place / search.RESULT).write_text(json.dumps(res))
    with pytest.raises(InputError, match="checksum") as info:
        search.kept_result(spec, place)
    assert "\n" not in str(info.value)


def test_the_study_reads_the_shipped_search_and_says_so():
    study = rule_search.STUDIES["burraco"]
    tables = study.STUDY.simulate(study.DEFAULT_HANDS, 0, False, None)
    assert bool(tables["answer"]["shipped"].iloc[0]) is True
    assert study._provenance(study.DEFAULT_HANDS)["reused"] is True
    said = study.findings(tables)
    assert "read back" in said[1]
    answer = tables["front"][tables["front"]["point"] == "answer"]
    # the answer meets its goal: three hands a game within the target's tolerance
    mean = answer["hands per game: mean"].iloc[0]
    assert abs(mean - 3) <= 0.1 or answer["hands per game: mean ci_low"].iloc[0] <= 3 <= \
        answer["hands per game: mean ci_high"].iloc[0]
