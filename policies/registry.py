"""Policies by spec: ``make_policy("heuristic", "cat_in_the_box", num_players=4)``.

A spec is one of:

* ``random``, or a bot registered for the game below (``heuristic``);
* a search bot with optional ``key=value`` options after a colon, comma-separated:
  ``ismcts``, ``ismcts:iterations=400,c=1.4``, ``planner:candidates=16,samples=4``;
* ``best`` (or ``best:GAME``, ``best:GAME:Np``, options last: ``best:seconds=0.25``), the
  strongest bot measured for the game at the table's player count, under a time budget
  (``catzoo.policies.best``; 1 s a move by default);
* ``shipped:GAME`` (or ``shipped``: the game being played's), the policy shipped with
  CatZoo for the table's player count, from any working directory (``shipped:GAME:Np``
  names the count);
* a filesystem path to a checkpoint directory, loaded by ``catzoo.training.load_policy``;
* your own bot by import path, ``package.module:Class`` (options as for the search bots
  after a second colon, passed as strings), built as ``Class(num_players=..., seed=...,
  **options)`` like the bots above: it names code installed where the game is played (on
  a Ray cluster, on every node), so it can travel to another process as text.

A checkpoint plays only the game, player count and options it was trained for: every
command passes its table's options, and ``catzoo.training.checkpoint.check_fits``
decides.
"""

from __future__ import annotations

import importlib
import os
import re

from catzoo.games.registry import PLANNED, get_game
from catzoo.games.suggest import did_you_mean
from catzoo.policies.random_policy import RandomPolicy

# game -> bot name -> "module:Class", from each game's record (GameInfo.bots); the class
# is built as Class(num_players=..., seed=...).
HEURISTICS: dict[str, dict[str, str]] = {name: dict(info.bots) for name, info in PLANNED.items()}

# Bots for every game, built as Class(num_players=..., seed=..., **options).
SEARCH: dict[str, str] = {
    "ismcts": "catzoo.policies.search.ismcts:ISMCTSPolicy",
    "pimc": "catzoo.policies.search.pimc:PIMCPolicy",
    "planner": "catzoo.policies.search.planner:PlannerPolicy",
    "sparta": "catzoo.policies.search.sparta:SPARTAPolicy",
}


SHIPPED = "shipped"
BEST = "best"
# A checkpoint folder named for its player count: GAME/4p/, the shipped policies' layout
# (catzoo.training.checkpoint reads them by it). Here, not there, because seat names
# (short_name) need it where the training extra is not installed.
COUNT_FOLDER = re.compile(r"^([1-9][0-9]*)p$")

# Every kind of spec, in words, for the commands' --help (show, arena, play, oracle).
SPEC_HELP = ("best (the strongest bot measured for the game and player count, thinking "
             "1 s a move; best:seconds=S), random, heuristic (ledges also: aimer, "
             "lookahead[:seconds=S]), ismcts[:iterations=N, c=X, seconds=S, rollout_depth=D, "
             "prior=NET], pimc[:policy=P, determinizations=N, horizon=deal|end, playouts=M, "
             "mix=W, seconds=S, threshold=T], sparta[:...as pimc] (cooperative: search over "
             "the shipped policy), planner[:candidates=N, samples=N, depth=N, seconds=S, "
             "guide=BOT], shipped (the policy shipped for the game at the table's player "
             "count; shipped:GAME or shipped:GAME:Np names one), or a checkpoint directory "
             "(options comma-separated, without spaces on the command line)")


class UnknownPolicyError(ValueError):
    pass


def available_policies(game: str) -> list[str]:
    info = get_game(game)
    return ["random", *sorted(info.bots), *SEARCH]


def shipped_spec(game: str) -> str:
    """The spec of ``game``'s shipped policy; loaded for a table, it picks the policy of
    the table's player count."""
    return f"{SHIPPED}:{get_game(game).name}"


def has_shipped(game: str, num_players: int | None = None) -> bool:
    """Whether CatZoo ships a policy for ``game`` (in the installed package) trained for
    ``num_players`` (None: for any count)."""
    try:
        from catzoo.training.checkpoint import shipped_counts
    except ImportError:
        return False
    counts = shipped_counts(get_game(game).name)
    return bool(counts) if num_players is None else num_players in counts


