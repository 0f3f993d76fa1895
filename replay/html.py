"""The one-file replay page: ``citylog export GAME --format html``.

One self-contained HTML file — no network, no external script: the picture of
every step (replay/svg.py) for every view the file may show (the referee's file:
the referee and each player; a player's file: that player only), and the move
list beside it, grouped by round, each decision in the game's own notation with
the events it produced under it, and the game's notes under their events
(referee files only: a note is the host's, written with everything in view).

Stepping (buttons and keys): ←/→ one *decision* (a player's; chance and the
automatic steps are inside them), Shift+←/→ one *round*, ↑/↓ one raw *event*,
Home/End; a click on a line jumps to it.

**Where it opens.** A finished game opens at its first decision (a replay is
read from the start; End, or → past the last decision, goes to the final score
table); a game still going opens at its last event (the position now, which a
player exporting their view wants).  The address names the position
(``page.html#seq=120``, ``&view=bob`` on a referee page) and follows the
stepping, so a link can be shared; a fragment that is malformed, out of range
or names no view is ignored and the page opens where it would anyway.

**Legal squares.** The picture of a decision's own event marks (dashed blue)
every square the deciding seat could have placed on there, worked out at export
time from that seat's view of the position before it (the view law: never more
than the seat knew), for logs of rules this citylog decides; they are shown in the referee's view and in the deciding
seat's own, never in another player's.  A player's page holds only that player's
view, so only their own decisions' squares.

**The final score table** (the categories ``citylog score`` prints, summed per
category, each line's detail under its points) appears at the end of a finished
game; each view's table is scored from that view (a player's page: what that
player may see).

**An analysed game** (``citylog analyse``, issue 25; read through
:mod:`replay.analyses`, never recomputed, checked against the game [CL-X1])
adds, per view: an evaluation graph under the board (each player's win chance
over the game from their own view; the marks as dots; a click jumps to the
nearest judged step), the marks (``?!``, ``?``, ``??``) and the judgements in the
move list, and the better move at a marked decision starred on the board (the
``best`` mark) and named under the graph.  A view shows its player's judgements
only, so a player's page holds their own [CL-X2].  Test hooks: ``#graph
polyline.series[data-player]``, ``#graph circle[data-seq]``, ``#graph
line.cursor``, ``#events .mark``, ``#picture rect.best``.

The pictures are many and alike, so they travel as one gzip'd JSON bundle in
base64 that the page unpacks with the browser's ``DecompressionStream``; every
name and note reaches the page through ``textContent``, never as markup.  The
bundle is deterministic (gzip ``mtime=0``), so the same game gives the same
page.  Test hooks: ``body[data-ready]`` once unpacked, ``body[data-seq]``,
``body[data-view]`` and ``body[data-decision]`` for the step shown, ``li.current``
the highlighted event, ``#scores table`` the final table.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from core import registry
from core.upgrade import Upgraded
from core.engine import CHANCE, decisions
from core.analysis import DecisionJudgement
from core.engine import RulesError
from core.scene import Scene, board_panel, mark_best, mark_targets, scene_at
from core.words import plurals
from events.service import GameService
from events.store import Note
from replay.logfile import LogFile
from replay.picture import seat_of
from replay.record import result_text
from replay import analyses
from replay.sources import checked_analyses, export, fold_log
from replay.svg import esc, render

Square = tuple[int, int]

DECISION, CHANCE_KIND, AUTOMATIC = "d", "c", "a"
"""The kinds of event in the bundle's ``kinds`` string: one character per event."""


def legal_squares(game: Any, state: Any, seat: int) -> list[Square]:
    """The squares ``seat`` could place something on at ``state``, from its own view
    (``Game.square_of`` of each legal command; sorted)."""
    seen = game.view(state, seat)
    squares = {game.square_of(c) for c in game.legal(seen, seat)}
    return sorted((int(s[0]), int(s[1])) for s in squares if s is not None)


def _label(text: str) -> str:
    text = text.replace("_", " ")
    return text[:1].upper() + text[1:]


