"""The committed spec (`openapi/openapi.json`) is rendered here, the same way every time."""

from __future__ import annotations

import json

from app.config import Settings
from app.main import create_app


def render_spec() -> str:
    # Built from defaults, never the environment: the spec must not depend on where it is made.
    app = create_app(Settings.model_construct())
    return json.dumps(app.openapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
