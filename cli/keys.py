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

from cli.context import keys_folder, state
from cli.errors import guarded
from cli.output import emit_json, say
from cli.options import Json
from events.service import ServiceError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from events.signing import (
    KEY_HEX,
    BadKey,
    hex_bytes,
    load_private_pem,
    load_public_file,
    new_private_key,
    private_pem,
    public_file_bytes,
    public_hex,
    same_hex,
)


def keys_dir(ctx: typer.Context) -> Path:
    """Beside the SQLite database; the data directory's ``keys`` for a
    ``postgresql://`` store (:func:`cli.context.keys_folder`)."""
    return keys_folder(state(ctx).db)


def _check_name(name: str) -> None:
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ServiceError(f"key name {name!r}: use letters, digits, - and _")


MAX_KEY_FILE = 4096
"""A key file is a few hundred bytes; more is not a key file (never read whole)."""


def _read_key_file(path: Path) -> bytes:
    try:
        if not path.is_file():
            raise ServiceError(f"no key file {path}" if not path.exists() else f"{path}: not a regular file")
        with path.open("rb") as handle:
            data = handle.read(MAX_KEY_FILE + 1)
    except FileNotFoundError:
        raise ServiceError(f"no key file {path}") from None
    except OSError as exc:
        raise ServiceError(f"{path}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    if len(data) > MAX_KEY_FILE:
        raise ServiceError(f"{path}: too long for a key file")
    return data


def load_key(path: Path) -> Ed25519PrivateKey:
    """A private key file in its one encoding (as ``key new`` writes it) [CL-S1]."""
    try:
        return load_private_pem(_read_key_file(path), str(path))
    except BadKey as exc:
        raise ServiceError(str(exc)) from None


def load_public(path: Path) -> str:
    """A public key file (``NAME.pub``) in its one encoding: the key's hex [CL-S1]."""
    try:
        return load_public_file(_read_key_file(path), str(path))
    except BadKey as exc:
        raise ServiceError(str(exc)) from None


def own_public_key(ctx: typer.Context, name: str, path: Path | None) -> str | None:
    """``name``'s public key for checking her own view: that of ``--key PATH``,
    else of her key in the key store (``NAME.pub``, checked against ``NAME.key``
    when both are there); None when she has none here."""
    if path is not None:
        return public_hex(load_key(path))
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        return None
    folder = keys_dir(ctx)
    private, pub = folder / f"{name}.key", folder / f"{name}.pub"
    if private.exists():
        public = public_hex(load_key(private))
        if pub.exists() and load_public(pub) != public:
            raise ServiceError(f"{pub} does not hold the public half of {private}")
        return public
    return load_public(pub) if pub.exists() else None


def key_for(ctx: typer.Context, name: str, path: Path | None) -> Ed25519PrivateKey:
    """``--key PATH``, else the data directory's key called ``name``."""
    return key_in(keys_dir(ctx), name, path)


def key_in(folder: Path, name: str, path: Path | None) -> Ed25519PrivateKey:
    """``path``, else the key called ``name`` in the key store ``folder``."""
    if path is not None:
        return load_key(path)
    own = folder / f"{name}.key"
    if not own.exists():
        raise ServiceError(f"no key {name!r} in {own.parent}: make one with 'citylog key new {name}' or give --key PATH")
    return load_key(own)


def key_with_public(ctx: typer.Context, public: str, path: Path | None) -> Ed25519PrivateKey:
    """The private key whose public half is ``public``: ``--key PATH`` or one in the data directory."""
    if path is not None:
        key = load_key(path)
        if not same_hex(public_hex(key), public, KEY_HEX):
            raise ServiceError(f"{path} is not the key this game was created with")
        return key
    folder = keys_dir(ctx)
    want = hex_bytes(public, KEY_HEX)
    for pub in sorted(folder.glob("*.pub")) if folder.is_dir() else []:
        try:
            found = hex_bytes(load_public(pub), KEY_HEX)
        except ServiceError:
            continue  # not a public key file: it cannot be the host's
        if want is not None and found == want:
            key = load_key(pub.with_suffix(".key"))
            if public_hex(key) != public:
                raise ServiceError(f"{pub.with_suffix('.key')} is not the private half of {pub}")
            return key
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
    (folder / f"{name}.pub").write_bytes(public_file_bytes(key))
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
