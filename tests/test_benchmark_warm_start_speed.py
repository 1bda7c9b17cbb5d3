"""benchmarks/warm_start_speed.py (no timing is asserted): it measures both paths on the
same config and prints each one's games and decisions, then their ratio."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "warm_start_speed.py"


def test_it_prints_both_paths_and_their_ratio(capsys):
    spec = importlib.util.spec_from_file_location("warm_start_speed", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--players", "3", "--games", "3"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^(batched \(catzoo\.vector\)|AEC loop) +3 games, +([\d,]+) decisions",
                      out, flags=re.MULTILINE)
    assert [name for name, _ in rows] == ["batched (catzoo.vector)", "AEC loop"]
    # Three 3-player games of 3 rounds of 13 tricks: well over a hundred decisions each.
    assert all(int(count.replace(",", "")) > 100 for _, count in rows)
    assert re.search(r"^batched / AEC: \d+\.\dx$", out, flags=re.MULTILINE)
