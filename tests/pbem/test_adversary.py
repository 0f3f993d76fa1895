"""Issue 22, item 9: the red team.  A cheating host (anything to its own database
and files) and cheating players (any file they like), against honest players
who only run the CLI on what they receive (:mod:`adversary`).

* The law, on random games of every game: after any attack of the catalogue,
  some honest player's ``verify`` of what they finally received fails (exit 1,
  one line, never exit 3), or the attack changed nothing that matters (every
  final view verifies, proves the deal, and folds to the honest result).  For a
  cheating player: the host's ``inbox`` refuses the file with the store as it
  was, or the game is as if he had played honestly.
* Every attack the issue names, as a plain example.

These examples fail on the code the issue was filed against; that is the point.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import adversary as adv
import pytest
from adversary import Case, Mail, deterministic
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

GAMES = ("card-city", "5x5-city", "point-city")
FEW = settings(
    max_examples=max(2, settings().max_examples // 8),
    phases=[Phase.explicit, Phase.generate],  # a whole game by email per example: no shrinking
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    deadline=None,
)
"""A game by mail is a few seconds: an eighth of the profile's examples (ci: 3; thorough: 250)."""

EXAMPLE = Case("card-city", ("alice", "bob"), choices=1, label="red-team")
"""The game of the plain examples (one honest baseline for all of them)."""


def attacked(tmp_path: Path, name: str, case: Case = EXAMPLE, at: int = 3) -> tuple[adv.Received, Mail]:
    player = name in adv.PLAYER_ATTACKS
    attack = (adv.PLAYER_ATTACKS if player else adv.HOST_ATTACKS)[name]
    with deterministic(case.label):
        mail = Mail(tmp_path / name, case)
        received = attack(mail, at)
    return received, mail


def host_law(tmp_path: Path, name: str, case: Case = EXAMPLE, at: int = 3) -> str:
    received, mail = attacked(tmp_path, name, case, at)
    return adv.judge(tmp_path, case, received, mail)


def player_law(tmp_path: Path, name: str, case: Case = EXAMPLE, at: int = 3) -> str:
    received, mail = attacked(tmp_path, name, case, at)
    assert isinstance(received, adv.PlayerReceived)
    return adv.judge_player(tmp_path, case, received, mail)


# -- the law -------------------------------------------------------------------


@st.composite
def cases(draw: st.DrawFn) -> Case:
    from core import registry

    game = draw(st.sampled_from(GAMES), label="game")
    spec = registry.get(game).spec
    n = draw(st.integers(max(2, spec.min_players), min(3, spec.max_players)), label="players")
    options: list[str] = []
    for o in spec.options:
        if o.choices and o.key != "solo-level":
            options += ["--option", f"{o.key}={draw(st.sampled_from(o.choices))}"]
    if game == "5x5-city":
        options += ["--option", f"sides={draw(st.sampled_from(['A', 'B', 'random']))}"]
    seed = draw(st.sampled_from([None, "s1", "club-night-7"]), label="seed")
    choices = draw(st.integers(0, 10**6), label="choices")
    return Case(game, ("ann", "ben", "cat")[:n], tuple(options), seed, choices, label=f"law-{choices}")


def _fresh(tmp_path: Path, tag: str) -> Path:
    root = tmp_path / tag
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    return root


@FEW
@given(case=cases(), name=st.sampled_from(sorted(adv.HOST_ATTACKS)), at=st.integers(0, 30))
def test_no_cheating_host_goes_unnoticed(tmp_path: Path, case: Case, name: str, at: int) -> None:
    """Any attack of the host's catalogue on a random game: some honest player's
    ``verify`` fails, or nothing that matters changed."""
    root = _fresh(tmp_path, "host")
    note(f"{name} at round trip {at} on {case}")
    note(host_law(root, name, case, at))


