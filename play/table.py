"""A table: one rules engine, its seats (humans and bots) and what each seat has seen.

The terminal game, the web server and the tests all drive games through ``Table``, so
seating, bot turns and the per-seat move history exist once, and every move enters the
game through one check (``GameState.check_action``, in ``Table.apply`` and
``Table.apply_bot``), whose typed errors the callers answer by type: ``GameOverError``,
``NotYourTurnError``, ``IllegalActionError`` for a player's move, ``BotError`` for a bot's.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass, field

from catzoo.games.base import (  # noqa: F401  (the table's move errors, importable from here)
    TERMINAL,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
    build_options,
)
from catzoo.games.registry import get_game
from catzoo.play import views
from catzoo.policies.best import BestPolicy

HUMAN = "human"


class SeatError(ValueError):
    """Seats that cannot make a table: a wrong count, an unknown bot."""


class BotError(RuntimeError):
    """A bot answered with an action that is not legal: a bug in the bot, not the player."""


@dataclass
class Seat:
    index: int
    spec: str
    name: str  # short, for the table: "you", "heuristic", "lunar policy"
    policy: object | None = None
    description: str | None = None  # the full spec, for the legend (default: spec)

    @property
    def human(self) -> bool:
        return self.spec == HUMAN

    @property
    def legend(self) -> str:
        return self.description or self.spec


@dataclass
class Event:
    number: int  # how many actions came before this one
    player: int
    action: int
    texts: list[str] = field(default_factory=list)  # the action as each seat saw it


def make_bot(spec: str, game: str, num_players: int, seed: int, options: dict | None = None):
    """The bot of ``spec`` for this table (a checkpoint must fit its game options)."""
    from catzoo.policies.registry import UnknownPolicyError, make_policy

    try:
        policy = make_policy(spec, game, num_players, seed=seed, env_options=options or {})
    except UnknownPolicyError as err:
        raise SeatError(str(err)) from None
    policy.reset(seed=seed)
    return policy


class Table:
    """``Table("lunar", ["human", "heuristic"], seed=3, options={"rounds": "single"})``.

    ``seats`` holds ``"human"`` or a bot spec (anything ``make_policy`` accepts) per seat;
    ``names`` optionally names the seats (short names: by default a bot's is its spec
    without options, ``short_name``) and ``legends`` describes them in full (default:
    the spec). Options are the game's own (not num_players).
    """

    def __init__(self, game: str, seats: list[str], *, seed: int | None = None,
                 options: dict | None = None, names: list[str] | None = None, bot_factory=None,
                 legends: list[str] | None = None):
        info = get_game(game)
        n = len(seats)
        if n not in info.players:
            raise SeatError(f"{info.name} is played by {' or '.join(map(str, info.players))} "
                            f"players, not {n}")
        options = dict(options or {})
        if "num_players" in options:
            raise SeatError("the player count comes from the seats, not from an option")
        self.info = info
        self.game = info.name
        cls = info.engine_class()
        game_options = build_options(cls.options_cls, info.name, {"num_players": n, **options})
        self.seed = int(seed) if seed is not None else secrets.randbelow(2**31)
        factory = bot_factory or functools.partial(make_bot, options=options)
        self.seats: list[Seat] = []
        from catzoo.policies.registry import short_name

        for i, spec in enumerate(seats):
            name = names[i] if names else None
            legend = legends[i] if legends else None
            if spec == HUMAN:
                self.seats.append(Seat(i, HUMAN, name or "human", description=legend))
            else:
                bot = factory(spec, info.name, n, self.seed * 1000 + i)
                if isinstance(bot, BestPolicy):  # says what it plays: "best:... = pimc:..."
                    legend = f"{legend or spec} = {bot.spec}"
                self.seats.append(Seat(i, spec, name or short_name(spec, info.name), bot, legend))
        self.state = cls.new(game_options, seed=self.seed)
        self.view_module = views.for_game(info.name)
        self.events: list[Event] = []
        self.notes: dict = {}  # what the view module notes as moves are applied

    @classmethod
    def from_log(cls, log: dict, seats: list[str], names: list[str] | None = None) -> Table:
        """The table of a recorded game (an engine action log), its moves applied one by one
        so that every seat's history of moves is there too. Bots are not seated: it is for
        watching, as any seat."""
        info = get_game(log["game"])
        engine = info.engine_class()
        table = cls.__new__(cls)
        table.info, table.game = info, info.name
        table.seed = log.get("seed")
        empty = dict(log, actions=[])
        table.state = engine.replay(empty)
        if len(seats) != table.state.num_players:
            raise SeatError(f"the log is of a {table.state.num_players}-player game, "
                            f"not {len(seats)}")
        table.seats = [Seat(i, spec, names[i] if names else spec) for i, spec in enumerate(seats)]
        table.view_module = views.for_game(info.name)
        table.events = []
        table.notes = {}
        for action in log["actions"]:
            table.apply(action)
        return table

    # --- whose turn -----------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return len(self.seats)

    @property
    def to_act(self) -> int | None:
        p = self.state.current_player
        return None if p == TERMINAL else p

    @property
    def over(self) -> bool:
        return self.state.current_player == TERMINAL

    def human_to_act(self) -> bool:
        p = self.to_act
        return p is not None and self.seats[p].human

    def bot_to_act(self) -> bool:
        p = self.to_act
        return p is not None and not self.seats[p].human

    # --- moves ----------------------------------------------------------------------------
    def legal(self) -> list[int]:
        return self.state.legal_actions() if not self.over else []

    def apply(self, action: int, player: int | None = None) -> Event:
        """Apply ``action`` for the seat to act (``player``, when given, must be it): a
        human's move, or one of a log. ``GameState.check_action`` raises
        ``GameOverError``, ``NotYourTurnError`` or ``IllegalActionError`` (naming the
        action and what was wrong) before anything changes."""
        self.state.check_action(action, player)
        return self._apply_checked(int(action))

    def apply_bot(self, action: int) -> Event:
        """Apply the move the bot to act chose (``bot_action``'s). One it may not make is
        a bug of the bot, not of a player: ``BotError``, the table unchanged. Its message
        leaves out the legal moves, which are the bot's hidden hand."""
        p = self.to_act
        if p is None or self.seats[p].human:
            raise RuntimeError("no bot is to act")
        try:
            self.state.check_action(action)
        except IllegalActionError as err:
            raise BotError(f"bot {self.seats[p].name} at P{p} chose move {action}, which "
                           "is not legal") from err
        return self._apply_checked(int(action))

    def _apply_checked(self, action: int) -> Event:
        state = self.state
        actor = state.current_player
        # Described before it is applied: the text may need the state the actor saw.
        texts = [self.view_module.describe(state, actor, action, viewer)
                 for viewer in range(self.num_players)]
        self.notes["move"] = len(self.events)  # the number of the move being applied
        with views.watch(self.view_module, state, action, self.notes):
            state.apply_unchecked(action)
        event = Event(len(self.events), actor, action, texts)
        self.events.append(event)
        return event

    def bot_action(self):
        """The action the bot to act chooses, neither checked nor applied (``apply_bot``
        does both). Safe to run in a worker thread while others read the table: the bot
        gets a copy of the state."""
        p = self.to_act
        if p is None or self.seats[p].human:
            raise RuntimeError("no bot is to act")
        state = self.state
        obs = {"observation": state.observation(p), "action_mask": state.legal_mask()}
        return self.seats[p].policy.act(obs, state=state.clone(), player=p)

    def play_bots(self, on_event=None) -> None:
        """Let bots move until a human is to act or the game ends."""
        while self.bot_to_act():
            event = self.apply_bot(self.bot_action())
            if on_event is not None:
                on_event(event)

    # --- what a seat sees -------------------------------------------------------------------
    def view(self, seat: int, events: int | None = views.EVENTS_SHOWN) -> dict:
        return views.seat_view(self, seat, events)

    def result(self) -> dict | None:
        if not self.over:
            return None
        return {"scores": list(self.state.scores()), "winners": list(self.state.winners())}

    def replay(self):
        from catzoo.play.replay import Replay

        return Replay.from_state(self.state, seats=[s.name for s in self.seats])
