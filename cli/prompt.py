"""The ``play`` prompt: a game client at a terminal (issue 14).

At each decision the table is shown once, then a page of numbered legal
commands.  Besides a number or a command the prompt takes ``?``/``help`` (the
command forms that apply here, an example each), ``board``, ``log [N]``,
``score`` (if the game ended now, line by line), ``more`` (the next page),
``undo`` (against bots: a fork at your previous decision, the original log
unchanged) and ``quit``.  A prefix (``take``, ``place O``) lists the legal
commands starting with it; a refusal is one line with the closest legal
commands, the table is not printed again.
"""

from __future__ import annotations

import difflib
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from cli.output import say, say_markup
from cli.report import report
from cli.results import breakdown_lines, opponent_lines, result_lines
from core.engine import CHANCE, Game, RulesError, decisions
from core.markup import escape
from events.service import GameService, Loaded, ServiceError, parse_command

PAGE = 20
"""Commands listed at once; ``more`` shows the next page, a prefix filters."""

LOG_LINES = 10

# The command forms of each game: verb -> (form, what it does).  Help shows only
# the verbs among the legal commands of the moment, each with a real example.
FORMS: dict[str, dict[str, tuple[str, str]]] = {
    "card-city": {
        "split": ("split PAIR UP DOWN", "split the drawn cards: the face-up pair, the face-up half, the face-down half"),
        "take": ("take pair|rest", "choose a group of the split on offer"),
        "keep": ("keep CARDS", "solo: keep two of the three cards drawn [CC-9]"),
        "build": ("build CARD SQUARE", "build a card of your hand on SQUARE, as the board labels it "
                                       "(A1–I9, City Hall at E5) [CL-10]"),
        "discard": ("discard CARD", "discard a card that has no legal square"),
        "develop": ("develop CARD SQUARE", "develop a district (Phase 3)"),
        "buy": ("buy SQUARE", "buy an Industrial card and place it on SQUARE [CC-10]"),
        "pass": ("pass", "buy nothing"),
        "draw": ("draw CARDS", "chance: the cards drawn, as the table dealt them"),
    },
    "5x5-city": {
        "choose": ("choose N", "take set N of the sets on offer"),
        "place": ("place TILE SQUARE [park]", "build a tile of your hand on SQUARE (A1–E5); TILE as the hand "
                                              "shows it (Fc#10) or just its code (Fc); 'park': park side up"),
        "swap": ("swap SQUARE SQUARE", "park action A: swap two tiles of your board"),
        "use": ("use", "park action B: draw two tiles"),
        "decline": ("decline", "decline the park action (the token is spent anyway)"),
        "replace": ("replace TILE SQUARE [park]", "park action B: put a drawn tile in place of a board tile"),
        "keep": ("keep", "park action B: replace nothing; both drawn tiles go back to the bag"),
        "sides": ("sides XXXXXXXXXX", "chance: the Building card sides (A/B, Factories … Park)"),
        "plan": ("plan N", "chance: the Building Plan drawn"),
        "planning": ("planning N", "chance: the Planning card drawn"),
        "plot": ("plot N", "chance: the Building Plot drawn"),
        "draw": ("draw TILE …", "chance: the tiles out of the bag"),
    },
    "point-city": {
        "flip": ("flip CELL", "turn a market card to its building side (CELL: A1–D4) [PC-3]"),
        "deck": ("deck", "take the top two cards of the deck"),
        "take": ("take CELL CELL [pay CELL=ITEMS …]", "take two adjacent market cards; each building taken is "
                 "paid with ITEMS: resource cards by number (12 or #12, as your hand shows them; or the "
                 "other cell of the pick), pN = built producer N's "
                 "permanent resource, tN = civic token N [PC-3]; without 'pay' the cheapest payment"),
        "reveal": ("reveal N", "chance: card N turns up on top of the deck"),
        "tokens": ("tokens N N …", "chance: the civic tokens laid out, leftmost first"),
    },
}

# A word of a listed command that needs explaining where it appears: (word, what it means).
NOTATION: dict[str, tuple[str, str]] = {
    "point-city": (" pay ", "pay CELL=ITEMS: the building at CELL paid with resource cards (12 or #12, as "
                            "your hand shows them; or the other cell of the pick), pN = built producer #N's permanent resource, tN = civic "
                            "token tN taken [PC-3]"),
}

_SYNTAX_TAIL = re.compile(r"(; commands: .*| \((try: |choose, place).*\))$")


