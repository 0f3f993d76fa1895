"""``citylog tui GAME|FILE --as P`` (issue 24): a view received by email, played in
the TUI into ONE signed move file in the mail agent's queue — nothing written to
the store — that the host's agent applies; the panel stops where the next
decision needs a card the view does not show (issue 26 item 1) [CL-S11]."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from cli.tui.app import CitylogApp
from cli.tui.play import PlayPanel
from replay import logfile
from replay.sources import export
from tests.helpers.mail_parties import MailParty, MailTable
from tests.helpers.pbem import Party, dump
from tests.tui.helpers import settle

SIZE = (80, 24)


@pytest.fixture(scope="module")
def mail_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-seat Card City game by mail: joined, the seat to act holding her first view
    (as tests/post/test_agent_local.py's ``started``)."""
    root = tmp_path_factory.mktemp("tui-mail")
    table = MailTable(root)
    (root / "gid").write_text(table.gid)
    for _ in range(4):
        table.carry()
        for p in table.players.values():
            p.sync()
        table.carry()
        table.host.sync()
    table.carry()
    for p in table.players.values():
        p.sync()
    return root


def _party(root: Path, name: str) -> MailParty:
    p = MailParty.__new__(MailParty)
    p.name, p.home, p.db = name, root / name, root / name / "citylog.db"
    p.address, p.maildir, p.outmail = f"{name}@example.test", root / name / "Maildir", root / name / "outmail"
    return p


def _to_act(host: Party, gid: str) -> str:
    return json.loads(host.ok("show", gid, "--json"))["to_act"][0]


def _opened(party: Party, monkeypatch: pytest.MonkeyPatch, *args: str) -> CitylogApp:
    """The app ``citylog tui ARGS`` would run (the CLI's checks done, the screen not started)."""
    apps: list[CitylogApp] = []
    monkeypatch.setattr(CitylogApp, "run", lambda self, *a, **k: apps.append(self))
    party.ok("tui", *args)
    [app] = apps
    return app


async def _choose(pilot: Any, panel: PlayPanel, typed: str | None = None) -> None:
    """One command chosen and confirmed: ``typed``, else the first listed."""
    if typed is not None:
        field = pilot.app.screen.query_one("#typed", Input)
        field.focus()
        field.value = typed
    await pilot.press("enter")
    await settle(pilot)
    assert panel.pending is not None, panel.query_one("#play-message").render()
    await pilot.press("y")
    await settle(pilot)


async def test_a_received_view_is_played_into_one_signed_move_the_host_applies(
    mail_game: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "t"
    shutil.copytree(mail_game, root)
    gid = (root / "gid").read_text()
    host = _party(root, "host")
    name = _to_act(host, gid)
    party = _party(root, name)
    before = dump(party.db)
    version = json.loads(host.ok("show", gid, "--json"))["seq"]
    app = _opened(party, monkeypatch, gid, "--as", name)  # by game id: not a game of her store
    queue = party.home / "mail" / "outgoing"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        panel = screen.query_one(PlayPanel)
        assert screen.model.own_view and screen.model.viewer_label == name
        for _ in range(12):
            if panel.note is not None:
                break
            await _choose(pilot, panel)
        await settle(pilot)
        assert panel.note is not None and panel.note[0].startswith("move written"), panel.note
        assert "mail sync" in panel.note[1]
        assert screen.model.acting_seat() is None  # read-only for this position
        await pilot.press("v")  # the view shows its own player only
        assert screen.model.viewer_label == name
    [move] = list(queue.glob("*-move.json"))
    assert json.loads(move.read_text())["signature"]
    assert dump(party.db) == before, "the TUI wrote to the player's store"
    again = _opened(party, monkeypatch, gid, "--as", name)  # one move file per position
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = again.screen.query_one(PlayPanel)
        assert panel.note is not None and panel.note[0] == "move already written", panel.note
        assert again.screen.model.acting_seat() is None
    party.sync()
    _table(root).carry()
    assert host.sync()["applied"] == 1
    assert json.loads(host.ok("show", gid, "--json"))["seq"] > version


def _table(root: Path) -> MailTable:
    t = MailTable.__new__(MailTable)
    t.root, t.host = root, _party(root, "host")
    t.players = {n: _party(root, n) for n in ("alice", "bob")}
    return t


def _bob_offered_a_face_down_half(service: Any, tmp_path: Path) -> Path:
    """Card City (ada plays alice's part): alice splits with a face-down half; bob's view,
    exported as it arrives by email."""
    gid = service.create("card-city", ["alice", "bob"], seed="s1", game_id="cc-view")
    loaded = service.load(gid)
    game = loaded.game
    split = next(c for c in game.legal(game.view(loaded.state, 0), 0) if len(game.format_command(c).split()) == 4)
    service.submit(gid, 0, split, expected_version=loaded.version)
    path = tmp_path / "bob.jsonl"
    with path.open("w") as handle:
        logfile.write(export(service, gid, "bob"), handle)
    return path


async def test_the_panel_offers_no_command_on_an_unseen_card(
    db: str, service: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After 'take rest' bob holds a card he has not seen: the move file holds what he can
    decide now, and the panel lists nothing more (no 'build ? E4' to sign)."""
    view = _bob_offered_a_face_down_half(service, tmp_path)
    party = Party(tmp_path, "bob")
    out = tmp_path / "out"
    app = _opened(party, monkeypatch, str(view), "--as", "bob", "--out", f"{out}/")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(PlayPanel)
        await _choose(pilot, panel, "take rest")
        await settle(pilot)
        assert panel.note is not None and "the face-down card you took" in panel.note[1], panel.note
        assert not panel.query_one("#legal").display and app.screen.model.acting_seat() is None
    [written] = list(out.iterdir())
    assert json.loads(written.read_text())["commands"] == ["take rest"]


def test_refusals_come_before_the_screen(
    db: str, service: Any, tmp_path: Path, mail_game: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(CitylogApp, "run", lambda self, *a, **k: pytest.fail("the screen started"))
    view = _bob_offered_a_face_down_half(service, tmp_path)
    gid = (mail_game / "gid").read_text()
    alice = _party(mail_game, "alice")
    before = dump(alice.db)
    for party, args, why in (
        (Party(tmp_path, "alice"), (str(view), "--as", "alice", "--out", str(tmp_path)), "bob's view"),
        (Party(tmp_path, "bob"), (str(view), "--as", "bob"), "--out DIR"),
        (alice, (gid, "--as", "carol"), "nor a view carol received"),  # not a player
        (alice, (gid, "--as", "bob"), "nor a view bob received"),  # another's game by mail
        (alice, ("nosuchgame", "--as", "alice"), "nor a view alice received"),
    ):
        code, stdout, stderr = party.run("tui", *args)
        lines = (stderr + stdout).strip().splitlines()
        assert code == 2 and len(lines) == 1 and why in lines[0], (args, code, stderr, stdout)
        assert "[CL-" in lines[0]
    assert dump(alice.db) == before
