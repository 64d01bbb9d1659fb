"""What the chat-model providers share: versioned prompt files, turns rendered for a prompt, and
the JSON text of an answer."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from importlib import resources
from string import Template

from app.ai.relative_time import resolve_relative_dates
from app.ai.summarizer import Turn

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


@functools.cache
def load_prompt(name: str) -> Template:
    """A prompt template shipped in app/ai/prompts (package data), with $placeholders."""
    return Template(resources.files("app.ai").joinpath("prompts").joinpath(f"{name}.md").read_text("utf-8"))


def render_turns(turns: Sequence[Turn], *, numbered: bool = False) -> str:
    """One line per message, relative time words already dated (which helps weaker models); with
    `numbered`, each line starts with `#<seq>` so the model can cite its sources."""
    lines = []
    for t in sorted(turns, key=lambda t: t.seq):
        speaker = f"{t.name} ({t.role})" if t.name else t.role
        # On one line, so a message's own line breaks cannot pass for the start of another message.
        text = " ".join(resolve_relative_dates(t.content, t.created_at).split())
        number = f"#{t.seq} " if numbered else ""
        lines.append(f"{number}[{t.created_at.isoformat()}] {speaker}: {text}")
    return "\n".join(lines)


def strip_fences(content: str | None) -> str:
    """The answer without the Markdown code fence some servers wrap JSON in, even in JSON mode."""
    return _FENCE.sub("", (content or "").strip())