class Menu:
    """A decision's legal commands, numbered once: pages, prefix lists, the closest
    commands to a refused answer, and the forms that apply (``help``)."""

    def __init__(self, game: Game[Any, Any, Any], options: Sequence[Any]) -> None:
        self.game = game
        self.options = list(options)
        self.texts = [game.format_command(o) for o in self.options]
        self.next_page = 0

    def numbered(self, indices: Sequence[int] | range) -> None:
        for i in indices:
            say(f"  {i + 1:>3}. {self.texts[i]}")

    def page(self, again: bool = False, hint: str = "? for help") -> None:
        """The next page of commands (the first one ``again``), and how to reach the rest."""
        if again:
            self.next_page = 0
        n = len(self.texts)
        if n == 0:
            say(f"  (type the outcome; {hint})")
            return
        start = self.next_page if self.next_page < n else 0
        end = min(n, start + PAGE)
        self.numbered(range(start, end))
        self.next_page = end
        if n > PAGE:
            verbs = Counter(t.split(" ", 1)[0] for t in self.texts)
            kinds = ", ".join(f"{v} {c}" for v, c in verbs.items())
            more = "'more' for the next page" if end < n else "'more' to start again"
            say(f"  (commands {start + 1}–{end} of {n}: {kinds}; {more}, or type the start of a command "
                f"to list the matching ones, e.g. '{self.prefix_example()}'; {hint})")
        else:
            say(f"  (a number or a command; {hint})")

    def prefix_example(self) -> str:
        """A prefix that several commands share: two words if they can, else one."""
        for n in (2, 1):
            words = Counter(" ".join(t.split()[:n]) for t in self.texts if len(t.split()) > n)
            shared = {w: c for w, c in words.items() if c > 1}
            if shared:
                return max(shared, key=lambda w: (shared[w], w))
        return self.texts[0].split()[0] if self.texts else ""

    def pick(self, answer: str) -> Any | None:
        """The command a number or an exact command text names (None: neither);
        ``ServiceError`` for a number out of range."""
        if answer.isdigit() and self.options:
            if not 1 <= int(answer) <= len(self.options):
                raise ServiceError(f"choose a number from 1 to {len(self.options)}")
            return self.options[int(answer) - 1]
        low = answer.lower()
        for option, text in zip(self.options, self.texts, strict=True):
            if text.lower() == low:
                return option
        return None

    def choose(self, answer: str, parse: Callable[[str], Any]) -> Any | None:
        """The command an answer names — a number, a listed command, or a command
        ``parse`` reads — or None when the answer was a prefix (the matching commands
        are listed) or was refused (one line)."""
        try:
            chosen = self.pick(answer)
        except ServiceError as exc:
            self.refuse(str(exc), answer, closest=False)
            return None
        if chosen is not None:
            return chosen
        low = answer.lower()
        found = [i for i, t in enumerate(self.texts) if t.lower().startswith(low)]
        parsed: Any = None
        try:
            parsed = parse(answer)
        except (ServiceError, RulesError) as exc:
            if not found:
                self.refuse(self.reason(answer, str(exc)), answer)
                return None
        if parsed is not None and (not found or [self.options[i] for i in found] == [parsed]):
            return parsed  # another form of a command, or the only one it starts
        n = len(found)
        say(f"{n} legal command{'s' if n != 1 else ''} start{'s' if n == 1 else ''} with '{answer}':")
        self.numbered(found)
        word, meaning = NOTATION.get(self.game.spec.name, ("\0", ""))
        if any(word in self.texts[i] for i in found):
            say(f"  ({meaning})")
        return None

    def reason(self, answer: str, message: str) -> str:
        """The parser's message without its list of every form of the game (help has
        the forms that apply); an unknown word said as such."""
        verb = answer.split(" ", 1)[0].lower()
        verbs = {t.split(" ", 1)[0] for t in self.texts}
        if verbs and verb not in verbs:
            return f"'{verb}' is not a command here (now: {', '.join(sorted(verbs))})"
        return _SYNTAX_TAIL.sub("", message)

    def refuse(self, reason: str, answer: str, closest: bool = True) -> None:
        """One line: why, and the legal commands closest to what was typed."""
        near: list[str] = []
        if closest and self.texts:
            low = [t.lower() for t in self.texts]
            picks = difflib.get_close_matches(answer.lower(), low, n=3, cutoff=0.4)
            if not picks:
                verb = answer.split(" ", 1)[0].lower()
                picks = [t for t in low if t.split(" ", 1)[0] == verb][:3] or low[:3]
            near = [self.texts[low.index(p)] for p in picks]
        tail = f"; closest: {' · '.join(near)}" if near else ""
        say_markup(f"[red]refused:[/] {escape(reason)}{escape(tail)} (? for help)")

    def help(self, who: str, chance: bool, extra: Sequence[tuple[str, str]]) -> None:
        """The command forms of this moment, an example each, then the prompt's own words."""
        game = self.game
        forms = FORMS.get(game.spec.name, {})
        examples: dict[str, str] = {}
        for t in self.texts:
            examples.setdefault(t.split(" ", 1)[0], t)
        if chance:  # a table game's chance: every chance form (the lay-outs are not listed)
            verbs = [v for v, (_, what) in forms.items() if what.startswith("chance:")]
        else:
            verbs = list(examples)
        say(f"{game.spec.title}: what {who} may do now")
        width = max((len(forms.get(v, (v, ""))[0]) for v in verbs), default=0)
        for v in verbs:
            form, what = forms.get(v, (v, ""))
            eg = f" — e.g. '{examples[v]}'" if v in examples else ""
            say(f"  {form:<{width}}  {what}{eg}")
        lines: list[tuple[str, str]] = []
        if self.texts:
            lines += [
                ("NUMBER", "play the listed command with that number"),
                ("a prefix", f"list the legal commands starting with it (e.g. '{self.prefix_example()}')"),
            ]
            if len(self.texts) > PAGE:
                lines.append(("more", "the next page of legal commands"))
        lines += extra
        say("At the prompt:")
        for form, what in lines:
            say(f"  {form:<9}  {what}")


