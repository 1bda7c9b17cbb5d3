"""``best``: the strongest bot CatZoo has for a game and player count, under a time budget.

``best`` (the table's game), ``best:GAME`` and ``best:GAME:Np`` resolve, for the table's
player count, to the form measured strongest there: a search over the shipped network
(``pimc``, ``sparta``), a search alone, or a bot (Ledges' ``lookahead``). Which one is recorded
in ``best.json`` beside the shipped checkpoint (``checkpoints/GAME/<N>p/best.json``,
package data like the checkpoints, so found from any directory), with the figures that
chose it and the commands that measured them (benchmarks/best_tables.py measures them
again). A search may play over a network of its own instead of the shipped one, one that
searches better than it plays alone: the file's ``network_dir``, a folder beside it.
``best:seconds=S`` (after the game and count when they are named:
``best:lunar:4p:seconds=0.25``) sets the search's budget per move; by default the file's
(1 s, on the clock of ``catzoo.policies.search.budget``: wall time at the tables). A bot
that does not search takes the option and thinks as little as it always does. At a table
whose game options the shipped network was not trained for (``-o rounds=single``), the
file's ``fallback`` plays instead, a search that needs no network (unmeasured there).

A best.json is data only (JSON, bounded in size, every field checked); a missing or corrupt
one is an error naming the file, and touches nothing else: ``shipped`` loads as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from catzoo.games import safe_json
from catzoo.games.registry import UnknownGameError, get_game
from catzoo.policies.base import Policy

BEST = "best"
FILE = "best.json"
FORMAT = 1
MAX_BYTES = 256 * 1024
COUNT = re.compile(r"^([1-9][0-9]*)p?$")
OPTIONS = ("seconds",)
FOLDER = re.compile(r"^[a-z0-9_]{1,64}$")  # a network_dir: a folder beside best.json, no path
# The fields of a best.json: name -> (types, required).
FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "format": ((int,), True),
    "game": ((str,), True),
    "num_players": ((int,), True),
    "policy": ((str,), True),  # the spec; a search's budget is added as seconds=S
    "seconds": ((int, float, type(None)), True),  # the budget at the tables (None: no search)
    "network": ((bool,), True),  # whether it plays over the shipped network
    # a folder beside best.json with the network the search plays over instead of the
    # shipped one (a policy.json and its weights): one that searches better than it plays
    "network_dir": ((str,), False),
    "fallback": ((str,), False),  # the bot at tables whose options that network does not fit
    "why": ((str,), False),
    "figures": ((list,), False),  # over a network, each names its network_sha256
}


class BestError(ValueError):
    """``best`` cannot be resolved; the message names the file or the choice at fault."""


class _Unreadable(BestError):
    pass


def shipped_root() -> Path | None:
    """The installed package's checkpoints folder (where best.json files are)."""
    try:
        root = Path(str(resources.files("catzoo.checkpoints")))
    except ModuleNotFoundError:
        return None
    return root if root.is_dir() else None


def parse(spec: str) -> tuple[str | None, int | None, dict[str, str]]:
    """``"best:lunar:4p:seconds=0.25"`` -> ``("lunar", 4, {"seconds": "0.25"})``."""
    head, _, rest = str(spec).strip().partition(":")
    if head.strip() != BEST:
        raise BestError(f"{spec!r} is not a best spec")
    game = count = None
    options: dict[str, str] = {}
    parts = [p.strip() for p in rest.split(":")] if rest.strip() else []
    for i, part in enumerate(parts):
        if "=" in part:
            if i != len(parts) - 1:
                raise BestError(f"policy spec {spec!r}: options come last "
                                "(best:GAME:Np:seconds=S)")
            for item in filter(None, (x.strip() for x in part.split(","))):
                key, eq, value = item.partition("=")
                if not eq or key.strip() not in OPTIONS:
                    raise BestError(f"policy spec {spec!r}: best takes the option "
                                    f"{', '.join(OPTIONS)}=..., not {item!r}")
                options[key.strip()] = value.strip()
        elif (number := COUNT.match(part)) and count is None:
            count = int(number.group(1))
        elif part and game is None and count is None:
            try:
                game = get_game(part).name
            except UnknownGameError as err:
                raise BestError(f"policy spec {spec!r}: {err.args[0]}") from None
        else:
            raise BestError(f"policy spec {spec!r}: after best come a game, a player count "
                            f"(4p) and options, in that order, not {part!r}")
    return game, count, options