def short_name(spec: str, game: str | None = None) -> str:
    """A seat's short name for a policy spec: the bot's name without its options, or
    "GAME policy" for a checkpoint (its folder's name; ``shipped`` alone: ``game``'s);
    the spec itself says the rest."""
    spec = str(spec).strip()
    head, _, rest = spec.partition(":")
    if head == BEST:
        return BEST
    if head == SHIPPED:  # shipped:GAME:Np too: the table says the count
        return f"{(rest.partition(':')[0] or game or 'shipped').strip()} policy"
    if not is_checkpoint_spec(spec):
        return head
    parts = [p for p in spec.replace(os.sep, "/").split("/") if p not in ("", ".", "..")]
    while len(parts) > 1 and (parts[-1] in ("policy", "policy.json", "policy.safetensors")
                              or COUNT_FOLDER.match(parts[-1])):
        parts.pop()  # a run's final policy/ is named for its run, GAME/4p/ for its game
    return f"{parts[-1] if parts else spec} policy"


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"ismcts:iterations=200,c=1"`` -> ``("ismcts", {"iterations": "200", "c": "1"})``."""
    name, _, rest = spec.partition(":")
    options = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UnknownPolicyError(
                f"policy spec {spec!r}: option {item!r} must look like key=value "
                "(options are comma-separated after a colon, e.g. ismcts:iterations=200)"
            )
        options[key.strip()] = value.strip()
    return name.strip(), options


# ``package.module:Class`` with an optional ``:key=value,...``: a dotted module path (so a
# search bot's ``ismcts:iterations=200`` never matches) and a class name.
IMPORT_SPEC = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+):([A-Za-z_]\w*)(?::(.*))?$")


def is_checkpoint_spec(spec: str) -> bool:
    if spec.partition(":")[0].strip() == SHIPPED:
        return True
    return os.sep in spec or "/" in spec or spec.startswith(".") or os.path.exists(spec)


def make_policy(spec: str, game: str, num_players: int, seed: int | None = None,
                env_options: dict | None = None):
    """The policy of ``spec`` for a table of ``game`` with ``num_players`` and the game
    options ``env_options`` (None: the game's defaults); a checkpoint must have been
    trained for them (``catzoo.training.checkpoint.check_fits`` decides)."""
    info = get_game(game)
    bots = info.bots
    head, _, rest = spec.partition(":")
    head = head.strip()
    if head == BEST:
        from catzoo.policies.best import BestError, make_best

        try:
            best = make_best(spec, info.name, num_players, seed=seed, env_options=env_options)
        except BestError as err:
            raise UnknownPolicyError(str(err)) from None
        except UnknownPolicyError as err:
            raise UnknownPolicyError(f"policy {spec!r}: {err}") from None
        return best
    if head == SHIPPED:
        spec = f"{SHIPPED}:{rest.strip() or info.name}"
    # A bot name wins over a file of the same name in the working directory.
    if head not in bots and head not in SEARCH and head != "random" and is_checkpoint_spec(spec):
        return load_checkpoint(spec, info.name, num_players, seed,
                               {} if env_options is None else env_options)
    imported = IMPORT_SPEC.match(spec.strip())
    if imported:
        return import_policy(spec, *imported.groups(), num_players=num_players, seed=seed)
    name, options = parse_spec(spec)
    if name == "random" and not options:
        return RandomPolicy(seed)
    if name in SEARCH:
        module, cls = SEARCH[name].split(":")
        return _with_options(getattr(importlib.import_module(module), cls), spec, options,
                             num_players, seed)
    if name in bots or name == "random":
        target = bot_class(info.name, name)
        if not options:
            return target(num_players=num_players, seed=seed)
        if not getattr(target, "OPTIONS", None):
            raise UnknownPolicyError(f"policy {name!r} takes no options, got {spec!r}")
        return _with_options(target, spec, options, num_players, seed)
    names = [BEST, *available_policies(info.name), SHIPPED]
    raise UnknownPolicyError(
        f"unknown policy {spec!r} for {info.name}{did_you_mean(name, names)}; available: "
        f"{', '.join(names)} (or shipped:GAME), a checkpoint directory path, or a bot class "
        "by import path (package.module:Class)"
    )


def _with_options(target: type, spec: str, options: dict[str, str], num_players: int, seed,
                  errors: tuple[type[Exception], ...] = ()):
    """A search bot, a game's bot that takes options or an imported one, built with the
    spec's options; its mistakes (``errors``, besides a search option's) named with it."""
    from catzoo.policies.search.options import SearchOptionError

    try:
        policy = target(num_players=num_players, seed=seed, **options)
    except (SearchOptionError, *errors) as err:
        raise UnknownPolicyError(f"policy {spec!r}: {err}") from None
    policy.name = spec
    return policy


def is_search(game: str, name: str) -> bool:
    """Whether bot ``name`` searches the rules engine: a search bot, or a game's bot that
    tries moves in it and so takes a time budget (Ledges' ``lookahead:seconds=S``). It
    needs the engine state (``act(state=...)``), never acts from observations alone."""
    if name in SEARCH:
        return True
    if name not in get_game(game).bots:
        return False
    return "seconds" in getattr(bot_class(game, name), "OPTIONS", {})


def bot_class(game: str, name: str) -> type:
    """The class of ``game``'s bot ``name`` (one of its record's bots, or ``random``); a bot
    that takes options (``lookahead:seconds=1``) lists them in its ``OPTIONS``."""
    if name == "random":
        return RandomPolicy
    module, cls = get_game(game).bots[name].split(":")
    return getattr(importlib.import_module(module), cls)


def check_policy_fits(policy, game: str, num_players: int, env_options: dict | None) -> None:
    """For a policy object built elsewhere: a checkpoint's (one with ``meta``) must fit
    the table as ``make_policy`` requires (the same ``check_fits``)."""
    meta = getattr(policy, "meta", None)
    if not isinstance(meta, dict) or "env_version" not in meta:
        return  # a bot: it plays any options
    from catzoo.training.checkpoint import CheckpointError, check_fits

    try:
        check_fits(meta, game, num_players, env_options or {},
                   where=f"policy {getattr(policy, 'name', type(policy).__name__)!r}")
    except CheckpointError as err:
        raise UnknownPolicyError(str(err)) from None


def import_policy(spec: str, module: str, cls: str, options: str | None, *, num_players: int,
                  seed: int | None):
    from catzoo.policies.base import Policy

    _, kwargs = parse_spec(f"x:{options or ''}")
    try:
        target = getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as err:
        raise UnknownPolicyError(f"policy {spec!r}: cannot import {module}:{cls} ({err})") from None
    if not (isinstance(target, type) and issubclass(target, Policy)):
        raise UnknownPolicyError(
            f"policy {spec!r}: {module}:{cls} is not a catzoo.policies.base.Policy class")
    return _with_options(target, spec, kwargs, num_players, seed, errors=(TypeError,))


def load_checkpoint(path: str, game: str, num_players: int, seed: int | None = None,
                    env_options: dict | None = None):
    if not path.startswith(SHIPPED + ":") and not os.path.exists(path):
        raise UnknownPolicyError(
            f"policy {path!r} looks like a checkpoint path, but no such file or directory exists"
        )
    try:
        training = importlib.import_module("catzoo.training")
        load_policy = training.load_policy
    except (ImportError, AttributeError) as err:
        raise UnknownPolicyError(
            f"cannot load checkpoint {path!r}: catzoo.training.load_policy is not available "
            f"({err}); install the training extra: pip install 'catzoo[train]'"
        ) from None
    failures = (OSError, ValueError, KeyError, getattr(training, "CheckpointError", OSError))
    try:
        # The game and player count are checked against the checkpoint's own.
        policy = load_policy(path, game=game, num_players=num_players, seed=seed,
                             env_options=env_options)
    except failures as err:
        if path.startswith(SHIPPED + ":"):  # a name, not a file: nothing to call unloadable
            raise UnknownPolicyError(f"policy {path!r}: {err}") from None
        raise UnknownPolicyError(f"{path!r} is not a loadable checkpoint: {err}") from None
    if not getattr(policy, "name", None) or policy.name == "policy":
        policy.name = path
    return policy