def score_table(game: Any, state: Any, players: Sequence[str]) -> dict[str, Any] | None:
    """The final score per category and seat (None while the game goes on).

    ``rows`` are ``[category, points per seat, lines per seat]`` in the order
    the breakdowns first name them, a category's lines summed (Card City scores
    each district); a seat's lines are ``[points, detail]``, and a seat without
    the category has ``None`` points.
    """
    result = game.result(state)
    if result is None:
        return None
    order: list[str] = []
    lines: dict[str, dict[int, list[tuple[int, str]]]] = {}
    for b in result.breakdowns:
        for line in b.lines:
            if line.label not in lines:
                order.append(line.label)
                lines[line.label] = {}
            lines[line.label].setdefault(b.seat, []).append((line.points, plurals(line.detail)))
    seats = range(len(players))
    rows = [
        [
            _label(k),
            [sum(p for p, _ in lines[k][s]) if s in lines[k] else None for s in seats],
            [[[p, t] for p, t in lines[k].get(s, []) if t] for s in seats],
        ]
        for k in order
    ]
    titles = {b.seat: b.title for b in result.breakdowns if b.title}
    return {
        "players": list(players),
        "rows": rows,
        "totals": list(result.scores),
        "titles": [titles.get(s, "") for s in seats],
        "winners": [players[w] for w in result.winners],
        "result": result_text(game, state, players),
    }


def _without_targets(scene: Scene) -> Scene:
    """``scene`` with no cell marked ``target``: the game's own marks (5x5 City's plot on
    every board) would otherwise pass for the legal squares of the decision shown."""
    panels = tuple(
        replace(p, cells=tuple(
            replace(c, marks=tuple(m for m in c.marks if m != "target")) if "target" in c.marks else c
            for c in p.cells
        ))
        for p in scene.panels
    )
    return replace(scene, panels=panels)


def better_squares(game: Any, states: Sequence[Any], shown: Sequence[analyses.Shown]) -> dict[int, Square]:
    """seq -> the square of the better move found at each marked decision (issue 25),
    read from the mover's view of the position before it."""
    out: dict[int, Square] = {}
    for s in shown:
        j = s.judged
        if not s.mark or not isinstance(j, DecisionJudgement) or j.best == j.played or j.seq < 2:
            continue
        seen = game.view(states[j.seq - 2], j.seat)
        try:
            square = game.square_of(game.parse_command(seen, j.seat, j.best))
        except RulesError:  # checked on reading [CL-X1]; only a parse error is caught here
            continue
        if square is not None:
            out[j.seq] = (int(square[0]), int(square[1]))
    return out


def analysis_data(shown: Sequence[analyses.Shown], players: Sequence[str], better: dict[int, Square]) -> dict[str, Any]:
    """A view's judgements as the page draws them: each player's win chance over the
    game (the graph), a note and a mark by each judged line, the better moves."""
    notes: dict[str, list[str]] = {}
    for s in shown:
        notes.setdefault(str(s.seq), []).append(analyses.note(s))
    return {
        "series": {p: [[q, round(w, 4)] for q, w in points] for p, points in analyses.series(shown, players).items()},
        "notes": notes,
        "marks": {str(s.seq): [s.mark, analyses.sign(s.mark), s.player] for s in analyses.marked(shown)},
        "best": {str(s.seq): s.judged.best for s in analyses.marked(shown)
                 if isinstance(s.judged, DecisionJudgement)},
        "squares": {str(q): list(sq) for q, sq in sorted(better.items())},
    }


