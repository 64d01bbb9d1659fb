"""The rule table of the local fact extractor (`app.ai.local_fact_extractor`), by kind.

A rule pairs a regular expression for a first-person trigger ("I live in", "my sister", "I'm
allergic to") with a builder that reads the words after it and returns candidate facts, or nothing
when those words do not check out: places, names and employers must be proper nouns (`names`);
diets, languages, nationalities, jobs, relatives, pets and conditions come from closed lists
(`words`); free objects ("likes jazz") are a few plain words with no pronoun or conversation word
in them (`phrases`). Whether the clause around a trigger is a question, a hypothesis or someone
else's words is the driver's business; the list of what is claimed is there too.

Order is precedence: a rule claims the words it reads, so endings come first ("I don't like jazz
anymore" is not also read as a dislike), then the kinds in a fixed order. Within a sentence, facts
come out in the order of their triggers.
"""

from __future__ import annotations

from app.ai.fact_rules import (
    diet,
    endings,
    health,
    identity,
    location,
    occupation,
    plans_events,
    preferences,
    relationships,
)
from app.ai.fact_rules.drafts import Draft, Rule
from app.ai.fact_rules.names import title_case
from app.ai.fact_rules.sentences import Sentence

RULES: tuple[Rule, ...] = (
    *endings.RULES,
    *identity.RULES,
    *location.RULES,
    *occupation.RULES,
    *relationships.RULES,
    *diet.RULES,
    *health.RULES,
    *preferences.RULES,
    *plans_events.RULES,
)

__all__ = ["RULES", "Draft", "Rule", "Sentence", "title_case"]
