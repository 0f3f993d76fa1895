"""Start-up builds only what a command needs (issue 13): the invoked command's
module, or none for the top-level help, with the same result as the full app."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from cli import main as cli_main


def names(app: typer.Typer) -> list[str]:
    return [c.name or "" for c in app.registered_commands] + [g.name or "" for g in app.registered_groups]


@pytest.mark.parametrize(
    "argv, kept",
    [
        (["--db", "list", "show", "g1"], ["show"]),  # --db's value is not the command
        (["--durability", "normal", "simulate", "card-city"], ["simulate"]),
        (["--db=x.db", "watch", "g"], ["watch"]),
        (["key", "new", "ada"], ["key"]),  # a command group
        (["--help"], []),  # the help lists the table, builds nothing
        (["--version"], []),
        ([], []),  # no arguments: the help
        (["--db", "x.db", "--help"], []),
        (["nosuchcommand"], None),  # None: every command (the error may suggest one)
    ],
)
def test_start_up_builds_only_the_invoked_command(argv: list[str], kept: list[str] | None) -> None:
    built = names(cli_main.make_app(argv))
    assert built == (kept if kept is not None else names(cli_main.app))


def test_shell_completion_builds_every_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_CITYLOG_COMPLETE", "bash_complete")
    assert names(cli_main.make_app([])) == names(cli_main.app)


def test_the_start_up_table_names_every_command_its_module_and_summary() -> None:
    """COMMANDS agrees with what each module registers, in the full app's order,
    with each command's summary (the first paragraph of its help)."""
    registered: dict[str, str] = {}
    for module in cli_main.MODULES:
        app = typer.Typer()
        importlib.import_module(f"cli.{module}").register(app)
        for name in names(app):
            registered[name] = module
    assert {name: module for name, (module, _) in cli_main.COMMANDS.items()} == registered
    group = typer.main.get_command(cli_main.app)
    ctx = typer.Context(group, info_name="citylog")
    assert list(cli_main.COMMANDS) == group.list_commands(ctx)  # type: ignore[attr-defined]
    for name, (_, summary) in cli_main.COMMANDS.items():
        command = group.get_command(ctx, name)  # type: ignore[attr-defined]
        assert " ".join((command.help or "").split("\n\n")[0].split()) == summary, name


@pytest.mark.parametrize("width", [50, 80, 120])
@pytest.mark.parametrize("argv", [["--help"], []])
def test_the_lazy_help_is_the_full_help(argv: list[str], width: int) -> None:
    """Law: the top-level help built without any command is byte-equal to the
    help of the app with every command, at any terminal width."""
    lazy = CliRunner().invoke(cli_main.make_app(argv), argv, terminal_width=width)
    full = CliRunner().invoke(cli_main.make_app(), argv, terminal_width=width)
    assert (lazy.exit_code, lazy.output) == (full.exit_code, full.output)
    assert "Commands:" in lazy.output and "  key " in lazy.output


def test_every_summary_fits_an_80_column_help() -> None:
    """No command's summary is cut with '...' in an 80-column terminal (Click's
    help is 78 wide there: 6 columns of spacing and the longest name)."""
    limit = 78 - 6 - max(len(name) for name in cli_main.COMMANDS)
    assert [n for n, (_, summary) in cli_main.COMMANDS.items() if len(summary) > limit] == []


def test_the_top_level_help_imports_no_command_module() -> None:
    code = (
        "import sys; sys.argv = ['citylog', '--help']\n"
        "from cli.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('cli.', 'events.', 'core.', 'replay.')))\n"
        "sys.stderr.write(repr(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Commands:" in done.stdout
    loaded = eval(done.stderr.strip().splitlines()[-1])  # noqa: S307 - our own repr
    assert [m for m in loaded if m.split(".")[1] in cli_main.MODULES] == [], loaded
    assert not any(m.startswith(("events.", "replay.", "core.engine", "core.registry")) for m in loaded), loaded
