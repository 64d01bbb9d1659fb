"""What a named person tells of their own life, as facts: "I went to a LGBTQ support group
yesterday" said by Caroline -> "Went to a LGBTQ support group yesterday (2023-05-07)." [event].

The slot rules (the other modules here) read the few statements that fill a slot (a home, an
employer, a diet). People in conversation mostly tell what they did, do and are about to do; this
reads those, for a speaker with a name (the fact names them where the sentence did: "It made
Caroline feel accepted"), in the third person (app.ai.third_person) with relative dates resolved.

Precise rather than broad. A sentence is read only when its clause opens with "I" or "my" (after
greetings and fillers at most), is a statement (not a question, wish, hedge, supposition or
someone else's words: the driver's tests), says nothing about the listener ("you"), and has at
least MIN_CONTENT_WORDS words of substance after its subject and verb, so that "I'm so happy",
"I agree", "I love that!" and "I'm off" say nothing. A sentence a slot rule has read is left to
it. Linear in the sentence: one pass of bounded patterns and the restatement's one pass.
"""

from __future__ import annotations

import re
from datetime import datetime

from app.ai.fact_extractor import FactKind
from app.ai.fact_rules.drafts import Draft
from app.ai.fact_rules.phrases import sentence as fact_sentence
from app.ai.fact_rules.words import word_set
from app.ai.relative_time import resolve_relative_dates
from app.ai.summarize.cleanup import condense
from app.ai.third_person import restate

MIN_CONTENT_WORDS = 3
MAX_WORDS = 40
IMPORTANCE = 0.4  # below every slot fact: a told experience is context, a home or an allergy a rule

# The clause's subject and verb: "I" (with a contraction) or "my <noun>", after lead-ins.
_OPENING = re.compile(
    r"^(?P<lead>(?:(?:and|so|well|also|actually|oh|yes|yeah|yep|btw|anyway|now|lately|recently|finally|"
    r"today|yesterday|(?:last|this|next)\s+(?:week(?:end)?|month|year|night|morning|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thurs|fri|sat|sun)|just|honestly|plus|but)\b"
    r"[\s,]*+){0,3})"
    r"(?P<subject>i(?:['\u2019](?:m|ve|ll|d))?|im|my)\s",
    re.IGNORECASE,
)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|u|ya|y'all|ur)\b", re.IGNORECASE)
_ADVERBS = word_set("just really also totally definitely actually finally recently still always never")
# Verbs (after the subject) that say what the speaker thinks or feels about the talk itself.
_TALK_VERBS = word_set(
    "think thought guess hope hoped wish agree agreed know knew mean meant bet suppose believe feel felt "
    "wonder wondered remember can't cannot couldn't can could would should might must appreciate "
    "understand see love like hear get"
)
_STATE_WORDS = word_set(
    "so very too really glad happy sorry thankful grateful excited sure fine good great okay ok well "
    "lucky proud thrilled stoked pumped blessed touched honored honoured here back off done not"
)
# How a plan of effort or a mood reads: said to encourage, not a fact about a life.
_EFFORT = word_set(
    "keep keeps keeping stay stays staying try tries trying never won't make give hang continue"
)
_MOODS = word_set(
    "thankful grateful stoked excited happy glad proud thrilled confident determined positive optimistic "
    "hopeful motivated inspired feeling amazed blessed lucky sorry scared nervous worried stressed "
    "overwhelmed thinking wondering sure believing appreciate appreciative honored honoured humbled touched "
    "busy"
)
_VAGUE_OBJECTS = word_set("it that this them those these one so too")
# Someone only the conversation knows ("I want to make their lives better", "I named her Tilly").
_SOMEONE = re.compile(
    r"\b(?:he|she|him|his|her|they|them|their|theirs|it\s+(?:and|but|so)\b|into\s+it)\b", re.IGNORECASE
)
_POINTING = re.compile(
    r"\b(?:this|that|these|those)\s+(?!is\b|was\b|'s\b)[a-z]|'em\b|\bhere'?s\b|"
    r"\bthose\b|\bthese\b(?!\s+days\b)|"  # "I'm obsessed with those": what is shown
    # "I had a blast there", "I made this!", "I first watched it": a place or thing only the talk names
    r"\b(?:there|here)\b(?!\s*(?:'s|is|are|was|were|has|have|isn't|aren't|wasn't|weren't)\b)|"
    r"\bthis\s*(?:[.!?]|$)|"
    r"\b(?:watched|saw|read|tried|bought|got|made|love|loved|liked|finished|started|about|of|with|for)\s+"
    r"it\b",
    re.IGNORECASE,
)
_TIME_LEAD = re.compile(r"\b(?:today|yesterday|(?:last|this|next)\s+\w+)\b", re.IGNORECASE)
_DATED = re.compile(r"\([0-9]{4}-[0-9]{2}-[0-9]{2}\)|\((?:week|weekend) of ")
_FILLER = word_set(
    """a an the and or but so to of in on at for with from by it its it's this that these those there
    here them they their he she him her his i i'm im me my mine we us our is are was were be been being
    am do does did have has had will would can could should just really very so too also all some any
    more most much many lot lots of about up out over into as like what when where how then than
    now still even ever always never again too much thing things stuff something anything everything
    way lol haha yeah yes oh wow"""
)
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
_FUTURE = re.compile(r"\b(?:going\s+to|gonna|will|'ll|plan(?:ning)?\s+to|about\s+to)\b", re.IGNORECASE)
_PAST_VERB = re.compile(r"\b(?:[a-z]+ed|went|got|made|took|had|was|were|did|saw|met|ran|won|bought)\b")


