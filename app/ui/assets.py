"""The inspector's files, read once from the package (so an installed wheel serves them too)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources

# Only these types are served: anything else in the folder is not an asset of the UI.
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str
    etag: str


def load_assets() -> dict[str, Asset]:
    """Every servable file under `static/`, keyed by its path relative to it (`js/api.js`)."""
    found: dict[str, Asset] = {}
    root = resources.files("app.ui") / "static"

    def walk(folder: resources.abc.Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            name = f"{prefix}{entry.name}"
            if entry.is_dir():
                walk(entry, f"{name}/")
                continue
            media_type = MEDIA_TYPES.get("." + entry.name.rsplit(".", 1)[-1])
            if media_type is None:
                continue
            body = entry.read_bytes()
            found[name] = Asset(body, media_type, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')

    walk(root, "")
    return found