@FEW
@given(case=cases(), name=st.sampled_from(sorted(adv.PLAYER_ATTACKS)), at=st.integers(0, 30))
def test_no_cheating_player_gets_through(tmp_path: Path, case: Case, name: str, at: int) -> None:
    """Any file of the cheating players' catalogue: the host's inbox refuses it (the
    store as it was), or the game goes on as if it had been played honestly."""
    root = _fresh(tmp_path, "player")
    note(f"{name} at round trip {at} on {case}")
    note(player_law(root, name, case, at))


def test_the_catalogue_holds_every_attack_the_issue_names() -> None:
    named = {"redeal", "reseeds", "old_move_upper", "view_rewrite", "grind_entropy"}
    assert named <= set(adv.HOST_ATTACKS)
    assert {"seat_hijack", "huge_entropy", "respelled_command_lower"} <= set(adv.PLAYER_ATTACKS)
    own = set(adv.HOST_ATTACKS) - named
    assert len(own) >= 5, own
    # the second round's (r22): hand each player a game of her own, edit rows and headers;
    # files that are not files, odd entropy, moves for other positions, games and chains
    assert {"split_views", "strip_signed", "seed_row", "salt_row", "view_relabel", "swap_adjacent",
            "rules_downgrade", "secrets_downgrade", "header_noise"} <= set(adv.HOST_ATTACKS)
    assert {"future_move", "move_other_game_id", "move_other_chain", "late_join", "entropy_odd_length",
            "file_fifo", "file_sparse_huge", "file_nested", "file_escape_in_fields"} <= set(adv.PLAYER_ATTACKS)
    assert all(f.__doc__ for f in [*adv.HOST_ATTACKS.values(), *adv.PLAYER_ATTACKS.values()])


# -- the attacks the issue names, one by one ------------------------------------------


def test_a_re_deal_after_seeing_the_entropy_is_caught(tmp_path: Path) -> None:
    """The host deletes and re-creates the game under the same id with a new seed and
    appends the players' original joins: the joins answered another genesis."""
    received, mail = attacked(tmp_path, "redeal")
    verdict = adv.judge(tmp_path, EXAMPLE, received, mail)
    assert verdict.startswith("detected"), verdict


def test_a_host_puppet_grinding_its_entropy_after_the_reveals_is_caught(tmp_path: Path) -> None:
    """[CL-S7] The host's puppet seat picks its entropy after every other seat
    revealed: its commitment was chained first, so the reveal it writes does not
    open it, and every honest player's verify names the line."""
    received, mail = attacked(tmp_path, "grind_entropy")
    verdict = adv.judge(tmp_path, EXAMPLE, received, mail)
    assert verdict.startswith("detected") and "CL-S7" in verdict, verdict


def test_host_chosen_draws_through_reseeds_are_caught(tmp_path: Path) -> None:
    """``reseeds`` written into the host's games row decide the draws from then on."""
    received, mail = attacked(tmp_path, "reseeds")
    assert received.mounted
    verdict = adv.judge(tmp_path, EXAMPLE, received, mail)
    assert verdict.startswith("detected"), verdict


def test_an_old_move_with_its_signature_in_upper_case_is_caught(tmp_path: Path) -> None:
    """The host drops a player's new move and plays an older file of hers again, the
    signature's hex in upper case: a file's seq and head bind it to its line, and a
    signature is used once, whatever its spelling."""
    received, mail = attacked(tmp_path, "old_move_upper")
    assert received.mounted, "the host found no older move to play again"
    verdict = adv.judge(tmp_path, EXAMPLE, received, mail)
    assert verdict.startswith("detected"), verdict


def test_a_seat_hijacked_with_a_second_key_is_refused_or_caught(tmp_path: Path) -> None:
    """Bob answers his invitation, then joins for alice's seat with a second key of his
    before her join arrives: the host refuses it, or alice's verify says her seat
    was not played with her key."""
    received, mail = attacked(tmp_path, "seat_hijack")
    assert isinstance(received, adv.PlayerReceived)
    [cheat] = received.cheats
    if cheat.code == 0:  # taken: alice's own verify must then fail
        adv.verify_all(mail, received)
        code, text = received.verdicts["alice"]
        assert code == 1 and len(text.splitlines()) == 1, f"alice's seat was taken by bob's key: {text}"
    else:
        assert cheat.refused and cheat.unchanged, cheat
        adv.judge_player(tmp_path, EXAMPLE, received, mail)