def experience(text: str, speaker: str, at: datetime) -> Draft | None:
    """The experience a named speaker's sentence `text` (a statement, already judged one) tells,
    or None."""
    opening = _OPENING.match(text)
    if opening is None or _SECOND_PERSON.search(text):
        return None
    words = _WORD.findall(text)
    if len(words) > MAX_WORDS:
        return None
    after = [w.lower().replace("\u2019", "'") for w in _WORD.findall(text[opening.end() :])]
    subject = opening.group("subject").lower()
    if subject == "my":
        after = after[1:]  # the noun: "my kids love ..." says something of the kids
    while after and after[0] in _ADVERBS:
        after = after[1:]
    if not after or (subject in ("i", "i'd", "i'll") and after[0] in _TALK_VERBS):
        return None
    if subject.endswith(("m", "'m")) and any(w in _STATE_WORDS for w in after[:2]):
        return None  # "I'm so happy", "I'm off", "I'm not sure", "I'm feeling confident"
    verb = after[2] if after[0] in ("gonna", "will", "going") and after[1:2] == ["to"] else after[0]
    if after[0] in ("gonna", "will") and len(after) > 1:
        verb = after[1]
    if subject != "my" and (verb in _EFFORT or (len(after) > 1 and after[1] in _VAGUE_OBJECTS)):
        return None  # "I'll keep pushing", "I won't give up", "I made it in class"
    if any(w in _MOODS for w in after[:3]):
        return None  # "I'm really thankful for ...", "I'm gonna stay positive"
    if len(_content(after[1:])) < MIN_CONTENT_WORDS:
        return None
    if _POINTING.search(text) or _SOMEONE.search(text):
        return None  # "I want 'em to feel ...", "I do remember those classes": about what is shown
    body = condense(text[opening.start("subject") :]) or text[opening.start("subject") :]
    # A time word before the subject ("Last Friday, I went ...") dates what follows.
    lead = opening.group("lead")
    time_word = _TIME_LEAD.search(lead)
    when = resolve_relative_dates(time_word.group(), at).lower() if time_word else ""
    if when and _DATED.search(when):
        body = body.rstrip(" !.\u2026") + " " + when
    restated, changed = restate(resolve_relative_dates(body, at), speaker)
    if not changed:
        return None
    content = restated[len(speaker) + 1 :] if restated.startswith(speaker + " ") else restated
    content = content.rstrip(" !.\u2026")
    if not content:
        return None
    kind = (
        FactKind.plan
        if _FUTURE.search(body)
        else FactKind.event
        if _PAST_VERB.search(body.lower())
        else FactKind.other
    )
    return Draft(
        fact_sentence(content),
        kind,
        None,
        exclusive=False,
        importance=IMPORTANCE,
        topics=("experiences",),
    )


def _content(words: list[str]) -> list[str]:
    return [w for w in words if w not in _FILLER and len(w) > 2]
