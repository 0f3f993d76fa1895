"""The text record: a game as people read it, and back (PGN's shape).

A record is tag lines, then the decisions in the games' own command notation,
chance outcomes where they occur, and ``{comments}`` (the game's notes)::

    [Format "citylog-record/1"]
    [Game "card-city"]
    [Players "alice bob"]
    …
    [Result "alice 31, bob 28; won: alice"]

    R1 #2 (chance) draw R I L P
    R1 #3 alice: split RC PL IC
    {a careful split}
    R1 #5 bob: take pair

``R1`` is the round, ``#3`` the seq of the decision's first event; the events a
decision produces automatically (income, development, scores) are not written:
they are re-decided on import.  A comment follows the decision it is about; one
on an automatic event inside a decision says so with ``{@SEQ …}``.  Tag values
are JSON strings; comments escape ``\\``, ``}`` and newlines with a backslash.

``citylog analyse``'s judgements follow the line they judge as annotations, in
PGN's ``[%eval …]`` shape: ``{[%an alice|decision|6|60|card-city/2|an-1 {…}]}``,
the stored key then the judgement's JSON, exact (:mod:`replay.analyses`).  A note
that starts with ``[`` is escaped (``{\\[…}``), so it never reads as one; reading
checks each against the re-decided game and refuses one that does not fit [CL-X1].

Reading re-decides the record from its first line and checks the result and the
head hash against the tags: :func:`read` returns an ordinary
:class:`~replay.logfile.LogFile` (plus the notes), which import verifies again
like any file.  A record is the referee's: it carries the seed, which both
re-derives the chance and salts the chain, so an imported record's hashes are
the original's.

Readers take text and never open files (python-chess convention).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from core import registry
from core.chance import SCHEMES, SEED_ALONE, Reseeded, nonce_secret
from core.engine import CHANCE, Game, RulesError, checked_decide, decisions
from core.redecide import redecide
from core.upgrade import Upgraded
from events.codec import to_item
from events.envelope import GameDefinition, chain
from events.store import Note
from replay import analyses
from replay.logfile import FORMAT as LOG_FORMAT
from replay.logfile import Header, LogFile, LogFileError, from_records

FORMAT = "citylog-record/1"
CHANCE_NAME = "(chance)"
"""How the chance pseudo-seat is written; no player name has parentheses."""
RESEED_NAME = "(reseed)"
"""How a fork's reseed line is written: ``R3 #41 (reseed) COMMITMENT``."""
UPGRADE_NAME = "(upgrade)"
"""How a rules upgrade line is written: ``R9 #240 (upgrade) pc-2 pc-3`` [CL-U1]."""

_TAG = re.compile(r'^\[([A-Za-z]+) (".*")\]$')
_MOVE = re.compile(r"^R(\d+) #(\d+) (\(chance\)|\(reseed\)|\(upgrade\)|[^\s()]+:) (.+)$")
_COMMITMENT = re.compile(r"[0-9a-f]{64}")


class RecordError(LogFileError):
    """A malformed record, or one whose moves or result do not hold; names the line."""


# -- writing ---------------------------------------------------------------
def _tag(name: str, value: str) -> str:
    quoted = json.dumps(value, ensure_ascii=False)
    for ch in "\x85\u2028\u2029":  # line breaks to str.splitlines, not to JSON
        quoted = quoted.replace(ch, f"\\u{ord(ch):04x}")
    return f"[{name} {quoted}]"


def escape_comment(text: str) -> str:
    """One line: backslash, ``}``, a leading ``@`` or ``[`` and every unprintable character
    (newlines included) escaped; :func:`unescape_comment` is its inverse."""
    out: list[str] = []
    for ch in text:
        if ch in "\\}":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == " " or ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    escaped = "".join(out)
    # a leading "@" would name a seq, a leading "[" an annotation ({[%an …]})
    return "\\" + escaped if escaped.startswith(("@", "[")) else escaped


