"""Mail passwords come from the environment, a command or ~/.netrc — never from citylog's files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cli.post.credentials import NoCredentials, password_for
from events.store import EnvironmentFailure

SECTION = {"host": "imap.example.org", "user": "alice@example.org"}


def _netrc(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "netrc"
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_from_an_environment_variable(tmp_path: Path) -> None:
    section = {**SECTION, "password_env": "CITYLOG_IMAP_PASSWORD"}
    assert password_for(section, env={"CITYLOG_IMAP_PASSWORD": "s3cret"}, netrc_file=tmp_path / "none") == "s3cret"


def test_an_unset_variable_falls_through_to_netrc_and_says_so(tmp_path: Path) -> None:
    section = {**SECTION, "password_env": "CITYLOG_IMAP_PASSWORD"}
    netrc = _netrc(tmp_path, "machine imap.example.org login alice@example.org password from-netrc\n")
    assert password_for(section, env={}, netrc_file=netrc) == "from-netrc"
    with pytest.raises(NoCredentials, match=r"\$CITYLOG_IMAP_PASSWORD is not set; no .*none"):
        password_for(section, env={}, netrc_file=tmp_path / "none")


def test_from_a_command_its_first_line(tmp_path: Path) -> None:
    section = {**SECTION, "password_command": [sys.executable, "-c", "print('from-command'); print('more')"]}
    assert password_for(section, env={}, netrc_file=tmp_path / "none") == "from-command"
    as_string = {**SECTION, "password_command": f"{sys.executable} -c \"print('spaced out')\""}
    assert password_for(as_string, env={}, netrc_file=tmp_path / "none") == "spaced out"


def test_a_failing_command_is_named_without_its_output(tmp_path: Path) -> None:
    code = "import sys; print('half-a-secret'); sys.stderr.write('vault locked\\n'); sys.exit(3)"
    section = {**SECTION, "password_command": [sys.executable, "-c", code]}
    with pytest.raises(NoCredentials, match=r"exited with 3 \(vault locked\)") as caught:
        password_for(section, env={}, netrc_file=tmp_path / "none")
    assert "half-a-secret" not in str(caught.value)
    with pytest.raises(NoCredentials, match="not found"):
        password_for({**SECTION, "password_command": "no-such-citylog-helper"}, env={})
    with pytest.raises(NoCredentials, match="printed no password"):
        password_for({**SECTION, "password_command": [sys.executable, "-c", "pass"]}, env={})


def test_netrc_by_host_and_login(tmp_path: Path) -> None:
    netrc = _netrc(tmp_path, "machine smtp.example.org login alice@example.org password smtp-pw\n"
                             "machine imap.example.org login alice@example.org password imap-pw\n")
    assert password_for(SECTION, env={}, netrc_file=netrc) == "imap-pw"
    assert password_for({**SECTION, "host": "smtp.example.org"}, env={}, netrc_file=netrc) == "smtp-pw"
    with pytest.raises(NoCredentials, match="has login 'alice@example.org' for imap.example.org, not 'bob'"):
        password_for({**SECTION, "user": "bob"}, env={}, netrc_file=netrc)
    with pytest.raises(NoCredentials, match="no machine mail.example.net"):
        password_for({**SECTION, "host": "mail.example.net"}, env={}, netrc_file=netrc)


def test_netrc_from_the_environment_variable_NETRC(tmp_path: Path) -> None:
    netrc = _netrc(tmp_path, "machine imap.example.org login alice@example.org password via-NETRC\n")
    assert password_for(SECTION, env={"NETRC": str(netrc)}) == "via-NETRC"


def test_a_password_in_the_config_is_refused() -> None:
    with pytest.raises(NoCredentials, match="does not store passwords"):
        password_for({**SECTION, "password": "plain"}, env={})


def test_nothing_found_is_an_environment_failure(tmp_path: Path) -> None:
    with pytest.raises(NoCredentials, match="no password for alice@example.org at imap.example.org") as caught:
        password_for(SECTION, env={}, netrc_file=tmp_path / "none")
    assert isinstance(caught.value, EnvironmentFailure)  # exit code 4 in the CLI