class Session:
    """One prompt on one game (which an ``undo`` may change to a fork of it)."""

    def __init__(self, svc: GameService, game_id: str, as_: str | None,
                 read: Callable[[str], str | None]) -> None:
        self.svc = svc
        self.game_id = game_id
        self.as_ = as_
        self.read = read
        self.menu: Menu | None = None
        self.shown: tuple[str, int, int] | None = None

    # -- the loop ------------------------------------------------------------------
    def run(self) -> None:
        while True:
            loaded = self.svc.load(self.game_id)
            game, state = loaded.game, loaded.state
            actors = game.to_act(state)
            if not actors:
                self._final(loaded)
                return
            seat = self._pick_seat(loaded, actors)
            if seat is None:
                waiting = ", ".join("chance" if a == CHANCE else loaded.players[a] for a in actors)
                say(f"waiting for {waiting}; come back later")
                return
            if self.menu is None or self.shown != (self.game_id, loaded.version, seat):
                self.shown = (self.game_id, loaded.version, seat)
                self.menu = Menu(game, [] if seat == CHANCE else list(game.legal(state, seat)))
                self._board(loaded, seat)
                self.menu.page()
            who = "chance (enter the draw)" if seat == CHANCE else loaded.players[seat]
            answer = self.read(f"{who}> ")
            if answer is None:
                return
            if not self._answer(loaded, seat, self.menu, " ".join(answer.split())):
                return

    def _answer(self, loaded: Loaded, seat: int, menu: Menu, answer: str) -> bool:
        """Act on one answer; False: leave the prompt."""
        word, _, rest = answer.partition(" ")
        word = word.lower()
        if not answer:
            return True
        if word in ("q", "quit", "exit") and not rest:
            who = f" --as {self.as_}" if self.as_ else ""
            say(f"saved; continue with: citylog play {self.game_id}{who}")
            return False
        if answer in ("?", "help"):
            who = "chance" if seat == CHANCE else loaded.players[seat]
            extra = [
                ("board", "the table again"),
                ("log [N]", f"the last N events (default {LOG_LINES})"),
                ("score", "the score if the game ended now, line by line"),
            ]
            if self._can_undo(loaded) is None:
                extra.append(("undo", "take back your last decision: play on in a fork of the game "
                              "(the original stays as it was)"))
            extra.append(("quit", "leave; the game is saved"))
            menu.help(who, seat == CHANCE, extra)
        elif answer == "board":
            self._board(loaded, seat)
            menu.page(again=True)
        elif answer == "more":
            menu.page()
        elif word == "log" and (not rest or rest.isdigit()):
            self._log(loaded, seat, int(rest) if rest else LOG_LINES)
        elif answer == "score":
            self._score(loaded, seat)
        elif answer == "undo":
            self._undo(loaded, menu)
        else:
            self._command(loaded, seat, menu, answer)
        return True

    # -- showing -------------------------------------------------------------------
    def _board(self, loaded: Loaded, seat: int) -> None:
        game, state = loaded.game, loaded.state
        shown = state if seat == CHANCE else game.view(state, seat)
        say_markup(game.render(shown, None if seat == CHANCE else seat))

    def _log(self, loaded: Loaded, seat: int, n: int) -> None:
        game = loaded.game
        pairs = list(zip(loaded.records, loaded.events, strict=True))[-n:] if n > 0 else []
        for r, e in pairs:
            shown = e if seat == CHANCE else game.redact(e, seat)
            say(f"{r.seq:>5}  {game.describe(shown, loaded.players)}")

    def _score(self, loaded: Loaded, seat: int) -> None:
        game, state = loaded.game, loaded.state
        shown = state if seat == CHANCE else game.view(state, seat)
        breakdowns = game.score_now(shown)
        if not breakdowns:
            say(f"{game.spec.title} has no running score")
            return
        say("if the game ended now:")
        for line in breakdown_lines(loaded.players, breakdowns) + opponent_lines(game, shown):
            say_markup(line)

    def _final(self, loaded: Loaded) -> None:
        game, state = loaded.game, loaded.state
        viewer = loaded.seat(self.as_) if self.as_ is not None else None
        say_markup(game.render(state if viewer is None else game.view(state, viewer), viewer))
        result = game.result(state)
        if result is not None:
            say("game over")
            for line in result_lines(game, loaded.players, state, result):
                say_markup(line)

    # -- acting --------------------------------------------------------------------
    def _command(self, loaded: Loaded, seat: int, menu: Menu, answer: str) -> None:
        chosen = menu.choose(answer, lambda text: parse_command(loaded, seat, text))
        if chosen is None:
            return
        try:
            written = self.svc.submit(self.game_id, seat, chosen, expected_version=loaded.version)
        except (ServiceError, RulesError) as exc:
            menu.refuse(str(exc), answer)
            return
        report(self.svc, self.game_id, written, False, seat)

    # -- undo ----------------------------------------------------------------------
    def _mine(self, loaded: Loaded) -> set[int]:
        """The seats this prompt plays: the --as seat, or every seat without a bot."""
        if self.as_ is not None:
            return {loaded.seat(self.as_)}
        return {i for i in range(len(loaded.players)) if i not in loaded.record.bots}

    def _can_undo(self, loaded: Loaded) -> str | None:
        """Why ``undo`` is not offered here, or None."""
        record = loaded.record
        if record.table_game:
            return "a --table game's draws were dealt at the table: fork it ('citylog fork') instead"
        if record.pbem:
            return "a play-by-email game cannot be taken back"
        mine = self._mine(loaded)
        others = [loaded.players[i] for i in range(len(loaded.players)) if i not in mine and i not in record.bots]
        if others:
            return (f"undo is for games against bots; {', '.join(others)} also play"
                    f"{'s' if len(others) == 1 else ''} here: fork the game instead ('citylog fork')")
        return None

    def _undo(self, loaded: Loaded, menu: Menu) -> None:
        why_not = self._can_undo(loaded)
        if why_not is not None:
            menu.refuse(why_not, "undo", closest=False)
            return
        game = loaded.game
        mine = self._mine(loaded)
        last = None
        for decision in decisions(game, loaded.events):
            if decision.seat in mine:
                last = decision
        if last is None:
            menu.refuse("nothing to undo: no decision of yours yet", "undo", closest=False)
            return
        what = game.format_command(last.command)
        seq = last.start + 1
        parent = self.game_id
        child = self.svc.fork(parent, seq - 1, supersede=True)  # the branch left is tagged superseded [GL-3]
        self.game_id = child
        say(f"undone: {loaded.players[last.seat]}'s '{what}' (seq {seq}). Now playing game {child}, a fork of "
            f"{parent} at seq {seq - 1}; {parent} is unchanged, tagged superseded and left out of 'citylog list' "
            f"('citylog tree {parent}' shows both)")

    def _pick_seat(self, loaded: Loaded, actors: tuple[int, ...]) -> int | None:
        if actors == (CHANCE,):
            return CHANCE if loaded.record.table_game else None
        if self.as_ is None:
            return actors[0]
        seat = loaded.seat(self.as_)
        return seat if seat in actors else None


def read_line(text: str) -> str | None:
    """The prompt on stdout, a line from stdin (None at its end)."""
    sys.stdout.write(text)
    sys.stdout.flush()
    line = sys.stdin.readline()
    return None if line == "" else line