def test_a_sealed_final_view_rewritten_under_a_redaction_is_caught(tmp_path: Path) -> None:
    """A visible line of a final view marked redacted, its digest from its own nonce,
    a payload that changes the result: seq, hash and seal unchanged."""
    received, mail = attacked(tmp_path, "view_rewrite")
    assert received.mounted, "no line of the final views could change the result"
    verdict = adv.judge(tmp_path, EXAMPLE, received, mail)
    assert verdict.startswith("detected"), verdict


@pytest.mark.parametrize("seed", ["s1", "club-night-7"])
def test_a_person_chosen_seed_cannot_be_confirmed_from_line_nonces(tmp_path: Path, seed: str) -> None:
    """A player's view (mid-game) gives each visible line's nonce; no guess of the seed,
    not even the right one, may be testable against them."""
    case = Case("card-city", ("alice", "bob"), seed=seed, label="nonces")
    with deterministic(case.label):
        mail = Mail(tmp_path, case)
        mail.join_all()
        mail.play(2)
    view = tmp_path / "alice.jsonl"
    mail.host.ok("export", mail.gid, "--as", "alice", "-o", str(view))
    lines = [json.loads(x) for x in view.read_text().splitlines()[1:]]
    nonces = {x["seq"]: x["nonce"] for x in lines if x.get("nonce")}
    assert nonces, "a view shows the nonces of the lines its player may see"
    guesses = [seed, *(f"s{i}" for i in range(1000)), "club-night-1", "seed", "test"]
    confirmed = [g for g in guesses for seq, n in list(nonces.items())[:3] if adv.unsalted_nonce(g, seq).hex() == n]
    assert not confirmed, f"the seed {confirmed[0]!r} is confirmed by a line nonce of alice's view"


def test_two_games_with_the_same_short_seed_share_no_line_nonce(tmp_path: Path) -> None:
    """Whatever the nonce's formula: it must not be a function of the person-chosen
    seed and the seq alone (else one game's nonces test another's guesses)."""
    views = []
    for k in range(2):
        case = Case("card-city", ("alice", "bob"), seed="s1", label=f"twins-{k}")
        with deterministic(case.label):
            mail = Mail(tmp_path / str(k), case)
            mail.join_all()
        view = tmp_path / f"alice-{k}.jsonl"
        mail.host.ok("export", mail.gid, "--as", "alice", "-o", str(view))
        views.append({(x["seq"], x["nonce"]) for x in map(json.loads, view.read_text().splitlines()[1:])
                      if x.get("nonce")})
    assert views[0] and not views[0] & views[1], sorted(views[0] & views[1])[:3]


@pytest.mark.parametrize("kind", ["command_lower", "command_spaces"])
def test_a_non_canonical_move_file_cannot_frame_the_host(tmp_path: Path, kind: str) -> None:
    """A player sends his move in another spelling (re-signed): the host refuses it,
    or every later export still verifies (the host is not framed)."""
    verdict = player_law(tmp_path, f"respelled_{kind}")
    assert verdict in ("refused", "harmless"), verdict


def test_a_join_with_huge_entropy_cannot_brick_the_game(tmp_path: Path) -> None:
    """0.6 MB of entropy in a join: refused, or every later view stays readable."""
    verdict = player_law(tmp_path, "huge_entropy", at=0)
    assert verdict in ("refused", "harmless"), verdict


def test_a_finished_view_without_the_reveal_does_not_pass_as_proven(tmp_path: Path) -> None:
    """(Found by the red team.)  The host sets its row back to active at the end: the
    final views carry no seed, and ``verify`` returns before its status check
    [CL-V4].  A view that folds to a finished game must prove its deal, or fail."""
    verdict = host_law(tmp_path, "status_row")
    assert verdict.startswith("detected"), verdict