def page_data(log: LogFile, notes: Sequence[Note] = ()) -> dict[str, Any]:
    """What the page embeds (the bundle), as plain data."""
    game, events, states = fold_log(log)
    d = log.header.definition
    players = d.players
    if log.header.view is None:
        views: list[tuple[str, int | None]] = [("referee", None)] + [(p, i) for i, p in enumerate(players)]
    else:
        views = [(log.header.view, seat_of(log, None))]
    n = len(events)
    kinds = [AUTOMATIC] * n
    actor: dict[int, int] = {}  # 0-based index of a player decision's event -> its seat
    for dec in decisions(game, events):
        kinds[dec.start] = CHANCE_KIND if dec.seat == CHANCE else DECISION
        if dec.seat != CHANCE:
            actor[dec.start] = dec.seat
    owner = views[0][1] if log.header.view is not None else None
    targets: dict[int, list[Square]] = {}
    base = registry.get(d.game)
    in_effect: list[str] = []
    """The rules version each line is decided by (the definition's, then each upgrade's) [CL-U1]."""
    version = d.rules_version
    for e in events:
        in_effect.append(version)
        if type(e) is Upgraded:
            version = e.to_version
    for i, who in actor.items():
        rules = base.for_rules(in_effect[i])
        if rules is None:
            continue  # rules this citylog only replays: their legal squares would be guesses
        if log.header.view is not None and who != owner:
            continue  # a player's page: only the owner's own decisions (their view has nothing else)
        try:
            targets[i] = legal_squares(rules, states[i - 1], who)
        except Exception:  # noqa: BLE001 - an old or forged log's position: no marks rather than no page
            continue
    svgs: list[str] = []
    index: dict[str, int] = {}
    bundle_views = []
    judged = checked_analyses(log)  # what the file carries, checked [CL-X1]; never recomputed
    for name, seat in views:
        steps, lines, moves = [], [], {}
        cache: dict[int, Scene] = {}
        shown = analyses.shown(judged, None if seat is None else players[seat]) if judged else []  # [CL-X2]
        better = better_squares(game, states, shown)
        for seq in range(1, n + 1):
            scene = scene_at(game, events, states, seq, seat, players, cache)
            i = seq - 1
            squares = targets.get(i)
            if squares and seat in (None, actor[i]):
                panel = board_panel(scene, actor[i])
                if panel is not None:
                    scene = mark_targets(_without_targets(scene), panel, squares)
            if seq in better:
                panel = board_panel(scene, actor[i])
                if panel is not None:
                    scene = mark_best(scene, panel, better[seq])
            svg = render(scene)
            steps.append(index.setdefault(svg, len(index)))
            if len(index) > len(svgs):
                svgs.append(svg)
            event = events[i] if seat is None else game.redact(events[i], seat)
            lines.append(game.describe(event, players))
            if i in actor:
                opened = game.command_of(event)
                moves[str(seq)] = game.format_command(opened[1]) if opened is not None else ""
        final = states[-1] if seat is None else game.view(states[-1], seat)
        bundle_views.append(
            {"name": name, "steps": steps, "events": lines, "moves": moves,
             "scores": score_table(game, final, players)}
            | ({"analysis": analysis_data(shown, players, better)} if shown else {})
        )
    note_map: dict[str, list[str]] = {}
    for note in notes if log.header.view is None else ():
        note_map.setdefault(str(note.seq), []).append(note.text)
    over = game.result(states[-1]) is not None
    first = next((i + 1 for i in range(n) if kinds[i] == DECISION), 1)
    return {
        "svgs": svgs,
        "views": bundle_views,
        "notes": note_map,
        "players": list(players),
        "kinds": "".join(kinds),
        "actors": {str(i + 1): s for i, s in sorted(actor.items())},
        "rounds": [game.round_of(s) for s in states],
        "targets": {str(i + 1): [list(sq) for sq in t] for i, t in sorted(targets.items())},
        "over": over,
        "start": first if over else n,
    }


