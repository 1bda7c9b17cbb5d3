"""The text table behind ``catzoo play``: one human seat against bots, in a terminal.

Input is read line by line from any text stream and output goes to a rich ``Console``, so
the tests drive a whole game through a ``StringIO``. Nothing typed can crash the game: a
wrong line gets the reason and a new prompt; the end of the input abandons the game, and
so does Ctrl-C (cleanly: the caller still saves the replay). On a terminal, what was typed
while the bots moved is dropped before each prompt, so a stray key is never a move.
"""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table as RichTable
from rich.text import Text

from catzoo.play import views
from catzoo.play.rules import NoRulesError, rules_location, rules_page
from catzoo.play.views.generic import legend, sheet_table, summary_table, who

LIST_LIMIT = 40  # more legal moves than this are listed on request, filtered
HELP = (
    "Type the number of a move, or words from its name when they match one move only.\n"
    "  moves [WORDS]  list the legal moves (those whose name contains WORDS)\n"
    "  board          show the table again\n"
    "  log            the last moves played\n"
    "  score          the score sheet, and the last round's result\n"
    "  rules          the rules of this game ({rules})\n"
    "  quit           leave the game"
)


class Abandoned(Exception):
    pass


class Interrupted(Abandoned):
    """Ctrl-C: the game is left as with quit."""


def drain(stream) -> None:
    """Drop what was typed ahead on a terminal (keys pressed while the bots moved): a
    prompt reads only what is typed after it. Streams that are not terminals (a file, a
    test's input) are read as they are."""
    try:
        if not stream.isatty():
            return
        import termios

        termios.tcflush(stream.fileno(), termios.TCIFLUSH)
    except (AttributeError, ValueError, OSError, ImportError):
        return