def test_a_bot_the_host_wrote_into_its_row_is_caught(tmp_path: Path) -> None:
    """(Found by the red team.)  A bot written into the games row plays a seat of a game
    by email: its lines carry no signed file, and a view skips every move line
    without one, even a line its player can see."""
    verdict = host_law(tmp_path, "bots_row")
    assert verdict.startswith("detected"), verdict


def test_a_fork_with_a_chosen_seed_passed_off_as_the_game_is_caught(tmp_path: Path) -> None:
    """(Found by the red team.)  The host forks its game with a seed of its choosing
    and passes the fork off as the game: chance from then on is the host's, however
    well the new seed is bound; a view must not pass as a proven deal."""
    verdict = host_law(tmp_path, "fork_chosen_seed")
    assert verdict.startswith("detected"), verdict


def test_a_host_handing_each_player_a_game_of_her_own_is_caught(tmp_path: Path) -> None:
    """(Found by the red team, round 2.)  After the joins the host copies its game once
    per player and plays every other seat itself in each copy; each player is sent
    her copy's final view.  Her own moves are hers and the deal is the committed
    one, but the other seats' moves were the host's: once revealed, a view is checked
    as the full log it re-derives, and every seat's decisions need their player's
    signed file [CL-S5]."""
    received, mail = attacked(tmp_path, "split_views")
    verdict = adv.judge(tmp_path, EXAMPLE, received, mail)
    assert verdict.startswith("detected") and "CL-S5" in verdict, verdict
    for name, (code, text) in received.verdicts.items():
        assert code == 1 and "signed move file" in text, (name, text)  # every player notices, not only one


def test_a_view_of_a_game_going_on_still_hides_the_other_seats_files(tmp_path: Path) -> None:
    """[CL-S5] only a view with the reveal carries every seat's signed files: while the
    game goes on, another seat's file on a redacted line would show the hidden card."""
    mail = Mail(tmp_path / "g", EXAMPLE)
    mail.start()
    hidden = 0
    for view in sorted(mail.outbox.glob(f"{mail.gid}-seq*.jsonl")):  # the views sent while the game went on
        lines = [json.loads(x) for x in view.read_text().splitlines()[1:]]
        hidden += sum(1 for x in lines if x["redacted"])
        assert not [x["seq"] for x in lines if x["redacted"] and x["signed"]], view.name
    assert hidden, "no hidden line to look at"


def test_a_file_naming_another_game_cannot_stall_the_inbox(tmp_path: Path) -> None:
    """(Found by the red team, round 2.)  A move file for a game the host does not hold
    (signed, canonical, made at seq 0 so it sorts first) is refused on its own line;
    the honest files beside it are applied.  It used to stop the whole run, every
    run after it too: one player could stall the game."""
    with deterministic(EXAMPLE.label):
        mail = Mail(tmp_path / "g", EXAMPLE)
        mail.start(1)
        before = mail.version()
        forged = adv.resign({"format": "citylog-move/3", "game_id": "ffffffff", "player": "bob", "seq": 0,
                             "hash": "0" * 64, "commands": ["pass"]}, mail.players["bob"].key(), "move")

        def hook(m: Mail) -> None:
            adv.write_json(m.inbox / "ffffffff-seq0-bob-move.json", forged)

        mail.on_inbox = hook
        mail.round_trip()
    text = mail.refusals[-1] if mail.refusals else ""
    assert "ffffffff" in text and "no game" in text, text
    assert (mail.inbox / "refused" / "ffffffff-seq0-bob-move.json").exists()
    assert mail.version() > before, "the honest files beside it were not applied"


def test_a_move_made_on_another_chain_is_refused_not_held_in_a_step_played_at_once(tmp_path: Path) -> None:
    """(Found by the thorough run of the player law.)  In Card City's construction
    every seat acts at once; a player's move file naming another chain's hash was
    held ("waiting for ann, ben") and, after the honest files were applied, stayed
    held for ever.  [CL-S6] A file is held only if it would apply: this one is
    refused at once, and the game goes on as if he had played honestly."""
    case = Case("card-city", ("ann", "ben", "cat"),
                ("--option", "decentralization=no", "--option", "parking-meters=no"), "s1", 44721, label="law-44721")
    assert player_law(tmp_path, "move_other_chain", case, at=2) == "refused"


