"""One-line errors, exit codes, no tracebacks.

Exit codes: 0 ok, 1 a check failed, 2 bad input (an illegal move, a malformed or
tampered file, a wrong player, a stale move, a missing game, bad options, a
database that is not citylog's), 4 the environment failed (disk full, I/O error,
a lock held past the timeout, a database server that cannot be reached) — the
same command may succeed when retried; 3 is an internal error (a bug); 141 the
output's reader went away (a closed pipe: quietly, as SIGPIPE ends a Unix tool).
"""

from __future__ import annotations

import functools
import sqlite3
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from cli.output import one_line, reader_went_away
from core.engine import RulesError
from core.registry import UnknownGame
from events.service import ServiceError
from events.store import Conflict, EnvironmentFailure, StoreError
from replay.logfile import LogFileError

F = TypeVar("F", bound=Callable[..., Any])

CHECK_FAILED = 1
BAD_INPUT = 2
ENVIRONMENT = 4


_json_errors = False
"""Set while a command given ``--json`` runs: its refusals are JSON too."""


def error_line(message: str, code: int, prefix: str = "citylog", as_json: bool | None = None) -> str:
    """One refusal for stderr: ``citylog: MESSAGE``, or under ``--json`` one JSON
    object, ``{"error": MESSAGE, "exit_code": CODE}`` (the same exit code)."""
    if _json_errors if as_json is None else as_json:
        import msgspec

        return msgspec.json.encode({"error": f"{prefix}: {one_line(message)}", "exit_code": code}).decode() + "\n"
    return f"{prefix}: {one_line(message)}\n"


def fail(message: str, code: int = BAD_INPUT) -> typer.Exit:
    sys.stderr.write(error_line(message, code))
    return typer.Exit(code)


def guarded(fn: F) -> F:
    """Turn the project's errors into one line on stderr and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _json_errors
        _json_errors = kwargs.get("json") is True
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except BrokenPipeError:
            reader_went_away()
        except EnvironmentFailure as exc:
            raise fail(f"environment: {exc}", ENVIRONMENT) from None
        except Conflict as exc:
            raise fail(f"conflict: {exc}; another writer moved first, nothing was written") from None
        except ServiceError as exc:
            raise fail(str(exc), exc.exit_code) from None
        except (RulesError, StoreError, LogFileError, UnknownGame) as exc:
            raise fail(str(exc)) from None
        except UnicodeEncodeError as exc:  # a non-UTF-8 argv arrives with surrogates
            near = f" (near {exc.object[:40]!r})" if isinstance(exc.object, str) else ""
            raise fail(f"an argument is not valid UTF-8 text{near}") from None
        except (OSError, sqlite3.Error) as exc:
            raise fail(f"{type(exc).__name__}: {exc}") from None
        except Exception as exc:
            if type(exc).__module__.startswith("psycopg"):  # not imported here: start-up cost
                raise fail(f"environment: {type(exc).__name__}: {exc}", ENVIRONMENT) from None
            raise

    return wrapper  # type: ignore[return-value]


def reads_untrusted_logs(fn: F) -> F:
    """For commands that show what a log folds to (``show``, ``log``, ``explain``,
    ``diff``, ``move --out``): the fold never validates, so a forged or damaged log
    can fold to a state the rules could never reach, which a render or a
    description may trip over.  That is the log's fault, reported in one line
    (exit 2) with a pointer to ``verify``, never an internal error."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (RulesError, ServiceError, LogFileError, StoreError, UnicodeError):
            raise
        except (ArithmeticError, AssertionError, AttributeError, LookupError, TypeError, ValueError) as exc:
            ref = kwargs.get("ref") or kwargs.get("a") or "the log"
            raise ServiceError(
                f"{ref}: its events do not make a game this citylog can show ({type(exc).__name__}); "
                f"'citylog verify' names the first bad line"
            ) from None

    return wrapper  # type: ignore[return-value]
