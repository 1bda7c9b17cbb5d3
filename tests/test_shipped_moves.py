"""Every shipped policy plays the moves it was recorded playing (tests/data/shipped_moves.py):
the engines, the actor's forward pass and the loading path may be rewritten, the moves of
a shipped network on seeded games may not change. A record of other weights (a network
shipped since) says how to record it again rather than passing or failing on stale moves."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("safetensors")

from tests.data.shipped_moves import FILE, play, shipped_games_and_counts

RECORDS = json.loads(FILE.read_text())


def test_every_shipped_game_and_count_is_recorded():
    recorded = {(r["game"], r["num_players"]) for r in RECORDS}
    assert recorded == set(shipped_games_and_counts())


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: f"{r['game']}-{r['num_players']}p-"
                                                          f"seed{r['seed']}")
def test_a_shipped_policy_plays_its_recorded_moves(record):
    again = play(record["game"], record["num_players"], record["seed"])
    assert again["weights_sha256"] == record["weights_sha256"], (
        f"{record['game']} {record['num_players']}p ships other weights than were recorded: "
        "record them again with `python tests/data/shipped_moves.py`")
    assert again["moves"] == record["moves"]
