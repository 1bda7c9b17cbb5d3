"""The terminal table, driven through its input stream: every game to the end, wrong
inputs answered with a reason (never a crash), the end of input, the command line."""

from __future__ import annotations

import io
import json
import sys

import pytest
from rich.console import Console

from catzoo.cli.main import main
from catzoo.games.registry import GAMES
from catzoo.play import Table
from catzoo.play.terminal import TerminalGame

SHORT = {name: dict(info.quick_options) for name, info in GAMES.items()}  # the records'
WRONG = ["", "banana", "0", "999", "-3", "1.5", "moves", "moves zzz", "help", "board", "log"]


class Keyboard:
    """Wrong lines first, then a move number each time one is asked for."""

    def __init__(self, wrong, answer="1"):
        self.lines = list(wrong)
        self.answer = answer
        self.asked = 0

    def readline(self) -> str:
        self.asked += 1
        return (self.lines.pop(0) if self.lines else self.answer) + "\n"


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=110, color_system=None, highlight=False), out


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_with_wrong_inputs_first(game):
    info = GAMES[game]
    table = Table(game, ["human"] + ["heuristic"] * (info.default_players - 1), seed=3,
                  options=SHORT.get(game), names=["you"] + ["heuristic"] * (info.default_players - 1))
    con, out = console()
    keys = Keyboard(WRONG)
    assert TerminalGame(table, 0, stdin=keys, console=con).run() is True
    text = out.getvalue()
    assert table.over and not keys.lines
    assert "Type a move number from 1 to" in text  # the empty line
    assert "'banana' is not a command and names no legal move" in text
    assert "There is no move 0" in text and "There is no move 999" in text
    assert "There is no move -3" in text and "'1.5' is not a command" in text
    assert "No legal move contains 'zzz'" in text
    assert "moves [WORDS]" in text  # help
    assert "Final result" in text
    for p, score in enumerate(table.state.scores()):
        assert f"P{p} {table.seats[p].name}" in text
    assert "moves were played" in text
    assert "  P1 heuristic: " in text  # bots' moves, one line each


def test_words_of_a_move_name_choose_it_when_they_match_one_move():
    table = Table("cat_in_the_box", ["human", "random"], seed=1, options={"rounds": "single"})
    con, out = console()
    label = table.state.action_to_string(table.legal()[0])  # "set aside a N"
    keys = Keyboard(["set aside", label], answer="q")
    assert TerminalGame(table, 0, stdin=keys, console=con).run() is False
    text = out.getvalue()
    assert "'set aside' matches" in text
    assert table.events[0].player == 0
    assert table.events[0].texts[0] == label
    assert "Game abandoned." in text


def test_the_end_of_the_input_abandons_the_game():
    table = Table("lunar", ["human", "random"], seed=2, options={"rounds": "single"})
    con, out = console()
    assert TerminalGame(table, 0, stdin=io.StringIO("1\n"), console=con).run() is False
    assert "The input ended." in out.getvalue() and not table.over


def test_many_moves_are_listed_on_request(game="ledges"):
    table = Table(game, ["human", "random"], seed=1, options={"max_rounds": 1})
    con, out = console()
    keys = Keyboard(["moves round on tall"], answer="q")
    TerminalGame(table, 0, stdin=keys, console=con).run()
    text = out.getvalue()
    assert "legal moves; type `moves WORDS`" in text
    assert "build round on tall" in text


def test_play_and_replay_on_the_command_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\n" + "1\n" * 200))
    code = main(["play", "cat_tree", "--seed", "5", "--delay", "0", "--opponent", "random",
                 "-o", "turns=2", "--save", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "'x' is not a command" in out and f"Replay saved to {path}" in out
    saved = json.loads(path.read_text())
    assert saved["seats"] == ["you", "random"] and saved["log"]["seed"] == 5
    assert main(["replay", str(path), "--all"]) == 0
    shown = capsys.readouterr().out
    assert f"Final scores: P0 {saved['result']['scores'][0]}" in shown
    assert shown.count("P0 (you): ") + shown.count("P1 (random): ") == len(saved["log"]["actions"])
    assert main(["replay", str(path), "--at", "1"]) == 0
    assert "Turn 1/2" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["play", "cat_tree", "--seat", "2"], "seat 2 does not exist: seats are 0 to 1"),
    (["play", "lunar", "--players", "3"], "played by 2, 4 players, not 3"),
    (["play", "lunar", "--opponent", "genius"], "unknown policy 'genius'"),
    (["play", "lunar", "-o", "rounds=many"], "rounds='many' is not allowed"),
    (["play", "lunar", "--opponent", "./no/such/checkpoint"], "no such file or directory"),
    (["replay", "/no/such/file.json"], "cannot read replay"),
])
def test_play_errors_are_one_line_messages(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
