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
from core.engine import CHANCE, RulesError, checked_decide
from events.codec import to_item
from events.envelope import GameDefinition, chain
from events.store import Note
from replay.logfile import FORMAT as LOG_FORMAT
from replay.logfile import Header, LogFile, LogFileError, from_records

FORMAT = "citylog-record/1"
CHANCE_NAME = "(chance)"
"""How the chance pseudo-seat is written; no player name has parentheses."""
RESEED_NAME = "(reseed)"
"""How a fork's reseed line is written: ``R3 #41 (reseed) COMMITMENT``."""

_TAG = re.compile(r'^\[([A-Za-z]+) (".*")\]$')
_MOVE = re.compile(r"^R(\d+) #(\d+) (\(chance\)|\(reseed\)|[^\s()]+:) (.+)$")
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
    """One line: backslash, ``}``, a leading ``@`` and every unprintable character
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
    return "\\" + escaped if escaped.startswith("@") else escaped


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

    def comments(first: int, last: int) -> None:
        for seq in range(first, last + 1):
            for text in by_seq.get(seq, ()):
                at = "" if seq == first else f"@{seq} "
                body.append("{" + at + escape_comment(text) + "}")

    comments(1, 1)
    rnd = game.round_of(state) if state is not None else 0
    i = 1
    while i < len(events):
        if type(events[i]) is Reseeded:  # a fork's chained commitment to its new seed [CL-V7]
            body.append(f"R{game.round_of(state)} #{i + 1} {RESEED_NAME} {events[i].commitment}")
            state = game.apply(state, events[i])
            comments(i + 1, i + 1)
            i += 1
            continue
        opened = game.command_of(events[i])
        if opened is None:
            raise RecordError(f"seq {i + 1}: {type(events[i]).__name__} opens no decision")
        seat, command = opened
        who = CHANCE_NAME if seat == CHANCE else f"{players[seat]}:"
        if body and game.round_of(state) != rnd:
            body.append("")
        rnd = game.round_of(state)
        body.append(f"R{game.round_of(state)} #{i + 1} {who} {game.format_command(command)}")
        # the decision's events run up to the next event that opens a decision; found
        # from the log alone (never re-decided), so a game under older rules still writes
        end = i + 1
        while end < len(events) and game.command_of(events[end]) is None and type(events[end]) is not Reseeded:
            end += 1
        for e in events[i:end]:
            state = game.apply(state, e)
        comments(i + 1, end)
        i = end
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


def read(text: str, source: str = "record") -> tuple[LogFile, list[Note]]:
    """Re-decide a record into a log (and its notes); ``RecordError`` names the line."""
    from events.limits import MAX_NOTE, FieldTooLong, check_names
    from replay.logfile import MAX_LINE_CHARS

    tags: dict[str, list[str]] = {}
    lines = text.splitlines()
    for number, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE_CHARS:
            raise RecordError(f"{source}:{number}: line longer than the limit ({MAX_LINE_CHARS} characters)")
    number = 0
    # tags first
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            if tags:
                break
            continue
        m = _TAG.match(line)
        if m is None and line.startswith("["):
            raise RecordError(f"{source}:{number}: malformed tag line; a tag is [Name \"value\"]")
        if m is None:
            if not tags:
                raise RecordError(f"{source}:{number}: not a citylog record (it starts with tag lines)")
            break
        try:
            value = json.loads(m.group(2))
        except json.JSONDecodeError:
            raise RecordError(f"{source}:{number}: the tag's value is not a quoted string") from None
        if not isinstance(value, str):
            raise RecordError(f"{source}:{number}: the tag's value is not a quoted string")
        tags.setdefault(m.group(1), []).append(value)
    else:
        number = len(lines) + 1

    def one(name: str, default: str | None = None) -> str:
        values = tags.get(name)
        if not values:
            if default is not None:
                return default
            raise RecordError(f"{source}: the record has no [{name} …] tag")
        if len(values) > 1:
            raise RecordError(f"{source}: the tag {name} appears twice")
        return values[0]

    if one("Format", "") != FORMAT:
        raise RecordError(f"{source}:1: not a {FORMAT} record (its first tag must be [Format \"{FORMAT}\"])")
    name = one("Game")
    try:
        game = registry.get(name)
    except registry.UnknownGame as exc:
        raise RecordError(f"{source}: {exc}") from None
    if one("Rules") != game.spec.rules_version:
        raise RecordError(
            f"{source}: recorded under rules {one('Rules')}; this citylog plays {game.spec.rules_version}, "
            "and a record is re-decided move by move, so only a citylog with those rules can import it"
        )
    players = tuple(one("Players").split())
    try:
        check_names("a player's name", players)
    except FieldTooLong as exc:
        raise RecordError(f"{source}: {exc}") from None
    options: dict[str, str] = {}
    for item in one("Options", "").split():
        key, eq, value = item.partition("=")
        if not eq or key in options:
            raise RecordError(f"{source}: option {item!r} is not KEY=VALUE or is given twice")
        options[key] = value
    table = one("Table", "no")
    if table not in ("yes", "no"):
        raise RecordError(f"{source}: Table is 'yes' or 'no', not {table!r}")
    salted = one("Salted", "yes")
    if salted not in ("yes", "no"):
        raise RecordError(f"{source}: Salted is 'yes' or 'no', not {salted!r}")
    scheme = one("Secrets", "")
    if scheme not in ("", *(str(x) for x in SCHEMES if x != SEED_ALONE)):
        # scheme 1 is written by leaving the tag out: one spelling per record
        raise RecordError(f"{source}: Secrets is {', '.join(str(x) for x in SCHEMES[1:])} or absent, not {scheme!r}")
    secrets = int(scheme) if scheme else SEED_ALONE
    if secrets != SEED_ALONE and salted != "yes":
        raise RecordError(f"{source}: a game of secret scheme {scheme} always salts its lines (no Salted tag)")
    seed = tags.get("Seed", [None])[0]
    definition = GameDefinition(
        game=name,
        rules_version=one("Rules"),
        options=dict(sorted(options.items())),
        players=players,
        seed_commitment=one("SeedCommitment"),
        table=table == "yes",
        host_key=one("HostKey", ""),
        secrets=secrets,
    )
    try:
        created = game.create(players, options, table=definition.table)
    except RulesError as exc:
        raise RecordError(f"{source}: the game's tags are not a valid game: {exc}") from None
    reseeds: list[tuple[int, str]] = []
    for value in tags.get("Reseed", []):
        at, _, new = value.partition(" ")
        if not at.isdigit() or not new:
            raise RecordError(f"{source}: Reseed is 'SEQ SEED', not {value!r}")
        reseeds.append((int(at), new))
    bots: dict[int, str] = {}
    for item in one("Bots", "").split():
        who, _, policy = item.partition("=")
        if who not in players or policy not in game.bots:
            raise RecordError(
                f"{source}: bot {item!r} is not PLAYER=POLICY (a player of the game; policies: "
                f"{', '.join(sorted(game.bots))})"
            )
        bots[players.index(who)] = policy
    fork_at = one("ForkAt", "")
    if fork_at and not fork_at.isdigit():
        raise RecordError(f"{source}: ForkAt is a seq, not {fork_at!r}")
    state = game.apply(None, created)
    events: list[Any] = [created]
    notes: list[Note] = []
    last_first = 1  # the first seq of the last decision written
    first = number
    for number, raw in enumerate(lines[first - 1 :], start=first):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("{"):
            inner = _comment_body(line)
            if inner is None:
                raise RecordError(f"{source}:{number}: a comment is one line, '{{…}}', with '}}' escaped as '\\}}' inside")
            seq = last_first
            m = re.match(r"^@(\d+) ", inner)
            if m:
                seq = int(m.group(1))
                inner = inner[m.end() :]
                if not last_first <= seq <= len(events):
                    raise RecordError(
                        f"{source}:{number}: comment @{seq} is not on the decision before it "
                        f"(seqs {last_first}..{len(events)})"
                    )
            note = unescape_comment(inner)
            if not note.replace("\n", "").replace("\t", "").isprintable():
                raise RecordError(f"{source}:{number}: a comment holds a control character")
            if len(note) > MAX_NOTE:
                raise RecordError(f"{source}:{number}: a comment is at most {MAX_NOTE} characters, not {len(note)}")
            notes.append(Note(seq, note))
            continue
        m = _MOVE.match(line)
        if m is None:
            raise RecordError(f"{source}:{number}: expected 'R<round> #<seq> <player>: <command>', a {{comment}} or a blank line")
        rnd, seq, who, text = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        if who == RESEED_NAME:
            if seq != len(events) + 1 or rnd != game.round_of(state) or not _COMMITMENT.fullmatch(text):
                raise RecordError(f"{source}:{number}: a reseed is 'R<round> #<seq> (reseed) <64 hex digits>' "
                                  f"at seq {len(events) + 1}, round {game.round_of(state)}")
            reseed = Reseeded(commitment=text)
            state = game.apply(state, reseed)
            last_first = len(events) + 1
            events.append(reseed)
            continue
        if who == CHANCE_NAME:
            seat = CHANCE
        else:
            player = who.rstrip(":")
            if not who.endswith(":") or player not in players:
                raise RecordError(f"{source}:{number}: {who!r} is not a player of this game ({' '.join(players)})")
            seat = players.index(player)
        if seq != len(events) + 1:
            raise RecordError(f"{source}:{number}: this decision is at seq {len(events) + 1}, not #{seq}")
        if rnd != game.round_of(state):
            raise RecordError(f"{source}:{number}: this decision is in round {game.round_of(state)}, not R{rnd}")
        try:
            command = game.parse_command(state, seat, text)
            produced = checked_decide(game, state, seat, command)
        except RulesError as exc:
            raise RecordError(f"{source}:{number}: {exc}") from None
        for e in produced:
            state = game.apply(state, e)
        last_first = len(events) + 1
        events.extend(produced)
    expected = one("Result")
    got = result_text(game, state, players)
    if got != expected:
        raise RecordError(f"{source}: the moves give the result {got!r}, the Result tag says {expected!r}")
    count = one("Events", "")
    if count and count != str(len(events)):
        raise RecordError(f"{source}: the moves give {len(events)} events, the Events tag says {count}")
    header = Header(
        format=LOG_FORMAT,
        definition=definition,
        seed=seed,
        reseeds=tuple(reseeds),
        bots=bots,
        parent=one("Parent", "") or None,
        fork_at=int(fork_at) if fork_at else None,
        status="active" if game.to_act(state) else "over",
        salted=salted == "yes",
        salt=one("Salt", "") or None,
    )
    try:
        secret = nonce_secret(seed, header.salt, definition.secrets, header.salted)
    except ValueError:
        raise RecordError(f"{source}: the Seed and Salt tags cannot derive the line nonces (a salt is 32 hex digits)") from None
    records = chain(definition, "", [to_item(e) for e in events], secret=secret)
    head = one("Head", "")
    if head and records[-1].hash != head:
        raise RecordError(
            f"{source}: the re-decided game's last hash differs from the Head tag "
            "(a move, the seed or a tag was changed)"
        )
    return from_records(header, records), notes


__all__ = ["FORMAT", "RecordError", "is_record", "read", "write"]
