"""`engram encryption`: make a key, and see which keys seal data and how far a rotation is.

Like `engram keys`, on the database directly (app/cli_admin.py). A rotation itself needs no
command: list the new key first in ENGRAM_ENCRYPTION_KEYS, keep the old ones after it, restart,
and the worker re-encrypts (docs/encryption.md).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

from app.cli_admin import AsJson, DataDir, _run
from app.config import Settings

if TYPE_CHECKING:  # `engram serve`'s supervisor imports this module too: it stays small
    from sqlalchemy.ext.asyncio import AsyncConnection

encryption = typer.Typer(
    help="Encryption at rest: make a key; show the keys in use and the rotation's progress.",
    no_args_is_help=True,
)


@encryption.command("new-key")
def new_key(key_id: str = typer.Argument("k1", help="The id to list the key under.")) -> None:
    """Print a fresh 256-bit key as an ENGRAM_ENCRYPTION_KEYS entry (`id:key`)."""
    from app.crypto.envelope import KEY_ID
    from app.crypto.envelope import new_key as make

    if not KEY_ID.match(key_id):
        typer.echo("engram: a key id is 1 to 32 letters, digits, _ or -", err=True)
        raise typer.Exit(2)
    typer.echo(f"{key_id}:{make()}")
    typer.echo("Keep it in your secret store: data sealed with a lost key cannot be read.", err=True)


@encryption.command("status")
def status(data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """Key ids that sealed data here (retired: no row is left under it) and, per table, the
    re-encryption sweep's primary key and keyword-index setting, rows rewritten and whether it is done."""
    from app.crypto import rotation

    async def work(settings: Settings, conn: AsyncConnection) -> dict[str, Any]:
        return await rotation.status(conn)

    _, found = _run(data_dir, work)
    if as_json:
        typer.echo(json.dumps(found, indent=2, default=str))
        return
    if not found["keys"]:
        typer.echo("no data has been encrypted in this database")
        return
    for k in found["keys"]:
        state = f"retired {k['retired_at']:%Y-%m-%d %H:%M}" if k["retired_at"] else "in use"
        typer.echo(f"key {k['key_id']:<12} since {k['created_at']:%Y-%m-%d %H:%M}  {state}")
    for t in found["rotation"]:
        state = "done" if t["done"] else "in progress"
        typer.echo(
            f"table {t['table_name']:<17} to key {t['key_id']:<12} keywords {t['keyword_index']:<5} "
            f"{state:<12} rewritten {t['rewritten']}"
        )
