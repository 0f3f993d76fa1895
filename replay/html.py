"""The one-file replay page: ``citylog export GAME --format html``.

One self-contained HTML file — no network, no external script: the picture of
every step (replay/svg.py) for every view the file may show (the referee's file:
the referee and each player; a player's file: that player only), a slider,
arrow keys (←/→ one event, Home/End), the event list beside the picture with
the current event highlighted, and the game's notes under their events
(referee files only: a note is the host's, written with everything in view).

The pictures are many and alike, so they travel as one gzip'd JSON bundle in
base64 that the page unpacks with the browser's ``DecompressionStream``.  The
bundle is deterministic (gzip ``mtime=0``), so the same game gives the same
page.  Test hooks: ``body[data-ready]`` once unpacked, ``body[data-seq]`` and
``body[data-view]`` for the step shown, ``li.current`` the highlighted event.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence

from core.scene import Scene, scene_at
from events.service import GameService
from events.store import Note
from replay.logfile import LogFile
from replay.picture import seat_of
from replay.record import result_text
from replay.sources import export, fold_log
from replay.svg import esc, render


def page(log: LogFile, notes: Sequence[Note] = ()) -> str:
    """The replay page of ``log`` (a referee's log: every view; a player's: theirs)."""
    game, events, states = fold_log(log)
    d = log.header.definition
    players = d.players
    if log.header.view is None:
        views: list[tuple[str, int | None]] = [("referee", None)] + [(p, i) for i, p in enumerate(players)]
    else:
        views = [(log.header.view, seat_of(log, None))]
    svgs: list[str] = []
    index: dict[str, int] = {}
    bundle_views = []
    for name, seat in views:
        steps, lines = [], []
        cache: dict[int, Scene] = {}
        for seq in range(1, len(events) + 1):
            svg = render(scene_at(game, events, states, seq, seat, players, cache))
            steps.append(index.setdefault(svg, len(index)))
            if len(index) > len(svgs):
                svgs.append(svg)
            event = events[seq - 1] if seat is None else game.redact(events[seq - 1], seat)
            lines.append(game.describe(event, players))
        bundle_views.append({"name": name, "steps": steps, "events": lines})
    note_map: dict[str, list[str]] = {}
    for n in notes if log.header.view is None else ():
        note_map.setdefault(str(n.seq), []).append(n.text)
    bundle = {"svgs": svgs, "views": bundle_views, "notes": note_map}
    raw = json.dumps(bundle, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    packed = base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode()
    result = result_text(game, states[-1], players)
    title = f"{game.spec.title}: {', '.join(players)}"
    who = f" — {log.header.view}'s view" if log.header.view else ""
    return (
        _TEMPLATE.replace("%TITLE%", esc(title + who))
        .replace("%RESULT%", esc("game going on" if result == "*" else result))
        .replace("%BUNDLE%", packed)
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
.controls { display: flex; gap: 10px; align-items: center; padding: 8px 18px; background: #eef1f4; border-bottom: 1px solid #d5d9de; }
.controls input[type=range] { flex: 1; }
.controls button { font-size: 15px; padding: 2px 10px; }
.controls .pos { font-variant-numeric: tabular-nums; min-width: 9em; font-size: 13px; }
main { display: flex; gap: 14px; padding: 12px 18px; align-items: flex-start; }
#picture { background: #fff; border: 1px solid #d5d9de; border-radius: 6px; overflow: auto; flex: 0 1 auto; }
#picture svg { display: block; }
#events { flex: 1 1 300px; max-height: calc(100vh - 130px); overflow: auto; margin: 0; padding: 6px 6px 6px 44px;
          background: #fff; border: 1px solid #d5d9de; border-radius: 6px; font-size: 13px; min-width: 260px; }
#events li { padding: 2px 4px; cursor: pointer; border-radius: 3px; }
#events li:hover { background: #eef3fb; }
#events li.current { background: #ffe0c2; outline: 2px solid #ff6d00; }
#events .note { display: block; margin: 2px 0 2px 0; padding: 2px 6px; background: #fff7d6; border-left: 3px solid #e0b040;
                font-style: italic; white-space: pre-wrap; }
.hint { font-size: 12px; color: #666; }
</style>
</head>
<body data-ready="0" data-seq="0" data-view="">
<header><h1>%TITLE%</h1><div class="result">%RESULT%</div></header>
<div class="controls">
  <label>view <select id="view"></select></label>
  <button id="prev" title="previous event (←)">◀</button>
  <input id="slider" type="range" min="1" max="1" value="1" aria-label="event">
  <button id="next" title="next event (→)">▶</button>
  <span class="pos" id="pos"></span>
  <span class="hint">← → Home End</span>
</div>
<main><div id="picture">loading…</div><ol id="events"></ol></main>
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
  const pic = document.getElementById("picture"), list = document.getElementById("events");
  const slider = document.getElementById("slider"), pos = document.getElementById("pos");
  const select = document.getElementById("view");
  let view = data.views[0], seq = 1;
  data.views.forEach((v, i) => { const o = document.createElement("option"); o.value = i; o.textContent = v.name; select.appendChild(o); });
  if (data.views.length < 2) select.disabled = true;
  function fillList() {
    list.textContent = "";
    view.events.forEach((line, i) => {
      const li = document.createElement("li");
      li.textContent = line;
      li.dataset.seq = i + 1;
      (data.notes[String(i + 1)] || []).forEach(n => {
        const s = document.createElement("span"); s.className = "note"; s.textContent = n; li.appendChild(s);
      });
      li.addEventListener("click", () => show(i + 1));
      list.appendChild(li);
    });
  }
  function show(n) {
    seq = Math.max(1, Math.min(view.steps.length, n));
    pic.innerHTML = data.svgs[view.steps[seq - 1]];
    slider.value = seq;
    pos.textContent = "event " + seq + " / " + view.steps.length;
    const old = list.querySelector("li.current");
    if (old) old.classList.remove("current");
    const li = list.children[seq - 1];
    li.classList.add("current");
    li.scrollIntoView({block: "nearest"});
    document.body.dataset.seq = seq;
    document.body.dataset.view = view.name;
  }
  select.addEventListener("change", () => { view = data.views[Number(select.value)]; fillList(); show(seq); });
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.getElementById("prev").addEventListener("click", () => show(seq - 1));
  document.getElementById("next").addEventListener("click", () => show(seq + 1));
  document.addEventListener("keydown", e => {
    if (e.target === select) return;
    const to = {ArrowLeft: seq - 1, ArrowRight: seq + 1, Home: 1, End: view.steps.length}[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  slider.max = view.steps.length;
  fillList();
  show(1);
  document.body.dataset.ready = "1";
})();
</script>
</body>
</html>
"""
