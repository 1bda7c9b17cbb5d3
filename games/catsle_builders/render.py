"""Text rendering of a CATsle Builders state (the spectator's view: every hand shown)."""

from __future__ import annotations

from catzoo.games.catsle_builders.options import SUITS
from catzoo.games.catsle_builders.scoring import column_score


def render_text(state) -> str:
    from catzoo.games.catsle_builders.state import PHASES, card_name, cards_of

    o = state.options
    lines = []
    boards, total_scores, hands = state.col_cards, state.total_scores, state.hands
    if state.is_terminal():
        winners = ", ".join(f"P{p}" for p in state.winners())
        lines.append(f"Game over after {len(state.round_scores)} round(s); winner(s): {winners}.")
        perfect = state.round_perfect
        for r, scores in enumerate(state.round_scores):
            lines.append(f"  round {r + 1}: " + "  ".join(
                f"P{p} {s} ({perfect[r][p]} perfect)" for p, s in enumerate(scores)
            ))
    else:
        lines.append(
            f"Round {state.round_index + 1}/{o.num_rounds}  trick "
            f"{state.tricks_done + 1}/{o.hands}  phase: {PHASES[state.phase]}  "
            f"first player: P{state.round_start}  to act: P{state.current_player}"
        )
        trick, rating = state.trick, state.rating
        if trick:
            played = ", ".join(f"P{p}: {card_name(c)}" for p, c in trick)
            lines.append(f"trick (led {SUITS[state.led]}): {played}")
            if rating:
                left = ", ".join(card_name(c) for c in cards_of(state.remaining))
                lines.append(
                    "rating: " + " > ".join(f"P{p} takes {t}" for p, t in
                                            zip(rating, o.takes))
                    + f"; left in trick: {left}"
                )
        if state.pending >= 0:
            lines.append(f"P{state.current_player} places {card_name(state.pending)} in a column")
    col_suit = state.col_suit
    for p in range(state.num_players):
        hand = " ".join(card_name(c) for c in cards_of(hands[p])) or "-"
        lines.append(f"  P{p}: score {total_scores[p]:>3}  hand {hand}")
        if state.is_terminal():
            continue
        cols = []
        for k, limit in enumerate(o.limits):
            cards = boards[p][k]
            suit = SUITS[col_suit[p][k]] if cards else "empty"
            shown = " ".join(card_name(c) for c in cards[:limit])
            sideways = " ".join(card_name(c) for c in cards[limit:])
            text = f"[{k}: {suit} {len(cards)}/{limit}"
            if shown:
                text += f" {shown}"
            if sideways:
                text += f" | sideways {sideways}"
            cols.append(text + f" -> {column_score(len(cards), limit)}]")
        lines.append("       " + " ".join(cols))
    return "\n".join(lines)
