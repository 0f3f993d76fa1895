"""Keys: ``citylog key new NAME`` and finding a key for signing.

Keys live in the data directory beside the database (``keys/NAME.key``, an
unencrypted PKCS#8 PEM, mode 0600; ``keys/NAME.pub``, hex of the public key).
``--key PATH`` names a private key file anywhere instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.context import state
from cli.errors import guarded
from cli.output import emit_json, say
from cli.options import Json
from events.service import ServiceError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from events.signing import BadKey, load_private_pem, new_private_key, private_pem, public_hex
from events.store import default_db_path


def keys_dir(ctx: typer.Context) -> Path:
    db = state(ctx).db or default_db_path()
    return Path(db).expanduser().parent / "keys"


def _check_name(name: str) -> None:
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ServiceError(f"key name {name!r}: use letters, digits, - and _")


def load_key(path: Path) -> Ed25519PrivateKey:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ServiceError(f"no key file {path}") from None
    try:
        return load_private_pem(data, str(path))
    except BadKey as exc:
        raise ServiceError(str(exc)) from None


def key_for(ctx: typer.Context, name: str, path: Path | None) -> Ed25519PrivateKey:
    """``--key PATH``, else the data directory's key called ``name``."""
    if path is not None:
        return load_key(path)
    own = keys_dir(ctx) / f"{name}.key"
    if not own.exists():
        raise ServiceError(f"no key {name!r} in {own.parent}: make one with 'citylog key new {name}' or give --key PATH")
    return load_key(own)


def key_with_public(ctx: typer.Context, public: str, path: Path | None) -> Ed25519PrivateKey:
    """The private key whose public half is ``public``: ``--key PATH`` or one in the data directory."""
    if path is not None:
        key = load_key(path)
        if public_hex(key) != public:
            raise ServiceError(f"{path} is not the key this game was created with")
        return key
    folder = keys_dir(ctx)
    for pub in sorted(folder.glob("*.pub")) if folder.is_dir() else []:
        if pub.read_text(encoding="utf-8").strip() == public:
            return load_key(pub.with_suffix(".key"))
    raise ServiceError(f"the host key of this game is not in {folder}; give --key PATH")


def key_new(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="e.g. your player name, or 'host'")],
    json: Json = False,
) -> None:
    """Make an Ed25519 key pair in the data directory.

    The private key is readable by you only (mode 0600).

    \b
    Example:
      citylog key new alice
    """
    _check_name(name)
    folder = keys_dir(ctx)
    folder.mkdir(parents=True, exist_ok=True)
    private = folder / f"{name}.key"
    if private.exists():
        raise ServiceError(f"a key {name!r} already exists ({private}); a key is never overwritten")
    key = new_private_key()
    fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(private_pem(key))
    os.chmod(private, 0o600)
    public = public_hex(key)
    (folder / f"{name}.pub").write_text(public + "\n", encoding="utf-8")
    if json:
        emit_json({"name": name, "public_key": public, "file": str(private)})
    else:
        say(f"key {name}: {public}  ({private}, mode 0600)")


def key_show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME")],
    json: Json = False,
) -> None:
    """The public half of a key in the data directory.

    \b
    Example:
      citylog key show alice
    """
    _check_name(name)
    public = public_hex(key_for(ctx, name, None))
    emit_json({"name": name, "public_key": public}) if json else say(public)


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="Ed25519 keys for play by email.\n\n\b\nExample:\n  citylog key new alice\n  citylog key show alice",
        no_args_is_help=True,
    )
    group.command("new")(guarded(key_new))
    group.command("show")(guarded(key_show))
    app.add_typer(group, name="key")