def path_of(game: str, num_players: int, root: Path | None = None) -> Path:
    folder = root if root is not None else shipped_root()
    if folder is None:
        raise BestError("best: this CatZoo was installed without its checkpoints package "
                        "(catzoo.checkpoints), where best.json files are")
    return folder / game / f"{num_players}p" / FILE


def read(game: str, num_players: int, root: Path | None = None) -> dict:
    """The checked best.json of ``game`` at ``num_players``."""
    info = get_game(game)
    if num_players not in info.players:
        raise BestError(f"{info.name} is played by {', '.join(map(str, info.players))} "
                        f"players, not {num_players}")
    path = path_of(info.name, num_players, root)
    if not path.is_file():
        raise BestError(f"best for {info.name} at {num_players} players: {path} is missing "
                        "(every shipped game and count has one; reinstall CatZoo)")
    try:
        record = safe_json.load_file(path, limit=MAX_BYTES, source="it", error=_Unreadable)
    except _Unreadable as err:
        raise BestError(f"best for {info.name} at {num_players} players: {path} is corrupt "
                        f"({err})") from None
    problem = _check(record, info.name, num_players)
    if problem:
        raise BestError(f"best for {info.name} at {num_players} players: {path} is corrupt "
                        f"({problem})")
    return record


def _check(record, game: str, num_players: int) -> str | None:
    if not isinstance(record, dict):
        return "not a JSON object"
    for key, (kinds, required) in FIELDS.items():
        if key not in record:
            if required:
                return f"it lacks {key!r}"
            continue
        value = record[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            return f"{key!r} must be {' or '.join(k.__name__ for k in kinds)}"
    if record["format"] != FORMAT:
        return f"format {record['format']!r}; this CatZoo reads {FORMAT}"
    if (record["game"], record["num_players"]) != (game, num_players):
        return (f"it records {record['game']} at {record['num_players']} players, but it is "
                f"in {game}/{num_players}p/")
    for key in ("policy", "fallback"):
        if key in record and record[key].partition(":")[0].strip() in ("", BEST):
            return f"{key!r} must name a bot, not {record[key]!r}"
    if record["seconds"] is not None and not record["seconds"] > 0:
        return "'seconds' must be positive"
    if "network_dir" in record:
        if not record["network"]:
            return "'network_dir' names a network, but 'network' is false"
        if not FOLDER.match(record["network_dir"]):
            return (f"'network_dir' must be a folder's name (lower-case letters, digits, _), "
                    f"not {record['network_dir']!r}")
    return None


def resolved_spec(record: Mapping, seconds: float | None = None,
                  network: Path | None = None) -> str:
    """The spec ``best`` plays: the record's policy, a search with its budget (and over
    ``network``, the record's network_dir, instead of the shipped network)."""
    from catzoo.policies.registry import is_search

    spec = record["policy"]
    name, _, rest = spec.partition(":")
    name = name.strip()
    budget = seconds if seconds is not None else record["seconds"]
    if not is_search(record["game"], name):
        return spec  # a bot that does not search plays as it is
    options = [rest] if rest else []
    if network is not None:
        options.append(f"policy={network}")
    if budget is not None:
        options.append(f"seconds={budget:g}")
    return f"{name}:{','.join(options)}" if options else spec


def network_dir(record: Mapping, root: Path | None = None) -> Path | None:
    """The folder of the network ``best`` searches over, when it is not the shipped one."""
    if "network_dir" not in record:
        return None
    count = path_of(record["game"], record["num_players"], root).parent
    folder = count / record["network_dir"]
    if not (folder / "policy.json").is_file():
        raise BestError(f"best for {record['game']} at {record['num_players']} players: "
                        f"{count / FILE} names the network {folder}, which has no "
                        "policy.json (reinstall CatZoo)")
    return folder


def network_sha256(record: Mapping, root: Path | None = None) -> str | None:
    """The weights ``best`` searches over (the record's network_dir, else the shipped network
    of its count), named as each of its figures names them (``network_sha256``): a figure
    naming other weights was played over a network ``best`` no longer uses. The name is the
    checkpoint's own ``weights_sha256``, which loading it checks against the weights."""
    from catzoo.training.checkpoint import read_meta

    folder = network_dir(record, root) or path_of(record["game"], record["num_players"], root).parent
    return read_meta(folder)["weights_sha256"] if (folder / "policy.json").is_file() else None


class BestPolicy(Policy):
    """The resolved bot, under the name ``best``; ``spec`` says what plays, ``record`` the
    best.json that chose it."""

    def __init__(self, inner: Policy, spec: str, record: dict):
        self.inner, self.spec, self.record = inner, spec, record
        self.name = BEST

    def act(self, observation, *, state=None, player=None) -> int:
        return self.inner.act(observation, state=state, player=player)

    def act_batch(self, observations, masks):
        return self.inner.act_batch(observations, masks)

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    @property
    def clock(self):
        return getattr(self.inner, "clock", None)

    @clock.setter
    def clock(self, value) -> None:
        self.inner.clock = value


class NetworkMisfit(Exception):
    """The network a search plays over cannot sit at the table (other options, count)."""


def _searcher(record: Mapping, seconds, network, table: str, num_players: int, seed,
              env_options) -> tuple[str, Policy]:
    """The record's bot and its spec, its networks loaded now (once), not in its first
    move's budget: a network that does not fit the table raises NetworkMisfit here."""
    from catzoo.policies.registry import make_policy
    from catzoo.policies.search.options import SearchOptionError

    resolved = resolved_spec(record, seconds, network)
    inner = make_policy(resolved, table, num_players, seed=seed, env_options=env_options)
    for part in ("rollout", "prior"):
        loader = getattr(inner, part, None)
        if loader is not None:
            try:
                loader.preload(table, num_players, env_options)
            except SearchOptionError as err:
                raise NetworkMisfit(str(err)) from None
    return resolved, inner


def make_best(spec: str, game: str, num_players: int, seed: int | None = None,
              env_options: dict | None = None, root: Path | None = None) -> BestPolicy:
    """``best`` for a table of ``game`` at ``num_players`` with ``env_options``."""
    named, count, options = parse(spec)
    table = get_game(game).name
    if named is not None and named != table:
        raise BestError(f"policy {spec!r} is {named}'s best, not {table}'s")
    if count is not None and count != num_players:
        raise BestError(f"policy {spec!r} plays {count}-player games; this table has "
                        f"{num_players} players")
    seconds = None
    if "seconds" in options:
        try:
            seconds = float(options["seconds"])
        except ValueError:
            seconds = -1.0
        if not 0 < seconds <= 3600:
            raise BestError(f"policy {spec!r}: seconds must be more than 0 and at most 3600")
    record = read(table, num_players, root)
    network = network_dir(record, root)
    try:
        resolved, inner = _searcher(record, seconds, network, table, num_players, seed,
                                    env_options)
    except NetworkMisfit as err:
        # A search over a network fits only the options it was trained for: said now, not
        # at the first move; elsewhere the fallback plays (without it), if there is one.
        if not record["network"] or "fallback" not in record:
            raise BestError(f"best for {table} at {num_players} players plays "
                            f"{record['policy']} over a network that cannot sit at this "
                            f"table: {err}") from None
        resolved, inner = _searcher({**record, "policy": record["fallback"]}, seconds, None,
                                    table, num_players, seed, env_options)
    return BestPolicy(inner, resolved, record)