def pack(data: dict[str, Any]) -> str:
    """The bundle as the page carries it: gzip'd JSON (mtime 0), in base64."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode()


def unpack(html: str) -> dict[str, Any]:
    """The bundle of a page :func:`page` wrote (for tests and tools)."""
    start = html.index('<script id="bundle" type="application/octet-stream">')
    body = html[html.index(">", start) + 1 : html.index("</script>", start)]
    data: dict[str, Any] = json.loads(gzip.decompress(base64.b64decode(body.strip())))
    return data


def page(log: LogFile, notes: Sequence[Note] = ()) -> str:
    """The replay page of ``log`` (a referee's log: every view; a player's: theirs)."""
    data = page_data(log, notes)
    players = log.header.definition.players
    final = data["views"][0]["scores"]
    title = f"{registry.get(log.header.definition.game).spec.title}: {', '.join(players)}"
    who = f" — {log.header.view}'s view" if log.header.view else ""
    return (
        _TEMPLATE.replace("%TITLE%", esc(title + who))
        .replace("%RESULT%", esc(final["result"] if final is not None else "game going on"))
        .replace("%BUNDLE%", pack(data))
    )


def export_html(service: GameService, game_id: str, player: str | None = None) -> str:
    log = export(service, game_id, player)
    return page(log, service.store.notes(game_id) if player is None else ())
_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>%TITLE%</title>
<style>
body { font-family: DejaVu Sans, Verdana, Arial, sans-serif; margin: 0; color: #222; background: #faf8f3; }
header { padding: 10px 18px; background: #2f3b4a; color: #fff; }
header h1 { font-size: 18px; margin: 0 0 4px 0; }
header .result { font-size: 13px; color: #dfe6ee; }
.controls { display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; padding: 8px 18px; background: #eef1f4;
            border-bottom: 1px solid #d5d9de; font-size: 13px; }
.controls input[type=range] { flex: 1 1 120px; min-width: 80px; }
.controls button { font-size: 13px; padding: 3px 8px; border: 1px solid #aab3bd; border-radius: 4px; background: #fff; cursor: pointer; }
.controls button:hover { background: #e3ecf7; }
.controls button.main { font-weight: bold; }
.controls .pos { font-variant-numeric: tabular-nums; min-width: 19em; }
.hint { font-size: 12px; color: #555; padding: 4px 18px 0 18px; }
.hint kbd { font-family: inherit; font-size: 11px; border: 1px solid #bbb; border-bottom-width: 2px; border-radius: 3px; padding: 0 4px; background: #fff; }
main { display: flex; gap: 14px; padding: 8px 18px 12px 18px; align-items: flex-start; }
#left { flex: 0 1 auto; min-width: 0; }
#picture { background: #fff; border: 1px solid #d5d9de; border-radius: 6px; overflow: auto; }
#picture svg { display: block; max-width: 100%; height: auto; }
#marks { font-size: 12px; color: #444; margin: 4px 2px; min-height: 16px; }
#marks .t { display: inline-block; width: 11px; height: 11px; border: 2px dashed #1565c0; border-radius: 2px; vertical-align: -2px; }
#marks .l { display: inline-block; width: 11px; height: 11px; border: 3px solid #ff6d00; border-radius: 2px; vertical-align: -3px; margin-left: 8px; }
#scores { background: #fff; border: 2px solid #2f7d32; border-radius: 6px; padding: 8px 12px; margin-bottom: 10px; }
#scores h2 { font-size: 15px; margin: 0 0 6px 0; }
#scores table { border-collapse: collapse; font-size: 13px; }
#scores th, #scores td { border-bottom: 1px solid #e2e2e2; padding: 3px 8px; text-align: right; vertical-align: bottom; }
#scores th { font-size: 11px; font-weight: normal; color: #555; max-width: 7em; }
#scores th:first-child, #scores td:first-child { text-align: left; }
#scores td[title]:not([title=""]) { cursor: help; }
#scores .total { font-weight: bold; border-left: 2px solid #888; }
#scores th.total { color: #222; }
#scores tr.won td { color: #2f7d32; font-weight: bold; }
#scores .verdict { font-size: 13px; margin-top: 6px; font-weight: bold; }
#scores details { font-size: 12px; margin-top: 4px; color: #444; }
#scores details summary { cursor: pointer; color: #2f5d8a; }
#scores .lines { display: flex; flex-wrap: wrap; gap: 4px 24px; margin-top: 4px; }
#scores .lines .pts { display: inline-block; min-width: 2.5em; text-align: right; margin-right: 8px; font-variant-numeric: tabular-nums; }
#events { flex: 1 1 300px; max-height: calc(100vh - 150px); overflow: auto; margin: 0; padding: 4px 6px;
          background: #fff; border: 1px solid #d5d9de; border-radius: 6px; font-size: 13px; min-width: 280px; }
#events h3 { font-size: 13px; margin: 8px 0 2px 0; padding: 3px 6px; background: #2f3b4a; color: #fff; border-radius: 3px; cursor: pointer; }
#events ol { margin: 0; padding-left: 40px; }
#events li { padding: 1px 4px; cursor: pointer; border-radius: 3px; color: #777; font-size: 12px; }
#events li::marker { color: #aaa; font-size: 11px; }
#events li.decision { color: #222; font-size: 13px; margin-top: 3px; }
#events li.decision .who { font-weight: bold; }
#events li.decision code { font-family: DejaVu Sans Mono, Menlo, monospace; background: #eef1f4; padding: 0 4px; border-radius: 3px; }
#events li.decision .desc { display: block; color: #555; font-size: 12px; }
#events li.chance { font-style: italic; }
#events li:hover { background: #eef3fb; }
#events li.span { background: #fff4e8; }
#events li.current { background: #ffe0c2; outline: 2px solid #ff6d00; color: #222; }
#graph { background: #fff; border: 1px solid #d5d9de; border-radius: 6px; margin-top: 6px; padding: 4px 6px; font-size: 12px; color: #444; }
#graph svg { display: block; width: 100%; height: 96px; cursor: pointer; }
#graph .key { display: inline-block; width: 14px; height: 3px; vertical-align: 3px; margin: 0 4px 0 10px; }
#graph .better { color: #2e7d32; font-weight: bold; margin-left: 10px; }
#events .mark { font-weight: bold; margin-left: 4px; padding: 0 3px; border-radius: 3px; color: #fff; }
#events .mark.inaccuracy { background: #56b4e9; }
#events .mark.mistake { background: #e69f00; }
#events .mark.blunder { background: #d55e00; }
#events .judged { display: block; color: #2f5d8a; font-size: 11px; font-style: normal; }
#events .note { display: block; margin: 2px 0 2px 0; padding: 2px 6px; background: #fff7d6; border-left: 3px solid #e0b040;
                font-style: italic; white-space: pre-wrap; color: #333; }
</style>
</head>
<body data-ready="0" data-seq="0" data-view="" data-decision="0">
<header><h1>%TITLE%</h1><div class="result">%RESULT%</div></header>
<div class="controls">
  <label>view <select id="view"></select></label>
  <button id="prev-round" title="start of this round, or the previous one (Shift+←)">« round</button>
  <button id="prev-decision" class="main" title="previous decision (←)">‹ decision</button>
  <button id="prev-event" title="previous event (↑)">‹ event</button>
  <input id="slider" type="range" min="1" max="1" value="1" aria-label="event">
  <button id="next-event" title="next event (↓)">event ›</button>
  <button id="next-decision" class="main" title="next decision (→)">decision ›</button>
  <button id="next-round" title="next round (Shift+→)">round »</button>
  <span class="pos" id="pos"></span>
</div>
<div class="hint"><kbd>←</kbd> <kbd>→</kbd> decision · <kbd>Shift</kbd>+<kbd>←</kbd> <kbd>→</kbd> round ·
  <kbd>↑</kbd> <kbd>↓</kbd> event · <kbd>Home</kbd> <kbd>End</kbd> · click a line to jump · the address links to the step shown</div>
<main><div id="left"><div id="scores" hidden></div><div id="picture">loading…</div><div id="marks"></div>
<div id="graph" hidden></div></div>
<div id="events"></div></main>
<script id="bundle" type="application/octet-stream">%BUNDLE%</script>
<script>
"use strict";
(async function () {
  const text = document.getElementById("bundle").textContent.trim();
  const bytes = Uint8Array.from(atob(text), c => c.charCodeAt(0));
  let data;
  try {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    data = JSON.parse(await new Response(stream).text());
  } catch (e) {
    document.getElementById("picture").textContent = "This browser cannot unpack the page (it needs DecompressionStream).";
    return;
  }
  const $ = id => document.getElementById(id);
  const pic = $("picture"), list = $("events"), slider = $("slider"), pos = $("pos"), select = $("view");
  const scores = $("scores"), marks = $("marks"), graph = $("graph");
  const n = data.kinds.length;
  const starts = [], roundStarts = [];
  for (let i = 0; i < n; i++) {
    if (data.kinds[i] === "d") starts.push(i + 1);
    if (i === 0 || data.rounds[i] !== data.rounds[i - 1]) roundStarts.push(i + 1);
  }
  let viewIndex = 0, view = data.views[0], seq = 1, items = [];
  data.views.forEach((v, i) => { const o = document.createElement("option"); o.value = i; o.textContent = v.name; select.appendChild(o); });
  if (data.views.length < 2) select.disabled = true;
  const after = (xs, s) => { for (const x of xs) if (x > s) return x; return n; };
  const before = (xs, s) => { let b = 1; for (const x of xs) { if (x >= s) break; b = x; } return b; };
  const decisionAt = s => { let k = -1; while (k + 1 < starts.length && starts[k + 1] <= s) k++; return k; };
  const roundName = r => r === 0 ? "Setup" : "Round " + r;
  const el = (tag, cls, txt) => { const e = document.createElement(tag); if (cls) e.className = cls; if (txt !== undefined) e.textContent = txt; return e; };
  const viewSeat = () => viewIndex === 0 && data.views.length > 1 ? null : data.players.indexOf(view.name);
  function fillList() {
    list.textContent = "";
    let ol = null;
    view.events.forEach((line, i) => {
      const seq = i + 1, kind = data.kinds[i];
      if (ol === null || data.rounds[i] !== data.rounds[i - 1]) {
        const section = el("section"), h = el("h3", "round", roundName(data.rounds[i]));
        h.addEventListener("click", () => show(seq));
        ol = el("ol"); ol.start = seq;
        section.append(h, ol); list.appendChild(section);
      }
      const li = el("li", kind === "d" ? "decision" : kind === "c" ? "chance" : "auto");
      li.dataset.seq = seq;
      if (kind === "d") {
        li.append(el("span", "who", data.players[data.actors[String(seq)]] + ":"), " ",
                  el("code", "", view.moves[String(seq)] || "?"), el("span", "desc", line));
      } else {
        li.textContent = line;
      }
      (data.notes[String(seq)] || []).forEach(t => li.appendChild(el("span", "note", t)));
      const a = view.analysis;
      if (a) {  // citylog analyse's judgements: the mark after the move, the win chances under it (issue 25)
        const m = a.marks[String(seq)];
        if (m) { const sp = el("span", "mark " + m[0], m[1]); sp.title = m[2] + ": " + m[0]; (li.querySelector(".desc") || li).before(sp); }
        (a.notes[String(seq)] || []).forEach(t => li.appendChild(el("span", "judged", t)));
      }
      li.addEventListener("click", () => show(seq));
      ol.appendChild(li);
    });
    items = Array.from(list.querySelectorAll("li"));
  }
  function fillScores() {
    // a score pad: a row per player, a column per category, then the total; each line's
    // detail (what `citylog score` prints) in the cell's tooltip and in the list below
    scores.textContent = "";
    const t = view.scores;
    if (!t) return;
    const alone = data.views.length === 1 && viewSeat() !== null;
    scores.appendChild(el("h2", "", "Final scores" + (alone ? " (as " + view.name + " sees them)" : "")));
    const table = el("table"), head = el("tr"), body = el("tbody");
    head.appendChild(el("th", "", "player"));
    t.rows.forEach(([label]) => head.appendChild(el("th", "", label)));
    head.appendChild(el("th", "total", "total"));
    t.players.forEach((p, s) => {
      const won = t.winners.includes(p), tr = el("tr", won ? "won" : "");
      tr.appendChild(el("td", "", p + (won ? " ★" : "")));
      t.rows.forEach(([label, pts, lines]) => {
        const td = el("td", "", pts[s] === null ? "—" : String(pts[s]));
        td.title = lines[s].map(([x, d]) => (lines[s].length > 1 ? x + ": " : "") + d).join("\\n");
        tr.appendChild(td);
      });
      tr.appendChild(el("td", "total", String(t.totals[s]) + (t.titles[s] ? " — " + t.titles[s] : "")));
      body.appendChild(tr);
    });
    const thead = el("thead");
    thead.appendChild(head);
    table.append(thead, body);
    const more = el("details"), pad = el("div", "lines");
    more.appendChild(el("summary", "", "how each score was made"));
    t.players.forEach((p, s) => {
      const box = el("div", "player");
      box.appendChild(el("b", "", p + ": " + t.totals[s]));
      t.rows.forEach(([label, pts, lines]) => {
        if (pts[s] === null) return;
        const items = lines[s].length ? lines[s] : [[pts[s], ""]];
        items.forEach(([x, d]) => {  // as `citylog score` reads a line: the detail alone when it names the category
          const line = el("div");
          const said = d && d.toLowerCase().startsWith(label.toLowerCase().slice(0, 4)) ? d : label + (d ? ": " + d : "");
          line.append(el("span", "pts", String(x)), said);
          box.appendChild(line);
        });
      });
      pad.appendChild(box);
    });
    more.appendChild(pad);
    scores.append(table, el("div", "verdict", t.result), more);
  }
  const SVG = "http://www.w3.org/2000/svg", COLOURS = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00"];
  const svgEl = (tag, attrs) => { const e = document.createElementNS(SVG, tag); Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v)); return e; };
  const GW = 600, GH = 96, GP = 6;
  const gx = s => GP + (n > 1 ? (s - 1) / (n - 1) : 0) * (GW - 2 * GP), gy = w => GP + (1 - w) * (GH - 2 * GP);
  let cursor = null;
  function fillGraph() {
    // the evaluation graph: each player's win chance from their own view, a click jumps there
    const a = view.analysis;
    graph.textContent = ""; graph.hidden = !a; cursor = null;
    if (!a) return;
    const svg = svgEl("svg", {viewBox: "0 0 " + GW + " " + GH, preserveAspectRatio: "none", role: "img"});
    svg.appendChild(svgEl("rect", {x: 0, y: 0, width: GW, height: GH, fill: "#fafafa"}));
    svg.appendChild(svgEl("line", {x1: GP, x2: GW - GP, y1: gy(0.5), y2: gy(0.5), stroke: "#bbb", "stroke-dasharray": "3 3"}));
    const seqs = [];
    Object.entries(a.series).forEach(([p, pts]) => {
      const colour = COLOURS[data.players.indexOf(p) % COLOURS.length];
      svg.appendChild(svgEl("polyline", {points: pts.map(([s, w]) => gx(Math.max(1, s)) + "," + gy(w)).join(" "),
                                         fill: "none", stroke: colour, "stroke-width": 2, class: "series", "data-player": p}));
      pts.forEach(([s]) => seqs.push(Math.max(1, s)));
    });
    Object.entries(a.marks).forEach(([key, m]) => {
      const at = Number(key), pts = a.series[m[2]] || [], point = pts.find(([q]) => q === at);
      const dot = svgEl("circle", {cx: gx(at), cy: gy(point ? point[1] : 0.5), r: 4, class: "mark " + m[0],
                                   fill: {inaccuracy: "#56b4e9", mistake: "#e69f00", blunder: "#d55e00"}[m[0]], "data-seq": key});
      dot.appendChild(svgEl("title", {})).textContent = m[2] + " #" + key + ": " + m[0] + " " + m[1];
      svg.appendChild(dot);
    });
    cursor = svgEl("line", {y1: 0, y2: GH, stroke: "#ff6d00", "stroke-width": 2, class: "cursor"});
    svg.appendChild(cursor);
    svg.addEventListener("click", e => {  // the nearest judged step to the click
      const r = svg.getBoundingClientRect(), vx = (e.clientX - r.left) / r.width * GW;
      const x = 1 + (vx - GP) / (GW - 2 * GP) * (n - 1);  // gx's inverse
      let best = seqs.length ? seqs[0] : Math.round(x);
      seqs.forEach(q => { if (Math.abs(q - x) < Math.abs(best - x)) best = q; });
      show(best);
    });
    graph.appendChild(svg);
    const legend = el("div", "legend", "win chance, each from their own view:");
    Object.keys(a.series).forEach(p => {
      const k = el("span", "key"); k.style.background = COLOURS[data.players.indexOf(p) % COLOURS.length];
      legend.append(k, p);
    });
    legend.appendChild(el("span", "better"));
    graph.appendChild(legend);
  }
  function show(target) {
    seq = Math.max(1, Math.min(n, Math.trunc(Number(target)) || 1));
    pic.innerHTML = data.svgs[view.steps[seq - 1]];
    slider.value = seq;
    const k = decisionAt(seq);
    const ending = seq === n && view.scores !== null;
    pos.textContent = roundName(data.rounds[seq - 1]) + " · decision " + (k + 1) + " of " + starts.length +
      " · event " + seq + " of " + n + (ending ? " · game over" : "");
    items.forEach(li => li.classList.remove("current", "span"));
    if (k >= 0) {
      const end = k + 1 < starts.length ? starts[k + 1] : n + 1;  // up to the next decision, within its round
      for (let i = starts[k]; i < end && data.rounds[i - 1] === data.rounds[starts[k] - 1]; i++) items[i - 1].classList.add("span");
    }
    const li = items[seq - 1];
    li.classList.add("current");
    li.scrollIntoView({block: "nearest"});
    scores.hidden = !ending;
    const t = data.targets[String(seq)], a = data.actors[String(seq)], vs = viewSeat();
    marks.textContent = "";
    if (t && t.length && (vs === null || vs === a)) {
      marks.append(el("span", "t"), " " + t.length + " square" + (t.length === 1 ? "" : "s") + " " + data.players[a] +
                   " could have chosen", el("span", "l"), " what the decision changed");
    }
    if (cursor) {
      cursor.setAttribute("x1", gx(seq)); cursor.setAttribute("x2", gx(seq));
      const a = view.analysis, b = a && a.best[String(seq)], better = graph.querySelector(".better");
      if (better) better.textContent = b ? "★ better: " + b : "";
    }
    document.body.dataset.seq = seq;
    document.body.dataset.view = view.name;
    document.body.dataset.decision = k + 1;
    try {
      history.replaceState(null, "", "#seq=" + seq + (viewIndex > 0 ? "&view=" + encodeURIComponent(view.name) : ""));
    } catch (e) { /* an address that cannot change (a sandboxed frame): the page still works */ }
  }
  function setView(i) {
    viewIndex = i; view = data.views[i]; select.value = String(i);
    fillList(); fillScores(); fillGraph();
  }
  function fromHash() {
    const m = /^#seq=([0-9]{1,9})(?:&view=([^&#]{1,300}))?$/.exec(location.hash);
    if (!m) return null;
    const s = Number(m[1]);
    if (!(s >= 1 && s <= n)) return null;
    let v = viewIndex;
    if (m[2] !== undefined) {
      try { v = data.views.findIndex(x => x.name === decodeURIComponent(m[2])); } catch (e) { return null; }
      if (v < 0) return null;
    }
    return {seq: s, view: v};
  }
  select.addEventListener("change", () => { setView(Number(select.value)); show(seq); });
  slider.addEventListener("input", () => show(slider.value));
  const moves = {
    "prev-round": () => before(roundStarts, seq), "next-round": () => after(roundStarts, seq),
    "prev-decision": () => before(starts, seq), "next-decision": () => after(starts, seq),
    "prev-event": () => seq - 1, "next-event": () => seq + 1,
  };
  Object.entries(moves).forEach(([id, f]) => $(id).addEventListener("click", () => show(f())));
  document.addEventListener("keydown", e => {
    if (e.target === select || e.altKey || e.ctrlKey || e.metaKey) return;
    const to = {
      ArrowLeft: e.shiftKey ? moves["prev-round"] : moves["prev-decision"],
      ArrowRight: e.shiftKey ? moves["next-round"] : moves["next-decision"],
      ArrowUp: moves["prev-event"], ArrowDown: moves["next-event"], Home: () => 1, End: () => n,
    }[e.key];
    if (to !== undefined) { e.preventDefault(); show(to()); }
  });
  window.addEventListener("hashchange", () => {
    const h = fromHash();
    if (h === null) return;
    if (h.view !== viewIndex) setView(h.view);
    show(h.seq);
  });
  slider.max = n;
  const linked = fromHash();
  setView(linked ? linked.view : 0);
  show(linked ? linked.seq : data.start);
  document.body.dataset.ready = "1";
})();
</script>
</body>
</html>
"""