# -- the judge itself ------------------------------------------------------------


def test_honest_play_passes_both_laws(tmp_path: Path) -> None:
    """No attack at all: every final view verifies, proves its deal and folds to the
    honest result (the law can pass)."""
    mail = Mail(tmp_path / "honest", EXAMPLE)
    mail.start()
    assert adv.judge(tmp_path, EXAMPLE, adv.Received(mail.finals()), mail) == "harmless"
    received = adv.PlayerReceived(mail.finals(), cheater="bob")
    assert adv.judge_player(tmp_path, EXAMPLE, received, mail) == "refused"  # nothing was accepted from bob


def test_the_law_can_fail(tmp_path: Path) -> None:
    """What the law must call out: a final view that verifies but folds to another
    result (here alice is sent her final view of another game with the same
    players) is never judged harmless."""
    other = Case(EXAMPLE.game, EXAMPLE.players, choices=EXAMPLE.choices + 1, label="other")
    elsewhere = Mail(tmp_path / "b", other)
    elsewhere.start()
    received = adv.Received({"alice": elsewhere.finals()["alice"]})
    assert adv.outcome(received.finals["alice"]) != adv.honest_outcomes(tmp_path, EXAMPLE)["alice"]
    with pytest.raises(AssertionError, match="undetected"):
        adv.judge(tmp_path, EXAMPLE, received, elsewhere)
    assert received.verdicts["alice"][0] == 0  # its verify passed: only the result gives it away


def test_the_host_verifies_its_own_honest_game_and_its_copy_and_import(tmp_path: Path) -> None:
    """[issue 22] ``verify GAME`` on the host's own database passes for an honest
    play-by-email game, and so it does on a copy of the database and on an import
    of the game's full export (signed files travel with the game)."""
    mail = Mail(tmp_path / "honest", EXAMPLE)
    mail.start()
    out = mail.host.ok("verify", mail.gid)
    assert "deal proven" in out, out
    copied = tmp_path / "copy.db"
    mail.host.ok("copy", "--from", str(mail.host.db), "--to", str(copied))
    code, out, err = mail.host.run("--db", str(copied), "verify", mail.gid)
    assert code == 0 and "deal proven" in out, out + err
    full = tmp_path / "full.jsonl"
    mail.host.ok("export", mail.gid, "-o", str(full))
    other = adv.Party(tmp_path, "elsewhere")
    imported = json.loads(other.ok("import", str(full), "--json"))
    gid = imported.get("game_id") or imported.get("id")
    out = other.ok("verify", str(gid))
    assert "deal proven" in out, out


def test_the_honest_baseline_is_the_same_game_as_the_attacked_one_up_to_the_cheat(tmp_path: Path) -> None:
    """The judge compares like with like: a game copied at round trip 13 and played
    on honestly is the game played honestly from the start, event for event.  (A
    committed join's entropy comes from the player's key and the genesis [CL-S7],
    so the keys too must come from the case, not from the clock: with random keys
    this harmless edit of the games row was judged "undetected", thorough profile.)"""
    case = Case("card-city", ("ann", "ben"), ("--option", "decentralization=yes", "--option", "parking-meters=yes"),
                choices=256, label="law-256")
    with deterministic(case.label):
        mail = Mail(tmp_path / "copy", case)
        mail.start(13)
        mail.play()
    honest = adv.honest_start(case)
    rows = "SELECT seq, type, payload, hash FROM events WHERE game_id = ? ORDER BY seq"
    assert mail.sql(rows, mail.gid) == honest.sql(rows, honest.gid) != []
    assert host_law(tmp_path / "law", "lineage_row", case, 13) == "harmless"