def unescape_comment(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 == len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        width = {"u": 4, "U": 8}.get(nxt)
        if width is not None:
            try:
                out.append(chr(int(text[i + 2 : i + 2 + width], 16)))
            except ValueError:
                raise RecordError(f"bad escape {text[i:i + 2 + width]!r} in a comment") from None
            i += 2 + width
            continue
        out.append("\n" if nxt == "n" else nxt)
        i += 2
    return "".join(out)


def result_text(game: Any, state: Any, players: Sequence[str]) -> str:
    """``alice 31, bob 28; won: alice`` or ``*`` for a game still going."""
    result = game.result(state)
    if result is None:
        return "*"
    scores = ", ".join(f"{players[i]} {s}" for i, s in enumerate(result.scores))
    won = " ".join(players[i] for i in result.winners) or "nobody"
    return f"{scores}; won: {won}"


def write(log: LogFile, notes: Sequence[Note] = ()) -> str:
    """The record of a referee's log (``log.header.view`` is None)."""
    h = log.header
    if h.view is not None:
        raise RecordError(
            f"a text record is re-decided on import, so it needs the whole game; "
            f"{h.view}'s view hides chance — export it as jsonl"
        )
    d = h.definition
    game = registry.get(d.game)
    from events.codec import decoder_for

    decoder = decoder_for(game.event_type)
    events = [decoder.decode(bytes(x.payload)) for x in log.lines]
    players = d.players
    tags = [
        _tag("Format", FORMAT),
        _tag("Game", d.game),
        _tag("Rules", d.rules_version),
        _tag("Players", " ".join(players)),
        _tag("Options", " ".join(f"{k}={v}" for k, v in sorted(d.options.items()))),
        _tag("Table", "yes" if d.table else "no"),
        _tag("SeedCommitment", d.seed_commitment),
    ]
    if d.host_key:
        tags.append(_tag("HostKey", d.host_key))
    if d.secrets != SEED_ALONE:
        tags.append(_tag("Secrets", str(d.secrets)))  # chained in the definition [CL-V6]
    if h.seed is not None:
        tags.append(_tag("Seed", h.seed))
    if h.salt is not None:
        tags.append(_tag("Salt", h.salt))  # the commitment's salt (issue 10)
    if not h.salted:
        tags.append(_tag("Salted", "no"))
    for seq, seed in h.reseeds:
        tags.append(_tag("Reseed", f"{seq} {seed}"))
    if h.bots:
        tags.append(_tag("Bots", " ".join(f"{players[s]}={p}" for s, p in sorted(h.bots.items()))))
    if h.parent is not None:
        tags.append(_tag("Parent", h.parent))
    if h.fork_at is not None:
        tags.append(_tag("ForkAt", str(h.fork_at)))
    state = game.apply(None, events[0]) if events else None
    body: list[str] = []
    by_seq: dict[int, list[str]] = {}
    for n in notes:
        by_seq.setdefault(n.seq, []).append(n.text)

    judged: dict[int, list[tuple[str, bytes]]] = {}
    for key, data in analyses.from_log(log).items():
        judged.setdefault(analyses.parse_key(key).first, []).append((key, data))

    def comments(first: int, last: int) -> None:
        for key, data in judged.get(first, ()):  # the judgements of the line, as PGN's [%eval] [CL-X1]
            # escaped as a comment is, but for its leading "[", which makes it an annotation
            body.append("{" + escape_comment(analyses.annotation(key, data)).removeprefix("\\") + "}")
        for seq in range(first, last + 1):
            for text in by_seq.get(seq, ()):
                at = "" if seq == first else f"@{seq} "
                body.append("{" + at + escape_comment(text) + "}")

    comments(1, 1)
    rnd = game.round_of(state) if state is not None else 0

    def reseeds(i: int, end: int) -> None:
        """Write ``events[i:end]``, the events between two decisions: only a
        fork's reseed lines and rules upgrades may stand there [CL-V7, CL-U1]."""
        nonlocal state
        for k in range(i, end):
            e = events[k]
            if type(e) is Upgraded:
                body.append(f"R{game.round_of(state)} #{k + 1} {UPGRADE_NAME} {e.from_version} {e.to_version}")
            elif type(e) is not Reseeded:
                raise RecordError(f"seq {k + 1}: {type(e).__name__} opens no decision")
            else:
                body.append(f"R{game.round_of(state)} #{k + 1} {RESEED_NAME} {e.commitment}")
            state = game.apply(state, events[k])
            comments(k + 1, k + 1)

    i = 1
    # the decisions are found from the log alone (never re-decided), so a game
    # under older rules still writes
    for dec in decisions(game, events):
        reseeds(i, dec.start)
        who = CHANCE_NAME if dec.seat == CHANCE else f"{players[dec.seat]}:"
        if body and game.round_of(state) != rnd:
            body.append("")
        rnd = game.round_of(state)
        body.append(f"R{game.round_of(state)} #{dec.start + 1} {who} {game.format_command(dec.command)}")
        for e in events[dec.start : dec.end]:
            state = game.apply(state, e)
        comments(dec.start + 1, dec.end)
        i = dec.end
    reseeds(i, len(events))
    tags.append(_tag("Events", str(len(events))))
    tags.append(_tag("Head", log.lines[-1].hash if log.lines else ""))
    tags.append(_tag("Result", result_text(game, state, players) if state is not None else "*"))
    return "\n".join(tags) + "\n\n" + "\n".join(body) + ("\n" if body else "")


# -- reading ---------------------------------------------------------------
def _comment_body(line: str) -> str | None:
    """The escaped text of ``{…}``, or None if the line is not exactly one comment."""
    i = 1
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "}":
            return line[1:i] if i == len(line) - 1 else None
        i += 1
    return None


def is_record(text: str) -> bool:
    return text.lstrip().startswith("[Format ")


class _Tags:
    """A record's tag lines, by name (each a list: a tag may be repeated)."""

    def __init__(self, values: dict[str, list[str]], source: str) -> None:
        self.values = values
        self.source = source

    def one(self, name: str, default: str | None = None) -> str:
        """The tag's one value; ``default`` if it is absent (None: it must be there)."""
        values = self.values.get(name)
        if not values:
            if default is not None:
                return default
            raise RecordError(f"{self.source}: the record has no [{name} …] tag")
        if len(values) > 1:
            raise RecordError(f"{self.source}: the tag {name} appears twice")
        return values[0]

    def yes_no(self, name: str, default: str) -> bool:
        value = self.one(name, default)
        if value not in ("yes", "no"):
            raise RecordError(f"{self.source}: {name} is 'yes' or 'no', not {value!r}")
        return value == "yes"


def _check_lengths(lines: Sequence[str], source: str) -> None:
    from replay.logfile import MAX_LINE_CHARS

    for number, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE_CHARS:
            raise RecordError(f"{source}:{number}: line longer than the limit ({MAX_LINE_CHARS} characters)")


def _read_tags(lines: Sequence[str], source: str) -> tuple[_Tags, int]:
    """The tag lines at the top, and the number of the first line after them."""
    tags: dict[str, list[str]] = {}
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            if tags:
                return _Tags(tags, source), number
            continue
        m = _TAG.match(line)
        if m is None and line.startswith("["):
            raise RecordError(f"{source}:{number}: malformed tag line; a tag is [Name \"value\"]")
        if m is None:
            if not tags:
                raise RecordError(f"{source}:{number}: not a citylog record (it starts with tag lines)")
            return _Tags(tags, source), number
        try:
            value = json.loads(m.group(2))
        except json.JSONDecodeError:
            raise RecordError(f"{source}:{number}: the tag's value is not a quoted string") from None
        if not isinstance(value, str):
            raise RecordError(f"{source}:{number}: the tag's value is not a quoted string")
        tags.setdefault(m.group(1), []).append(value)
    return _Tags(tags, source), len(lines) + 1


def _game(tags: _Tags) -> Game[Any, Any, Any]:
    """The game the tags name, under the rules it was recorded by (this citylog's,
    or older ones it keeps: ``Game.for_rules``)."""
    source = tags.source
    if tags.one("Format", "") != FORMAT:
        raise RecordError(f"{source}:1: not a {FORMAT} record (its first tag must be [Format \"{FORMAT}\"])")
    try:
        game = registry.get(tags.one("Game"))
    except registry.UnknownGame as exc:
        raise RecordError(f"{source}: {exc}") from None
    kept = game.for_rules(tags.one("Rules"))
    if kept is None:
        raise RecordError(
            f"{source}: recorded under rules {tags.one('Rules')}; this citylog plays {game.spec.rules_version}, "
            "and a record is re-decided move by move, so only a citylog with those rules can import it"
        )
    return kept


def _definition(tags: _Tags) -> tuple[GameDefinition, dict[str, str]]:
    """The game's definition from its tags, and the options as given."""
    from events.limits import FieldTooLong, check_names

    source = tags.source
    players = tuple(tags.one("Players").split())
    try:
        check_names("a player's name", players)
    except FieldTooLong as exc:
        raise RecordError(f"{source}: {exc}") from None
    options: dict[str, str] = {}
    for item in tags.one("Options", "").split():
        key, eq, value = item.partition("=")
        if not eq or key in options:
            raise RecordError(f"{source}: option {item!r} is not KEY=VALUE or is given twice")
        options[key] = value
    table = tags.yes_no("Table", "no")
    salted = tags.yes_no("Salted", "yes")
    scheme = tags.one("Secrets", "")
    if scheme not in ("", *(str(x) for x in SCHEMES if x != SEED_ALONE)):
        # scheme 1 is written by leaving the tag out: one spelling per record
        raise RecordError(f"{source}: Secrets is {', '.join(str(x) for x in SCHEMES[1:])} or absent, not {scheme!r}")
    secrets = int(scheme) if scheme else SEED_ALONE
    if secrets != SEED_ALONE and not salted:
        raise RecordError(f"{source}: a game of secret scheme {scheme} always salts its lines (no Salted tag)")
    definition = GameDefinition(
        game=tags.one("Game"),
        rules_version=tags.one("Rules"),
        options=dict(sorted(options.items())),
        players=players,
        seed_commitment=tags.one("SeedCommitment"),
        table=table,
        host_key=tags.one("HostKey", ""),
        secrets=secrets,
    )
    return definition, options


def _lineage(tags: _Tags, game: Game[Any, Any, Any], players: Sequence[str]
             ) -> tuple[list[tuple[int, str]], dict[int, str], str]:
    """The Reseed, Bots and ForkAt tags."""
    source = tags.source
    reseeds: list[tuple[int, str]] = []
    for value in tags.values.get("Reseed", []):
        at, _, new = value.partition(" ")
        if not at.isdigit() or not new:
            raise RecordError(f"{source}: Reseed is 'SEQ SEED', not {value!r}")
        reseeds.append((int(at), new))
    bots: dict[int, str] = {}
    for item in tags.one("Bots", "").split():
        who, _, policy = item.partition("=")
        if who not in players or policy not in game.bots:
            raise RecordError(
                f"{source}: bot {item!r} is not PLAYER=POLICY (a player of the game; policies: "
                f"{', '.join(sorted(game.bots))})"
            )
        bots[list(players).index(who)] = policy
    fork_at = tags.one("ForkAt", "")
    if fork_at and not fork_at.isdigit():
        raise RecordError(f"{source}: ForkAt is a seq, not {fork_at!r}")
    return reseeds, bots, fork_at


class _Replay:
    """The body of a record re-decided line by line: the events and the notes."""

    def __init__(self, game: Game[Any, Any, Any], players: Sequence[str], created: Any, source: str) -> None:
        self.game, self.players, self.source = game, tuple(players), source
        self.state = game.apply(None, created)
        self.events: list[Any] = [created]
        self.notes: list[Note] = []
        self.analyses: dict[str, bytes] = {}
        """The ``{[%an …]}`` annotations: key -> judgement, checked once the game is read [CL-X1]."""
        self.last_first = 1
        """The first seq of the last decision read: where a comment belongs."""
        self.lines_of: dict[str, int] = {}

    def line(self, number: int, line: str) -> None:
        """One non-blank body line: a comment, a reseed or a decision."""
        if line.startswith("{"):
            self.comment(number, line)
            return
        m = _MOVE.match(line)
        if m is None:
            raise RecordError(
                f"{self.source}:{number}: expected 'R<round> #<seq> <player>: <command>', a {{comment}} or a blank line")
        rnd, seq, who, text = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        if who == RESEED_NAME:
            self.reseed(number, rnd, seq, text)
        elif who == UPGRADE_NAME:
            self.upgrade(number, rnd, seq, text)
        else:
            self.decision(number, rnd, seq, who, text)

    def comment(self, number: int, line: str) -> None:
        from events.limits import MAX_NOTE

        source = self.source
        inner = _comment_body(line)
        if inner is None:
            raise RecordError(f"{source}:{number}: a comment is one line, '{{…}}', with '}}' escaped as '\\}}' inside")
        seq = self.last_first
        if inner.startswith(analyses.ANNOTATION):
            self.annotation(number, unescape_comment(inner))
            return
        m = re.match(r"^@(\d+) ", inner)
        if m:
            seq = int(m.group(1))
            inner = inner[m.end() :]
            if not self.last_first <= seq <= len(self.events):
                raise RecordError(
                    f"{source}:{number}: comment @{seq} is not on the decision before it "
                    f"(seqs {self.last_first}..{len(self.events)})"
                )
        note = unescape_comment(inner)
        if not note.replace("\n", "").replace("\t", "").isprintable():
            raise RecordError(f"{source}:{number}: a comment holds a control character")
        if len(note) > MAX_NOTE:
            raise RecordError(f"{source}:{number}: a comment is at most {MAX_NOTE} characters, not {len(note)}")
        self.notes.append(Note(seq, note))

    def annotation(self, number: int, inner: str) -> None:
        """A judgement of the line before it: a decision's, or a chance run's first [CL-X1]."""
        try:
            key, data = analyses.parse_annotation(inner)
        except analyses.AnalysisError as exc:
            raise RecordError(f"{self.source}:{number}: {exc}") from None
        first = analyses.parse_key(key).first
        if first != self.last_first or key in self.analyses:
            raise RecordError(f"{self.source}:{number}: the annotation {key} does not follow its line "
                              f"(#{first}), or is given twice [CL-X1]")
        self.analyses[key] = data
        self.lines_of[key] = number

    def reseed(self, number: int, rnd: int, seq: int, text: str) -> None:
        game, events = self.game, self.events
        if seq != len(events) + 1 or rnd != game.round_of(self.state) or not _COMMITMENT.fullmatch(text):
            raise RecordError(f"{self.source}:{number}: a reseed is 'R<round> #<seq> (reseed) <64 hex digits>' "
                              f"at seq {len(events) + 1}, round {game.round_of(self.state)}")
        reseed = Reseeded(commitment=text)
        self.state = game.apply(self.state, reseed)
        self.last_first = len(events) + 1
        events.append(reseed)

    def upgrade(self, number: int, rnd: int, seq: int, text: str) -> None:
        """A rules upgrade: from the rules in effect to others this citylog keeps, which
        re-decide every move before it alike; later moves are decided by them [CL-U1]."""
        from events.codec import encode

        game, events = self.game, self.events
        parts = text.split()
        if seq != len(events) + 1 or rnd != game.round_of(self.state) or len(parts) != 2:
            raise RecordError(f"{self.source}:{number}: an upgrade is 'R<round> #<seq> (upgrade) FROM TO' "
                              f"at seq {len(events) + 1}, round {game.round_of(self.state)}")
        old, to = parts
        new = game.for_rules(to)
        if old != game.spec.rules_version or to == old or new is None:
            raise RecordError(f"{self.source}:{number}: an upgrade from the rules in effect "
                              f"({game.spec.rules_version}) to other rules this citylog keeps, not {old} to {to}")
        found = redecide(new, events, encode, self.players)
        if found is not None:
            raise RecordError(f"{self.source}:{number}: the upgrade to {to} changes a recorded move: "
                              f"{found.text(self.players, to)}")
        up = Upgraded(from_version=old, to_version=to)
        self.state = new.apply(self.state, up)
        self.last_first = len(events) + 1
        events.append(up)
        self.game = new

    def decision(self, number: int, rnd: int, seq: int, who: str, text: str) -> None:
        game, events, source = self.game, self.events, self.source
        if who == CHANCE_NAME:
            seat = CHANCE
        else:
            player = who.rstrip(":")
            if not who.endswith(":") or player not in self.players:
                raise RecordError(f"{source}:{number}: {who!r} is not a player of this game ({' '.join(self.players)})")
            seat = self.players.index(player)
        if seq != len(events) + 1:
            raise RecordError(f"{source}:{number}: this decision is at seq {len(events) + 1}, not #{seq}")
        if rnd != game.round_of(self.state):
            raise RecordError(f"{source}:{number}: this decision is in round {game.round_of(self.state)}, not R{rnd}")
        try:
            command = game.parse_command(self.state, seat, text)
            produced = checked_decide(game, self.state, seat, command)
        except RulesError as exc:
            raise RecordError(f"{source}:{number}: {exc}") from None
        for e in produced:
            self.state = game.apply(self.state, e)
        self.last_first = len(events) + 1
        events.extend(produced)


def _checked_against_tags(tags: _Tags, played: _Replay) -> None:
    """The Result and Events tags against what the moves gave."""
    expected = tags.one("Result")
    got = result_text(played.game, played.state, played.players)
    if got != expected:
        raise RecordError(f"{tags.source}: the moves give the result {got!r}, the Result tag says {expected!r}")
    count = tags.one("Events", "")
    if count and count != str(len(played.events)):
        raise RecordError(f"{tags.source}: the moves give {len(played.events)} events, the Events tag says {count}")


def _checked_annotations(tags: _Tags, played: _Replay) -> Any:
    """The annotations, checked against the re-decided game [CL-X1]: the header's
    ``analyses`` (unset when there are none)."""
    import msgspec

    if not played.analyses:
        return msgspec.UNSET
    states, state = [], None
    for e in played.events:
        state = played.game.apply(state, e)
        states.append(state)
    for key, data in played.analyses.items():
        try:
            analyses.check(played.game, played.events, states, played.players, tags.one("Rules"), {key: data})
        except analyses.AnalysisError as exc:
            raise RecordError(f"{tags.source}:{played.lines_of[key]}: {exc} [CL-X1]") from None
    return {k: msgspec.Raw(v) for k, v in sorted(played.analyses.items())}


def read(text: str, source: str = "record") -> tuple[LogFile, list[Note]]:
    """Re-decide a record into a log (and its notes); ``RecordError`` names the line."""
    lines = text.splitlines()
    _check_lengths(lines, source)
    tags, body = _read_tags(lines, source)
    game = _game(tags)
    definition, options = _definition(tags)
    seed = tags.values.get("Seed", [None])[0]
    try:
        created = game.create(definition.players, options, table=definition.table)
    except RulesError as exc:
        raise RecordError(f"{source}: the game's tags are not a valid game: {exc}") from None
    reseeds, bots, fork_at = _lineage(tags, game, definition.players)
    played = _Replay(game, definition.players, created, source)
    for number, raw in enumerate(lines[body - 1 :], start=body):
        if raw.strip():
            played.line(number, raw.strip())
    _checked_against_tags(tags, played)
    judged = _checked_annotations(tags, played)
    header = Header(
        format=LOG_FORMAT,
        definition=definition,
        seed=seed,
        reseeds=tuple(reseeds),
        bots=bots,
        parent=tags.one("Parent", "") or None,
        fork_at=int(fork_at) if fork_at else None,
        status="active" if game.to_act(played.state) else "over",
        salted=tags.yes_no("Salted", "yes"),
        salt=tags.one("Salt", "") or None,
        analyses=judged,
    )
    try:
        secret = nonce_secret(seed, header.salt, definition.secrets, header.salted)
    except ValueError:
        raise RecordError(f"{source}: the Seed and Salt tags cannot derive the line nonces (a salt is 32 hex digits)") from None
    records = chain(definition, "", [to_item(e) for e in played.events], secret=secret)
    head = tags.one("Head", "")
    if head and records[-1].hash != head:
        raise RecordError(
            f"{source}: the re-decided game's last hash differs from the Head tag "
            "(a move, the seed or a tag was changed)"
        )
    return from_records(header, records), played.notes


__all__ = ["FORMAT", "RecordError", "is_record", "read", "write"]
