"""``best``: resolved for every game and count from the package's best.json files (from any
directory), its spec's mistakes and a missing or corrupt best.json named clearly while
``shipped`` still loads, and the tables seating it by default."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from argparse import Namespace

import pytest

from catzoo.games.registry import GAMES
from catzoo.policies import best as B
from catzoo.policies.registry import UnknownPolicyError, make_policy

EVERY = [(g, n) for g, info in GAMES.items() for n in info.players]


def test_best_resolves_for_every_game_and_count_from_outside_the_repository(tmp_path):
    probe = (
        "import json\n"
        "from catzoo.games.registry import GAMES\n"
        "from catzoo.policies.registry import make_policy\n"
        "out = {}\n"
        "for g, info in GAMES.items():\n"
        "    for n in info.players:\n"
        "        p = make_policy('best', g, n, seed=0)\n"
        "        out[f'{g}:{n}'] = [p.name, p.spec, p.record['policy'], type(p.inner).__name__]\n"
        "print(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, check=True,
                          capture_output=True, text=True)
    found = json.loads(done.stdout)
    assert sorted(found) == sorted(f"{g}:{n}" for g, n in EVERY)
    for key, (name, spec, chosen, _) in found.items():
        game, n = key.split(":")
        record = B.read(game, int(n))
        assert name == "best" and chosen == record["policy"]
        # a search gets the file's budget (1 s at the tables), a bot plays as it is
        assert spec == B.resolved_spec(record, network=B.network_dir(record))
        assert ("seconds=1" in spec) == (record["seconds"] == 1.0)


@pytest.mark.parametrize(("spec", "message"), [
    ("best:lunr", "did you mean 'lunar'?"),
    ("best:lunar:3p", "plays 3-player games; this table has 4"),
    ("best:cat_in_the_box", "is cat_in_the_box's best, not lunar's"),
    ("best:seconds=0", "seconds must be more than 0"),
    ("best:seconds=fast", "seconds must be more than 0"),
    ("best:depth=3", "best takes the option seconds"),
    ("best:seconds=1:lunar", "options come last"),
    ("best:4p:lunar", "in that order"),
])
def test_best_spec_mistakes_are_named(spec, message):
    with pytest.raises(UnknownPolicyError, match=message.replace("?", r"\?")):
        make_policy(spec, "lunar", 4)


def test_best_names_its_game_count_and_budget():
    bot = make_policy("best:lunar:4p:seconds=0.25", "lunar", 4, seed=1)
    assert bot.spec.endswith("seconds=0.25") and bot.inner.seconds == 0.25
    assert make_policy("best:4p", "lunar", 4).spec == make_policy("best", "lunar", 4).spec
    assert make_policy("best:seconds=0.25", "ledges", 3).spec == "lookahead:seconds=0.25"


def test_at_options_the_network_was_not_trained_for_the_fallback_plays():
    bot = make_policy("best:seconds=0.5", "lunar", 4, env_options={"rounds": "single"})
    assert bot.spec == "ismcts:seconds=0.5"


@pytest.fixture
def shipped_copy(tmp_path, monkeypatch):
    """A copy of the shipped lunar checkpoints as the package's, for best and shipped."""
    from catzoo.training import checkpoint as C

    root = tmp_path / "checkpoints"
    shutil.copytree(B.shipped_root() / "lunar", root / "lunar")
    monkeypatch.setattr(B, "shipped_root", lambda: root)
    monkeypatch.setattr(C, "shipped_root", lambda: root)
    return root / "lunar" / "4p" / "best.json"


def good(path) -> dict:
    return json.loads(path.read_text())


@pytest.mark.parametrize(("damage", "message"), [
    (lambda p: p.unlink(), "is missing"),
    (lambda p: p.write_text("{not json"), "is corrupt (it is not JSON"),
    (lambda p: p.write_text("[1, 2]"), "is corrupt (not a JSON object)"),
    (lambda p: p.write_text(json.dumps({**good(p), "policy": 3})), "'policy' must be str"),
    (lambda p: p.write_text(json.dumps({k: v for k, v in good(p).items() if k != "network"})),
     "it lacks 'network'"),
    (lambda p: p.write_text(json.dumps({**good(p), "num_players": 2})),
     "records lunar at 2 players, but it is in lunar/4p/"),
    (lambda p: p.write_text(json.dumps({**good(p), "policy": "best"})), "must name a bot"),
    (lambda p: p.write_text(json.dumps({**good(p), "seconds": -1})), "must be positive"),
    (lambda p: p.write_text(json.dumps({**good(p), "format": 9})), "format 9"),
    (lambda p: p.write_text(" " * (B.MAX_BYTES + 1)), "more than the"),
    (lambda p: p.write_text(json.dumps({**good(p), "network_dir": "../2p"})),
     "'network_dir' must be a folder's name"),
    (lambda p: p.write_text(json.dumps({**good(p), "network": False, "network_dir": "x"})),
     "'network' is false"),
    (lambda p: p.write_text(json.dumps({**good(p), "network_dir": "nowhere"})),
     "has no policy.json"),
])
def test_a_missing_or_corrupt_best_json_is_named_and_shipped_still_loads(shipped_copy, damage,
                                                                          message):
    damage(shipped_copy)
    with pytest.raises(UnknownPolicyError) as err:
        make_policy("best", "lunar", 4)
    assert str(shipped_copy) in str(err.value) and message in str(err.value), err.value
    assert make_policy("shipped", "lunar", 4).meta["num_players"] == 4
    assert make_policy("best", "lunar", 2).record["num_players"] == 2  # the other file is fine


