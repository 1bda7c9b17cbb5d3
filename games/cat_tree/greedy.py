"""Greedy placement on the score after placing: the heuristic bot's rule, shared with the
oracle (which starts from the heuristic's game as its first incumbent).

A placement is judged by the shared score of the grid just after it; ties go to the
higher row (towards the altitude bonus), then to the column nearer the middle, then to
the lower cell index, so the choice is deterministic.
"""

from __future__ import annotations

from catzoo.games.cat_tree.placement import RULE_OF_TYPE, Rules, cells_of, legal_classes
from catzoo.games.cat_tree.scoring import score

DISMISSED = -1


def best_cell(boards, kind: int, rules: Rules) -> tuple[int, int]:
    """(score after placing, cell) of the greedy placement of a ``kind`` card; the cell is
    ``DISMISSED`` (and the score the current one) when no cell is legal."""
    cells = legal_classes(boards, rules)[RULE_OF_TYPE[kind]]
    if not cells:
        return score(boards, rules), DISMISSED
    board = boards[kind]
    boards = list(boards)
    width, middle = rules.width, (rules.width - 1) / 2
    best_key, best = None, DISMISSED
    best_score = 0
    for cell in cells_of(cells):
        boards[kind] = board | (1 << cell)
        value = score(boards, rules)
        row, col = divmod(cell, width)
        key = (value, row, -abs(col - middle), -cell)
        if best_key is None or key > best_key:
            best_key, best, best_score = key, cell, value
    return best_score, best


def placed(boards, kind: int, cell: int) -> list[int]:
    """A copy of ``boards`` with a ``kind`` card at ``cell`` (unchanged for a dismissal)."""
    out = list(boards)
    if cell != DISMISSED:
        out[kind] |= 1 << cell
    return out


def greedy_keep(boards, hand: tuple[int, int], rules: Rules) -> int:
    """Which of the two cards (0 or 1) to keep: the one whose greedy placement on the
    current grid scores more; ties keep the lower card."""
    first = best_cell(boards, hand[0], rules)[0]
    second = best_cell(boards, hand[1], rules)[0]
    return 1 if second > first else 0


def greedy_order(boards, mine: int, partner: int, rules: Rules) -> bool:
    """Whether I should place first: both orders are played out greedily and the better
    final score wins; a tie keeps me (the leader) first."""
    def play(first: int, second: int) -> int:
        s1, c1 = best_cell(boards, first, rules)
        return best_cell(placed(boards, first, c1), second, rules)[0]

    return play(mine, partner) >= play(partner, mine)