class TerminalGame:
    def __init__(self, table, seat: int, *, stdin=None, console: Console | None = None,
                 delay: float = 0.0):
        self.table = table
        self.seat = seat
        self.stdin = stdin if stdin is not None else sys.stdin
        self.console = console or Console(highlight=False)
        self.delay = delay
        self.interrupted = False
        self._rounds_shown = 0

    # --- the game loop ------------------------------------------------------------------
    def run(self) -> bool:
        """Play to the end; False if the player quit, the input ended or Ctrl-C was
        pressed first (``interrupted`` tells the last)."""
        t = self.table
        self.console.print(Text(f"{t.info.title}, {t.num_players} players, seed {t.seed}. "
                                f"You are P{self.seat}.", style="bold"))
        self.console.print(legend(self.table.view(self.seat, events=0)))
        self.console.print(Text(f"Type ? for help, rules for the rules "
                                f"({rules_location(t.game)}).", style="dim"))
        try:
            while not t.over:
                if t.human_to_act():
                    self._human_turn()
                else:
                    self._show_event(t.apply_bot(self._bot_action()))
                    if self.delay:
                        time.sleep(self.delay)
        except KeyboardInterrupt:
            self.interrupted = True
            self.console.print()
            self.console.print("Interrupted (Ctrl-C): game abandoned.")
            return False
        except Abandoned:
            self.console.print("Game abandoned.")
            return False
        self._summary()
        return True

    def _bot_action(self) -> int:
        """The bot to act's move, with a spinner saying who is thinking while it searches
        (shown on a terminal only)."""
        p = self.table.to_act
        with self.console.status(f"P{p} {self.table.seats[p].name} is thinking…"):
            return self.table.bot_action()

    def _show_event(self, event) -> None:
        view = {"seat": self.seat, "seats": [{"name": s.name} for s in self.table.seats]}
        self.console.print(Text("  ") + who(view, event.player)
                           + Text(f": {event.texts[self.seat]}"))
        self._show_new_rounds()

    def _show_new_rounds(self) -> None:
        """A round that just ended: its summary and the score sheet, before the next."""
        table = self.table
        if not hasattr(table.view_module, "rounds"):
            return
        view = table.view(self.seat, events=0)
        for done in view["rounds"][self._rounds_shown:]:
            self.console.print()
            self.console.print(summary_table(view, done))
            if view["sheet"] and not table.over:
                self.console.print(sheet_table(view, view["sheet"]))
        self._rounds_shown = len(view["rounds"])

    def _show_board(self) -> None:
        view = self.table.view(self.seat)
        self.console.print()
        self.console.print(self.table.view_module.rich(view))

    def _human_turn(self) -> None:
        # Several seats may be human (hot seat); each sees only its own view.
        seat = self.table.to_act
        if seat != self.seat:
            self.seat = seat
            self.console.print(Text(f"Pass the keyboard to P{seat}.", style="bold"))
        self._show_board()
        moves = views.moves(self.table, self.seat)
        self._list_moves(moves, "")
        while True:
            drain(self.stdin)
            self.console.print(Text(f"Your move (1-{len(moves)}, ? for help): ", style="bold"),
                               end="")
            line = self.stdin.readline()
            if not line:
                self.console.print()
                self.console.print("The input ended.")
                raise Abandoned
            chosen = self._parse(line.strip(), moves)
            if chosen is not None:
                self._show_event(self.table.apply(chosen["action"], player=self.seat))
                return

    def _parse(self, line: str, moves: list[dict]) -> dict | None:
        """The move ``line`` chooses, or None after answering it (help, an error...)."""
        say = self.console.print
        words = line.lower().split()
        if not words:
            say(f"Type a move number from 1 to {len(moves)}, or ? for help.")
            return None
        head, rest = words[0], " ".join(words[1:])
        if head in ("?", "h", "help"):
            say(HELP.format(rules=rules_location(self.table.game)))
        elif head == "rules":
            try:
                say(Markdown(rules_page(self.table.game)))
            except NoRulesError as err:
                say(str(err))
        elif head in ("s", "score", "sheet"):
            self._show_sheet()
        elif head in ("q", "quit", "exit"):
            raise Abandoned
        elif head in ("b", "board"):
            self._show_board()
        elif head in ("m", "moves"):
            self._list_moves(moves, rest, force=True)
        elif head in ("l", "log"):
            for e in self.table.events[-12:]:
                self._show_event(e)
        elif line.isdigit() or (line[:1] in "+-" and line[1:].isdigit()):
            number = int(line)
            if 1 <= number <= len(moves):
                return moves[number - 1]
            say(f"There is no move {number}: choose a number from 1 to {len(moves)}.")
        else:
            matches = [m for m in moves if line.lower() in m["label"].lower()]
            if len(matches) == 1:
                return matches[0]
            if not matches:
                say(f"{line!r} is not a command and names no legal move; ? for help.")
            else:
                say(f"{line!r} matches {len(matches)} moves; be more precise or type a number:")
                self._list_moves(moves, line.lower(), force=True)
        return None

    def _list_moves(self, moves: list[dict], words: str, force: bool = False) -> None:
        shown = [(i, m) for i, m in enumerate(moves, 1) if words in m["label"].lower()]
        if len(shown) > LIST_LIMIT and not force:
            groups = sorted({m["group"] for m in moves if m["group"]})
            self.console.print(f"{len(moves)} legal moves; type `moves WORDS` to list those "
                               "whose name contains WORDS"
                               + (f" (kinds: {'; '.join(groups)})" if groups else "") + ".")
            return
        if not shown:
            self.console.print(f"No legal move contains {words!r}.")
            return
        grid = RichTable.grid(padding=(0, 3))
        columns = 1 if max(len(m["label"]) for _, m in shown) > 40 else 2
        for _ in range(columns):
            grid.add_column()
        cells = [f"{i:>3}. {m['label']}" for i, m in shown]
        rows = (len(cells) + columns - 1) // columns
        for r in range(rows):
            grid.add_row(*[cells[c * rows + r] if c * rows + r < len(cells) else ""
                           for c in range(columns)])
        self.console.print(grid)

    def _show_sheet(self) -> None:
        view = self.table.view(self.seat, events=0)
        if view["rounds"]:
            self.console.print(summary_table(view, view["rounds"][-1]))
        if view["sheet"] and view["sheet"]["head"][:-1]:
            self.console.print(sheet_table(view, view["sheet"]))
        elif not view["rounds"]:
            self.console.print("No round has ended yet.")

    def _summary(self) -> None:
        t = self.table
        self._show_board()
        view = t.view(self.seat, events=0)
        result = view["result"]
        if view["sheet"]:
            self.console.print(sheet_table(view, view["sheet"]))
        table = RichTable(title="Final result", title_justify="left")
        table.add_column("seat")
        table.add_column("score", justify="right")
        table.add_column("")
        for s in t.seats:
            table.add_row(f"P{s.index} {s.name}", str(result["scores"][s.index]),
                          "winner" if s.index in result["winners"] else "")
        self.console.print(table)
        if result.get("reason"):
            self.console.print(f"The game ended: {result['reason']}.")
        if result.get("tie_break"):
            self.console.print(f"Tie-break: {result['tie_break']}")
        humans = [s.index for s in t.seats if s.human]
        if any(p in result["winners"] for p in humans):
            shared = len(result["winners"]) > 1
            verdict = "You share the win." if shared else "You win!"
        else:
            verdict = "The bots win this one."
        self.console.print(Text(f"{verdict} {len(t.events)} moves were played.", style="bold"))