def test_catzoo_play_seats_best_by_default_with_its_budget():
    from catzoo.cli.play import build_table

    args = Namespace(game="cat_in_the_box", players=3, option=[], opponent=[], seed=1,
                     bot_seconds=0.3)
    table = build_table(args, {0})
    assert [s.spec for s in table.seats[1:]] == ["best:seconds=0.3"] * 2
    assert [s.name for s in table.seats[1:]] == ["best", "best"]
    assert table.seats[1].legend == "best:seconds=0.3 = pimc:seconds=0.3"
    named = build_table(Namespace(**{**vars(args), "opponent": ["best:cat_in_the_box"]}), {0})
    assert named.seats[1].spec == "best:cat_in_the_box:seconds=0.3"


def test_best_loads_its_network_when_built_not_in_its_first_moves_budget():
    from tests.test_ismcts import mid_game_states, obs_of

    bot = make_policy("best:seconds=0.05", "cat_in_the_box", 4, seed=0)
    network = bot.inner.rollout.policy
    assert network is not None
    state = next(s for s in mid_game_states("cat_in_the_box", 4) if len(s.legal_actions()) > 1)
    bot.act(obs_of(state), state=state, player=state.current_player)
    assert bot.inner.rollout.policy is network  # the table's options: the same one


def test_best_can_search_over_a_network_other_than_the_shipped_one():
    """CATsle Builders 5 players searches over the network shipped before the one that
    plays alone now (it searches better): best.json's network_dir, package data too."""
    from catzoo.policies.registry import make_policy as make
    from catzoo.training.checkpoint import resolve

    record = B.read("catsle_builders", 5)
    folder = B.network_dir(record)
    assert folder == resolve("shipped:catsle_builders", 5) / record["network_dir"]
    bot = make("best:seconds=0.1", "catsle_builders", 5, seed=0)
    assert bot.spec == f"{record['policy']}:policy={folder},seconds=0.1"
    searched = bot.inner.rollout.policy  # loaded when built
    own, shipped = make(str(folder), "catsle_builders", 5), make("shipped", "catsle_builders", 5)
    weights = [{k: v.tobytes() for k, v in p.actor.weights().items()}
               for p in (searched, own, shipped)]
    assert weights[0] == weights[1] != weights[2]
    # at tables the network does not fit, the fallback plays, without the folder
    fallback = make("best:seconds=0.1", "catsle_builders", 5, env_options={"rounds": "single"})
    assert fallback.spec == f"{record['fallback']}:seconds=0.1"


@pytest.mark.parametrize(("game", "n"), EVERY)
def test_every_figure_of_best_was_played_over_the_network_it_plays_now(game, n):
    """Shipping a network that best searches over leaves its figures another network's:
    then they are measured again, or best keeps the old weights in a network_dir."""
    record = B.read(game, n)
    weights = B.network_sha256(record)
    named = [f.get("network_sha256") for f in record.get("figures", [])]
    if record["network"]:
        assert named and weights is not None and None not in named
    assert all(h == weights for h in named if h is not None), (game, n)


def test_best_loads_the_network_it_searches_over_once(monkeypatch):
    """Checking that the network fits the table is loading it: one load, not two."""
    from catzoo.policies import registry

    loads, real = [], registry.make_policy

    def counting(spec, *args, **kwargs):
        loads.append(spec)
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(registry, "make_policy", counting)
    bot = real("best:seconds=0.1", "catsle_builders", 5, seed=0)
    folder = str(B.network_dir(B.read("catsle_builders", 5)))
    assert loads.count(folder) == 1 and bot.inner.rollout.policy is not None
    loads.clear()
    real("best:seconds=0.1", "catsle_builders", 5, env_options={"rounds": "single"})
    assert loads.count(folder) == 1  # tried once, then the fallback plays without it
