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


@pytest.mark.parametrize(("argv", "message"), [
    (["show", "chess"], "unknown game 'chess'; known games:"),
    (["show", "cat_in_the_box", "--players", "7"], "played by 2, 3, 4, 5 players, not 7"),
    (["show", "cat_in_the_box", "-o", "colour=red"], "unknown option(s) 'colour'"),
    (["show", "cat_in_the_box", "-o", "rounds=many"], "rounds='many' is not allowed"),
    (["show", "cat_in_the_box", "--policy", "genius"], "unknown policy 'genius'"),
    (["show", "cat_in_the_box", "-o", "rounds"], "must look like key=value"),
])
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
