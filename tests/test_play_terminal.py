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


class CtrlC(Keyboard):
    """Answers until ``after`` lines were read, then Ctrl-C."""

    def __init__(self, after: int):
        super().__init__([])
        self.after = after

    def readline(self) -> str:
        if self.asked >= self.after:
            raise KeyboardInterrupt
        return super().readline()


def test_ctrl_c_ends_the_game_cleanly():
    table = Table("cat_tree", ["human", "random"], seed=2, options={"turns": 3})
    con, out = console()
    game = TerminalGame(table, 0, stdin=CtrlC(2), console=con)
    assert game.run() is False and game.interrupted
    assert "Interrupted (Ctrl-C): game abandoned." in out.getvalue()


def test_ctrl_c_on_the_command_line_saves_the_replay_without_a_traceback(tmp_path, monkeypatch,
                                                                          capsys):
    path = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", CtrlC(3))
    code = main(["play", "cat_tree", "--seed", "5", "--delay", "0", "--opponent", "random",
                 "--save", str(path)])
    captured = capsys.readouterr()
    assert code == 130 and "Traceback" not in captured.err + captured.out
    assert f"Replay saved to {path}" in captured.out
    saved = json.loads(path.read_text())
    assert saved["result"] is None and len(saved["log"]["actions"]) >= 2  # as far as it went


def test_keys_typed_while_the_bots_moved_are_not_taken_as_a_move():
    """On a terminal the input typed ahead is dropped before each prompt: a stray '1'
    pressed during the bots' turn is not the next move."""
    import os
    import pty
    import threading
    import time

    master, slave = pty.openpty()
    stdin = os.fdopen(slave, "r", buffering=1)
    table = Table("cat_in_the_box", ["random", "human"], seed=3, options={"rounds": "single"})
    con, out = console()
    os.write(master, b"1\n")  # typed ahead, before any prompt
    game = TerminalGame(table, 1, stdin=stdin, console=con)

    def answer_prompt():  # at the prompt: quit
        deadline = time.time() + 20
        while "Your move" not in out.getvalue() and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)
        os.write(master, b"q\n")

    helper = threading.Thread(target=answer_prompt)
    helper.start()
    try:
        assert game.run() is False
    finally:
        helper.join()
        stdin.close()
        os.close(master)
    assert [e.player for e in table.events] == [0]  # the bot's move only: "1" was dropped
    assert "Game abandoned." in out.getvalue()


def test_rules_and_the_score_sheet_on_request_and_each_round_summed_up_at_its_end():
    table = Table("cat_in_the_box", ["human", "heuristic", "heuristic"], seed=3)
    con, out = console()
    keys = Keyboard(["score", "rules", "help"])
    assert TerminalGame(table, 0, stdin=keys, console=con).run() is True
    text = out.getvalue()
    assert "No round has ended yet." in text
    assert "Cat in the Box: the rules as implemented" in text  # the rules page, rendered
    assert "docs/rules/cat_in_the_box.md" in text  # where the help says the page is
    for r in range(1, 4):
        summary = text.index(f"Round {r} of 3: result")
        if r < 3:  # before the next round's first move
            assert summary < text.index("sets a card aside", summary)
    assert text.count("score sheet") >= 3 and "The game ended: all 3 rounds were played." in text


def test_the_seats_legend_gives_each_short_name_its_full_spec():
    table = Table("cat_tree", ["human", "ismcts:iterations=2"], seed=1, options={"turns": 1},
                  names=["you", "ismcts"])
    con, out = console()
    TerminalGame(table, 0, stdin=Keyboard([], answer="q"), console=con).run()
    assert "P1 ismcts (ismcts:iterations=2)" in out.getvalue()


def test_a_replay_steps_backwards_as_well_as_forwards(tmp_path, monkeypatch, capsys):
    from catzoo.play.replay import save_replay

    table = Table("cat_tree", ["random", "random"], seed=4, options={"turns": 2})
    table.play_bots()
    path = tmp_path / "r.json"
    save_replay(path, table.replay())
    answers = iter(["", "", "b", "3", "-2", "x", "q"])
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: (print(prompt), next(answers))[1])
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    positions = [line.split("/")[0] + "/" for line in out.splitlines() if line.startswith("[")]
    assert positions == ["[0/", "[1/", "[2/", "[1/", "[4/", "[2/", "[2/"], positions
    assert "Back to move 1: the table after 1 move(s)." in out
    assert "Back to move 2" in out and "'x': Enter: next move" in out
