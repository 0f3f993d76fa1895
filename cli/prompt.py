"""The ``play`` prompt: a game client at a terminal (issue 14).

At each decision the table is shown once, then a page of numbered legal
commands.  Besides a number or a command the prompt takes ``?``/``help`` (the
command forms that apply here, an example each), ``board``, ``log [N]``,
``score`` (if the game ended now, line by line), ``more`` (the next page),
``undo`` (against bots: a fork at your previous decision, the original log
unchanged) and ``quit``.  A prefix (``take``, ``place O``) lists the legal
commands starting with it; a refusal is one line with the closest legal
commands, the table is not printed again.

What is listed comes from :mod:`cli.choices` (the same as the TUI's play panel):
a command chosen in two steps (a take, then its payment) is listed
once and asks for the second step, Enter taking the default (issue 26).  The
forms ``help`` shows are each game's (:attr:`core.engine.Game.syntax`, its
``forms.py``): no game is named here.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from cli.choices import Choice, choices
from cli.output import say, say_markup
from cli.report import report
from cli.results import breakdown_lines, opponent_lines, result_lines
from core.engine import CHANCE, Game, RulesError, decisions
from core.markup import escape
from core.scene_text import legend_line
from events.service import GameService, Loaded, ServiceError, parse_command

PAGE = 20
"""Commands listed at once; ``more`` shows the next page, a prefix filters."""

LOG_LINES = 10

_SYNTAX_TAIL = re.compile(r"(; commands: .*| \((try: |choose, place).*\))$")


def table(game: Game[Any, Any, Any], shown: Any, seat: int | None) -> None:
    """The table as ``show`` prints it: the board, then its legend (issue 26)."""
    say_markup(game.render(shown, seat))
    try:
        say(legend_line(game.scene(shown, seat)))
    except NotImplementedError:  # a game without a scene has no legend to give
        pass


class Menu:
    """A decision's choices, numbered once: pages, prefix lists, the closest choices
    to a refused answer, the forms that apply (``help``), and a choice's second step
    (:attr:`step`: a take's payment, the default on Enter)."""

    def __init__(self, game: Game[Any, Any, Any], offered: Sequence[Choice], of: Choice | None = None) -> None:
        self.game = game
        self.choices = list(offered)
        self.of = of
        """The choice this menu is the second step of (None: the first step)."""
        self.texts = [c.text for c in self.choices]
        self.next_page = 0
        self.step: Menu | None = None
        """The second step being answered, if a two-step choice was picked."""

    @classmethod
    def of_state(cls, game: Game[Any, Any, Any], state: Any, seat: int) -> Menu:
        """The menu of ``seat``'s legal commands in ``state`` (a view), grouped by first step."""
        return cls(game, choices(game, state, seat))

    @property
    def active(self) -> Menu:
        """The menu answering now: the second step, while one is open."""
        return self.step if self.step is not None else self

    def numbered(self, indices: Sequence[int] | range) -> None:
        step = self.game.syntax.second_step or "variant"
        for i in indices:
            c = self.choices[i]
            more = f"  ({len(c.commands)} {step}s)" if c.two_step and self.of is None else ""
            say(f"  {i + 1:>3}. {self.texts[i]}{more}")

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
        if self.of is not None:
            hint = f"Enter for 1, a number or a {self.game.syntax.second_step or 'variant'}; 'back' to choose again"
        if n > PAGE:
            verbs = Counter(t.split(" ", 1)[0] for t in self.texts)
            kinds = ", ".join(f"{v} {c}" for v, c in verbs.items())
            more = "'more' for the next page" if end < n else "'more' to start again"
            say(f"  (commands {start + 1}–{end} of {n}: {kinds}; {more}, or type the start of a command "
                f"to list the matching ones, e.g. '{self.prefix_example()}'; {hint})")
        elif self.of is not None:
            say(f"  ({hint})")
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

    def pick(self, answer: str) -> Choice | None:
        """The choice a number or an exact text names (None: neither);
        ``ServiceError`` for a number out of range."""
        if answer.isdigit() and self.choices:
            if not 1 <= int(answer) <= len(self.choices):
                raise ServiceError(f"choose a number from 1 to {len(self.choices)}")
            return self.choices[int(answer) - 1]
        low = answer.lower()
        for choice in self.choices:
            if choice.text.lower() == low:
                return choice
            for text, command in zip(choice.texts, choice.commands, strict=True):
                if text.lower() == low:  # one variant, in full: that one
                    return Choice(text, (command,), (text,))
        return None

    def open_step(self, choice: Choice) -> None:
        """Ask for the second step of ``choice``: its variants, the default first."""
        step = self.game.syntax.second_step or "variant"
        self.step = Menu(self.game, [Choice(choice.tail(i), (c,), (choice.texts[i],))
                                     for i, c in enumerate(choice.commands)], of=choice)
        default = f"Enter takes {self.game.syntax.default or 'the first'}, 1"
        say(f"{choice.text}: {len(choice.commands)} {step}s — {default}:")
        self.step.page()
        self.explain_notation(choice.texts)

    def close_step(self) -> None:
        self.step = None

    def explain_notation(self, texts: Sequence[str]) -> None:
        for word, meaning in self.game.syntax.notation:
            if any(word in t for t in texts):
                say(f"  ({meaning})")

    def choose(self, answer: str, parse: Callable[[str], Any]) -> Any | None:
        """The command an answer names — a number, a listed command, or a command
        ``parse`` reads — or None when the answer was a prefix (the matching commands
        are listed), opened a second step, or was refused (one line)."""
        if self.of is not None and answer == "":
            return self.choices[0].default  # Enter: the second step's default
        try:
            chosen = self.pick(answer)
        except ServiceError as exc:
            self.refuse(str(exc), answer, closest=False)
            return None
        if chosen is not None:
            if chosen.two_step and self.of is None:
                self.open_step(chosen)
                return None
            return chosen.default
        if self.of is not None and not answer.lower().startswith(self.of.text.lower() + " "):
            answer = f"{self.of.text} {answer}"  # a second step's answer: the variant's tail
        low = answer.lower()
        keys = [c.texts[0] for c in self.choices] if self.of is not None else self.texts
        found = [i for i, t in enumerate(keys) if t.lower().startswith(low)]
        parsed: Any = None
        try:
            parsed = parse(answer)
        except (ServiceError, RulesError) as exc:
            if not found:
                self.refuse(self.reason(answer, str(exc)), answer)
                return None
        if parsed is not None and (not found or [i for i in found if parsed in self.choices[i].commands] == found):
            return parsed  # another form of a command, or the only one it starts
        n = len(found)
        say(f"{n} legal command{'s' if n != 1 else ''} start{'s' if n == 1 else ''} with '{answer}':")
        self.numbered(found)
        self.explain_notation([t for i in found for t in self.choices[i].texts[:1]])
        return None

    def reason(self, answer: str, message: str) -> str:
        """The parser's message without its list of every form of the game (help has
        the forms that apply); an unknown word said as such."""
        verb = answer.split(" ", 1)[0].lower()
        verbs = {t.split(" ", 1)[0] for t in self.texts}
        if verbs and verb not in verbs and self.of is None:
            return f"'{verb}' is not a command here (now: {', '.join(sorted(verbs))})"
        if verb in verbs and self.of is None:
            # a legal verb with an unreadable or no longer legal rest ('take A1' once
            # A1 was flipped): say that nothing listed starts so, not "cannot read"
            return f"no legal command starts with '{answer}'"
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
        if self.of is not None:
            say(f"{self.of.text}: choose its {self.game.syntax.second_step or 'variant'} — Enter takes "
                f"{self.game.syntax.default or 'the first'} (1), a number one of the others; 'back' to choose again")
            return
        game = self.game
        forms = {f.verb: f for f in game.syntax.forms}
        examples: dict[str, str] = {}
        for t in self.texts:
            examples.setdefault(t.split(" ", 1)[0], t)
        if chance:  # a table game's chance: every chance form (the lay-outs are not listed)
            verbs = [f.verb for f in game.syntax.forms if f.chance]
        else:
            verbs = list(examples)

        def form_of(verb: str) -> tuple[str, str]:
            f = forms.get(verb)
            if f is None:
                return verb, ""
            return f.form, f"chance: {f.what}" if f.chance else f.what

        say(f"{game.spec.title}: what {who} may do now")
        width = max((len(form_of(v)[0]) for v in verbs), default=0)
        for v in verbs:
            form, what = form_of(v)
            eg = f" — e.g. '{examples[v]}'" if v in examples else ""
            say(f"  {form:<{width}}  {what}{eg}")
        lines: list[tuple[str, str]] = []
        if self.texts:
            lines += [
                ("NUMBER", "play the listed command with that number"),
                ("a prefix", f"list the legal commands starting with it (e.g. '{self.prefix_example()}')"),
            ]
            if any(c.two_step for c in self.choices):
                lines.append(("", f"a command listed with its {game.syntax.second_step or 'variant'}s asks for "
                                  f"one next: Enter takes {game.syntax.default or 'the first'}"))
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
                shown = state if seat == CHANCE else game.view(state, seat)
                self.menu = Menu(game, [] if seat == CHANCE else choices(game, shown, seat))
                self._board(loaded, seat)
                self.menu.page()
            who = "chance (enter the draw)" if seat == CHANCE else loaded.players[seat]
            step = self.menu.step
            answer = self.read(f"{who}> " if step is None else f"{who} ({game.syntax.second_step or 'variant'})> ")
            if answer is None:
                self._leave(loaded, seat, "end of input: ")
                return
            if not self._answer(loaded, seat, self.menu, " ".join(answer.split())):
                return

    def _leave(self, loaded: Loaded, seat: int, why: str = "") -> None:
        """Where the game stands, that it is saved, and how to go on."""
        who = f" --as {self.as_}" if self.as_ else ""
        acting = "chance" if seat == CHANCE else loaded.players[seat]
        say(f"{why}saved at seq {loaded.version}, {acting} to act (every move made is recorded); "
            f"continue with: citylog play {self.game_id}{who}")

    def _answer(self, loaded: Loaded, seat: int, menu: Menu, answer: str) -> bool:
        """Act on one answer; False: leave the prompt."""
        word, _, rest = answer.partition(" ")
        word = word.lower()
        if word in ("q", "quit", "exit") and not rest:
            self._leave(loaded, seat)
            return False
        if menu.step is not None:
            if answer == "back":
                menu.close_step()
                menu.page(again=True)
                return True
            if answer in ("?", "help"):
                menu.step.help("", False, ())
                return True
            if answer == "" or answer not in ("board", "more", "score", "undo") and word != "log":
                self._command(loaded, seat, menu.step, answer)
                return True
        if not answer:
            return True
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
            menu.close_step()
            self._board(loaded, seat)
            menu.page(again=True)
        elif answer == "more":
            menu.active.page()
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
        table(game, shown, None if seat == CHANCE else seat)

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
        table(game, state if viewer is None else game.view(state, viewer), viewer)
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


