"""The catzoo command line: listing, showing a game, and clear errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from catzoo.cli.main import main


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "cat_in_the_box" in out and "2-5" in out and "catzoo/cat_in_the_box-v0" in out


def test_show_prints_a_seeded_game_turn_by_turn(capsys):
    assert main(["show", "cat_in_the_box", "--players", "3", "--seed", "4",
                 "--policy", "heuristic", "--policy", "random"]) == 0
    first = capsys.readouterr().out
    assert "P0 (heuristic): set aside" in first and "P1 (random)" in first
    assert "research board" in first and "Final scores:" in first
    main(["show", "cat_in_the_box", "--players", "3", "--seed", "4",
          "--policy", "heuristic", "--policy", "random"])
    assert capsys.readouterr().out == first


# Mistakes on the command line, by what is mistaken, each with what its one-line error
# says; a mistyped name gets the nearest valid one.
MISTAKES = {
    "game": [(["show", "chess"], "unknown game 'chess'; known games:"),
             (["show", "lunr"], "did you mean 'lunar'?")],
    "players": [(["show", "cat_in_the_box", "--players", "7"],
                 "played by 2, 3, 4, 5 players, not 7")],
    "option": [(["show", "cat_in_the_box", "-o", "colour=red"], "unknown option(s) 'colour'"),
               (["show", "cat_in_the_box", "-o", "round=single"], "did you mean 'rounds'?"),
               (["show", "cat_in_the_box", "-o", "rounds"], "must look like key=value")],
    "option value": [
        (["show", "cat_in_the_box", "-o", "rounds=many"], "rounds='many' is not allowed"),
        (["show", "cat_in_the_box", "-o", "rounds=singel"], "did you mean 'single'?")],
    "policy": [
        (["show", "cat_in_the_box", "--policy", "genius"], "unknown policy 'genius'"),
        (["show", "cat_in_the_box", "--policy", "heuristc"], "did you mean 'heuristic'?"),
        (["show", "cat_in_the_box", "--policy", "ismcts:iteration=5"],
         "did you mean 'iterations'?"),
        (["show", "lunar", "--policy", "shipped:luna"], "did you mean 'lunar'?")],
}


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(argv, message, id=f"{what}: {argv[-1]}")
    for what, rows in MISTAKES.items() for argv, message in rows])
def test_errors_are_one_line_messages(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
    assert captured.out == ""


def test_installed_entry_point_runs():
    done = subprocess.run([sys.executable, "-m", "catzoo.cli.main", "show", "nope"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "unknown game 'nope'" in done.stderr


def test_a_sub_command_usage_error_run_as_a_module_is_one_line():
    # python -m runs this module as __main__; the sub-commands' errors must still be caught
    done = subprocess.run([sys.executable, "-m", "catzoo.cli.main", "arena", "cat_tree",
                           "--players", "7"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cat_tree is played by 2 players, not 7" in done.stderr


def _sub_commands() -> list[str]:
    from catzoo.cli.main import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return sorted(sub.choices)


@pytest.mark.parametrize("argv", [["--help"], ["-h"], *[[c, "--help"] for c in _sub_commands()]])
def test_help_of_the_command_and_of_every_sub_command(argv, capsys):
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: catzoo")
    if argv[0] == "--help":
        assert all(c in out for c in _sub_commands())


def test_show_help_lists_every_kind_of_policy_spec(capsys):
    with pytest.raises(SystemExit):
        main(["show", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for spec in ("random", "heuristic", "ismcts", "planner", "shipped", "checkpoint directory"):
        assert spec in out


def test_a_mistyped_sub_command_suggests_the_nearest_one(capsys):
    with pytest.raises(SystemExit) as done:  # argparse's own error, exit status 2
        main(["arean"])
    assert done.value.code == 2
    assert "did you mean 'arena'?" in capsys.readouterr().err


def test_show_says_why_the_game_ended(capsys):
    assert main(["show", "lunar", "--players", "2", "--seed", "1", "-o", "rounds=single"]) == 0
    assert "The game ended: the one round was played (rounds=single)." in capsys.readouterr().out
