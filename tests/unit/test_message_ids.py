"""The append's message ids (app.messages.service._new_ids): what uuid.uuid4 makes, from one read."""

from __future__ import annotations

import uuid

from app.messages.service import _new_ids


def test_ids_are_distinct_random_version_4_uuids() -> None:
    ids = _new_ids(1000)
    assert len(ids) == 1000 and len(set(ids)) == 1000
    assert all(isinstance(i, uuid.UUID) and i.version == 4 and i.variant == uuid.RFC_4122 for i in ids)
    assert _new_ids(1)[0] != _new_ids(1)[0]
    assert _new_ids(0) == []
