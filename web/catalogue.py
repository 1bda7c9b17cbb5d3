"""What a web player may choose: games, player counts, bots and the server's checkpoints.

Seats are chosen from this menu only. A browser never names a file: checkpoints are the
policies shipped with CatZoo (``shipped:GAME``, offered at each player count one is
shipped for, as the policy of that count) and the ones found under the directories the
server was started with, offered by name, so no request can make the server load an
arbitrary path.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from catzoo.games.registry import GAMES
from catzoo.games.suggest import did_you_mean
from catzoo.play.table import SeatError, make_bot

log = logging.getLogger("catzoo.web")

HUMAN = "human"
CHECKPOINT_PREFIX = "checkpoint:"
# Every bot the server seats answers in bounded time: random, the heuristics and
# checkpoints do a fixed amount of work a move (benchmarks/bot_move_time.py measures it;
# docs/play.md has the figures); a search bot thinks as long as it is let, so it is offered
# with a bounded number of iterations and the server gives every search bot it builds a
# time budget per move too (``Catalogue.make_bot``): a bounded number of iterations is
# quick on the card games but not on Cats Knocking Things Off Ledges, whose playouts
# simulate whole games. A browser must not be able to order an hour of search.
# ``best`` comes first: the strongest bot CatZoo has for the game and count (a search over
# the shipped network, thinking ``move_seconds`` a move).
SEARCH_BOTS = {"best": "best", "ismcts": "ismcts:iterations=200"}
FIRST = ("best",)  # offered before the others
MOVE_SECONDS = 1.0


@dataclass
class Checkpoint:
    name: str
    path: str
    game: str
    num_players: int


@dataclass
class Catalogue:
    checkpoint_dirs: list[str] = field(default_factory=list)
    # key -> checkpoint; a key is the menu name but for the shipped policies, which share
    # one name (shipped:GAME) over their counts and are keyed shipped:GAME:Np.
    checkpoints: dict[str, Checkpoint] = field(default_factory=dict)
    move_seconds: float = MOVE_SECONDS  # a search bot's budget per move
    shipped: bool = True  # offer the policies shipped with CatZoo too

    def __post_init__(self):
        self.checkpoints = {**(find_shipped() if self.shipped else {}),
                            **find_checkpoints(self.checkpoint_dirs)}

    def bots(self, game: str) -> list[str]:
        from catzoo.policies.registry import HEURISTICS

        return [*FIRST, "random", *sorted(HEURISTICS.get(game, {})),
                *(b for b in SEARCH_BOTS if b not in FIRST)]

    def to_json(self) -> list[dict]:
        out = []
        for info in GAMES.values():
            out.append({
                "name": info.name, "title": info.title, "kind": info.kind,
                "players": list(info.players), "default_players": info.default_players,
                "bots": self.bots(info.name),
                "checkpoints": [{"name": c.name, "players": c.num_players}
                                for c in self.checkpoints.values() if c.game == info.name],
            })
        return out

    def resolve(self, game: str, num_players: int, seat: str) -> str:
        """The Table seat spec of a menu choice; ``SeatError`` names a choice not on the
        menu."""
        if seat == HUMAN:
            return HUMAN
        if seat.startswith(CHECKPOINT_PREFIX):
            name = seat[len(CHECKPOINT_PREFIX):]
            offered = [c for c in self.checkpoints.values() if c.name == name and c.game == game]
            if not offered:
                raise SeatError(f"no checkpoint {name!r} for {game}")
            for c in offered:
                if c.num_players == num_players:
                    return c.path
            counts = [f"{c.num_players}-" for c in sorted(offered, key=lambda c: c.num_players)]
            said = f"{', '.join(counts[:-1])} or {counts[-1]}" if len(counts) > 1 else counts[0]
            raise SeatError(f"checkpoint {name!r} plays {said}player games, "
                             f"not {num_players}")
        if seat in self.bots(game):
            return SEARCH_BOTS.get(seat, seat)
        raise SeatError(f"unknown seat {seat!r} for {game}"
                         f"{did_you_mean(seat, [HUMAN, *self.bots(game)])}; choose human, "
                         + ", ".join(self.bots(game)) + " or a listed checkpoint")


    def make_bot(self, spec: str, game: str, num_players: int, seed: int,
                 options: dict | None = None):
        """A seat's bot as the server builds it (``Table``'s bot factory): ``best`` and a
        search bot without a time budget get ``move_seconds`` a move (a search bot on top
        of its iterations)."""
        from catzoo.policies.registry import BEST, is_search

        name, _, rest = spec.partition(":")
        if name == BEST and "seconds=" not in rest:
            spec = f"{spec.rstrip(':')}:seconds={self.move_seconds:g}"
        elif is_search(game, name) and "seconds=" not in rest:
            spec = f"{name}:{rest + ',' if rest else ''}seconds={self.move_seconds:g}"
        return make_bot(spec, game, num_players, seed, options)


def find_shipped() -> dict[str, Checkpoint]:
    """The policies shipped with CatZoo, one per game and player count, each offered as
    ``shipped:GAME`` at its count (keyed and loaded as ``shipped:GAME:Np``)."""
    try:
        from catzoo.training.checkpoint import read_meta, shipped_counts, shipped_games
    except ImportError as err:
        log.warning("shipped policies are not offered: catzoo.training is not available (%s)",
                    err)
        return {}
    found = {}
    for game in shipped_games():
        for n in shipped_counts(game):
            spec = f"shipped:{game}:{n}p"
            try:
                meta = read_meta(spec)  # checks that it is the game's, at n players
            except Exception as err:  # noqa: BLE001 - a broken checkpoint is skipped, not fatal
                log.warning("skipping %s: %s", spec, err)
                continue
            if meta.get("game") in GAMES:
                found[spec] = Checkpoint(f"shipped:{game}", spec, meta["game"], n)
    return found


def find_checkpoints(dirs: list[str]) -> dict[str, Checkpoint]:
    """Checkpoint directories (holding ``policy.json``) at most two levels under ``dirs``."""
    if not dirs:
        return {}
    try:
        from catzoo.training import load_policy, read_meta
    except ImportError as err:
        log.warning("checkpoints are not offered: catzoo.training is not available (%s)", err)
        return {}
    found = {}
    for root in map(Path, dirs):
        for meta_file in sorted([*root.glob("*/policy.json"), *root.glob("*/*/policy.json"),
                                 *root.glob("policy.json")]):
            folder = meta_file.parent
            try:
                # read_meta checks every field's type; load_policy checks it all (the
                # weights, the env) so a broken checkpoint is never offered.
                meta = read_meta(folder)
                if meta["game"] not in GAMES:
                    log.warning("skipping checkpoint %s: game %r is not installed", folder,
                                meta["game"])
                    continue
                load_policy(folder)
            except Exception as err:  # noqa: BLE001 - a broken checkpoint is skipped, not fatal
                log.warning("skipping checkpoint %s: %s", folder, err)
                continue
            name = str(folder.relative_to(root)) if folder != root else folder.name
            if name in found:
                name = f"{root.name}/{name}"
            found[name] = Checkpoint(name, str(folder), meta["game"], meta["num_players"])
    return found
