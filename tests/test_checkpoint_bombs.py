"""policy.json from a stranger (issue 24): JSON bombs and fields of the wrong type are a
``CheckpointError`` naming the file, never a ``RecursionError``, ``ValueError``,
``TypeError`` or hundreds of MB of memory; the run directory's own JSON files too."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("safetensors")

from catzoo.training import CheckpointError, load_policy, read_meta
from catzoo.training.checkpoint import MAX_META_BYTES, META
from catzoo.training.league import League
from tests.test_training_checkpoint import make_checkpoint


@pytest.fixture
def ckpt(tmp_path):
    return make_checkpoint(tmp_path / "ckpt")


def meta_of(path) -> dict:
    return json.loads((path / META).read_text())


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"format": ' + "9" * 5000 + "}", "digits"),
    ('{"format": NaN}', "is not JSON"),
    (b"\xff\xfe{}", "is not JSON"),
])
def test_a_json_bomb_is_a_checkpoint_error(ckpt, text, message):
    (ckpt / META).write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(CheckpointError, match="policy.json is corrupt") as info:
        load_policy(ckpt)
    assert message in str(info.value)


def test_a_20_mb_policy_json_is_refused_before_it_is_parsed(ckpt, monkeypatch):
    from catzoo.games import safe_json

    with open(ckpt / META, "r+b") as f:
        f.truncate(20 * 2**20)  # 20 MB (sparse: the size is what is refused)
    monkeypatch.setattr(safe_json.json, "loads", lambda *a, **k: pytest.fail("parsed"))
    with pytest.raises(CheckpointError, match=f"more than the {MAX_META_BYTES:,} allowed"):
        read_meta(ckpt)


@pytest.mark.parametrize("game", [["cat_in_the_box"], {"name": "cat_in_the_box"}, 7, None])
def test_a_game_of_the_wrong_type_is_a_checkpoint_error(ckpt, game):
    meta = meta_of(ckpt)
    meta["game"] = game
    (ckpt / META).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="field 'game' must be a str"):
        load_policy(ckpt)


@pytest.mark.parametrize(("field", "value"), [("num_players", "3"), ("num_players", True),
                                              ("env_options", []), ("observation_size", 2.5),
                                              ("weights_sha256", 0), ("env_version", None)])
def test_every_field_of_the_wrong_type_is_named(ckpt, field, value):
    meta = meta_of(ckpt)
    meta[field] = value
    (ckpt / META).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match=f"field '{field}' must be"):
        load_policy(ckpt)


def test_a_league_manifest_bomb_is_a_checkpoint_error(tmp_path):
    (tmp_path / "league.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CheckpointError, match="nested too deeply"):
        League(tmp_path)
    (tmp_path / "league.json").write_text(json.dumps({"snapshots": "all"}))
    with pytest.raises(CheckpointError, match="is not a league manifest"):
        League(tmp_path)
