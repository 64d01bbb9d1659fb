"""What a named person tells of their own life, as facts: "I went to a chess club meeting
yesterday" said by Priya -> "Went to a chess club meeting yesterday (2023-05-07)." [event].

The slot rules (the other modules here) read the few statements that fill a slot (a home, an
employer, a diet). People in conversation mostly tell what they did, do and are about to do; this
reads those, for a speaker with a name (the fact names them where the sentence did: "It made
Priya feel welcome"), in the third person (app.ai.third_person) with relative dates resolved.

Precise rather than broad. A sentence is read only when its clause opens with "I" or "my" (after
greetings, fillers, a vocative "Sure Theo," or a lead clause before a dash at most), is a statement
(not a question, wish, hedge, supposition or someone else's words: the driver's tests), says
nothing about the listener ("you"), and has at least MIN_CONTENT_WORDS words of substance after
its subject (its verb counts when it is one of substance: "I cherish mornings with friends"), so that
"I'm so happy", "I agree", "I love that!" and "I'm off" say nothing. A sentence a slot rule has
read is left to it, but for a liking, which keeps the rest of what the sentence tells.

Also read as the speaker's (issue 12, LoCoMo recall round), each with its near-misses in
tests/unit/test_fact_rules_told.py:
- "we" and a past verb ("We went fishing with the twins", "our" then the speaker's), and chat
  without its "I" ("Took a quick drive to Lisbon last week", "Been doing some repairs");
- what affects the speaker, named in the sentence itself, not a pronoun ("Knitting helps me
  calm my thoughts", "X is important / special to me", "Gardening is my escape") and a
  gerund's clause with "my" judged ("Opening my own bakery is tiring and fulfilling");
- a belief about things in general, in the present, with a plural, gerund or listed mass-noun
  subject, read up to its first clause break ("Gardens bring calm" -> "Thinks gardens bring calm.");
- a photo of one's own things ("Here's a photo of my brother fishing" -> "Shared a photo of ...");
- a mood with what the speaker does after it ("I'm thrilled to build a shelter for dogs"; not "to
  hear / see"), a liking the sentence names ("I love fishing trips with my brother"), a past "when"
  ("when I was a kid"), "my dream", a quoted title and "this month" no longer decline a sentence.
Declined since (session 9 precision round): "I'm excited to ..." (a mood, as "so happy"), "I'm
looking forward to ...", "I'll do my best to ...", "I need to find a better way to ..." (resolve,
no deed), "My friends, books, and long swims, for sure" (an answer's list, no clause) and a feeling
verb after "truly / honestly / genuinely".
Read since session 10: a lead phrase before the clause ("Since we last talked, I took my nephews
to the aquarium", "Apart from work, I'm coaching a chess club"; its time word dates a deed, never a
plan; not after a concession: "It's still hard, but I'm finding some peace" is a mood), "we're"
doing something and "we" with a habit ("We're organising a bake sale next month", the same anchor
as "we" and a past verb), and, in the driver (`_told`), the clauses before one that holds a hedge
("I'm reading "Atomic Habits" and hoping it'll help me sleep" -> "Is currently reading "Atomic
Habits"."; a hedge that opens its clause, "..., I think", stays the whole sentence's).
Linear in the sentence: one pass of bounded patterns and the restatement's one pass.
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
_ADVERBS = word_set(
    "just really also totally definitely actually finally recently still always never truly honestly "
    "seriously genuinely absolutely"
)
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
    "tempted hopeful motivated inspired feeling amazed blessed lucky sorry scared nervous worried stressed "
    "overwhelmed thinking wondering sure believing appreciate appreciative honored honoured humbled touched "
    "busy"
)
# Resolve and anticipation rather than a deed: "I'll do my best to get some tools", "I need to
# find a better way to rest", "I'm looking forward to visiting new towns".
_RESOLVE = re.compile(
    r"^(?:(?:need|needs|have|got)\sto\s(?:find\sa\s(?:better\s)?way)\b|"
    r"(?:(?:always|really|so)\s)?(?:do|try)\smy\s(?:very\s)?best\b|"
    r"(?:(?:so|really|also|just)\s)?looking\sforward\b)"
)
_VAGUE_OBJECTS = word_set("it that this them those these one so too")
# Someone only the conversation knows ("I want to make their lives better", "I named her Tilly").
_SOMEONE = re.compile(
    r"\b(?:he|she|him|his|her|they|them|their|theirs|it\s+(?:and|but|so)\b|into\s+it)\b", re.IGNORECASE
)
_POINTING = re.compile(
    # "this month" is a date, not a thing shown
    r"\b(?:this|that|these|those)\s+(?!is\b|was\b|'s\b|(?:week|weekend|month|year|summer|winter|spring|fall|"
    r"autumn|morning|afternoon|evening|season|semester|time)\b)[a-z]|'em\b|\bhere'?s\b|"
    r"\bthose\b|\bthese\b(?!\s+days\b)|"  # "I'm hooked on those": what is shown
    # "I had a great time there", "I made this!", "I first saw it": a place or thing only the talk names
    r"\b(?:there|here)\b(?!\s*(?:'s|is|are|was|were|has|have|isn't|aren't|wasn't|weren't)\b)|"
    r"\bthis\s*(?:[.!?]|$)|"
    r"\b(?:watched|saw|read|tried|bought|got|made|love|loved|liked|finished|started|about|of|with|for)\s+"
    r"it\b|"
    # "I haven't had one in years", "I'm building one with my club": one of what the talk named
    r"\b(?:had|have|has|on|with|made|got|bought|tried|want|wanted|take|took|get|make|making)\s+one\b"
    r"(?!\s+of\b)|"
    # any other "it" a verb takes ("I usually stir it for 10 minutes"), not one that opens a clause
    r"\b(?!(?:and|but|so|because|cause|as|that|when|if|since|while|though|although|until|before|after|where)\b)"
    r"[a-z]+\s+it\b(?!\s*(?:'s|is|was|has|had|will|would|can|looks|seems|feels|felt|makes|made|gives|gave|helps|"
    r"helped|brings|brought|took|takes|really|just|also|all|turned|became|started|ended|went|got|keeps|kept)\b)",
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
_WEAK_VERBS = word_set(
    """go goes going went gone get gets getting got gotten make makes making made take takes taking took
    want wants wanted wanna need needs needed feel feels feeling felt say says said tell told come came
    coming try tried trying keep kept see saw seen put let give gave look looking looked start started
    starting thank thanks"""
)
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
_FUTURE = re.compile(r"\b(?:going\s+to|gonna|will|'ll|plan(?:ning)?\s+to|about\s+to)\b", re.IGNORECASE)
_PAST_VERB = re.compile(r"\b(?:[a-z]+ed|went|got|made|took|had|was|were|did|saw|met|ran|won|bought)\b")


# "I realized / learned / found that ...": "that" joins a clause, it points at nothing shown.
_THAT_CONJUNCTION = re.compile(
    r"\b(?P<verb>reali[sz]e[sd]?|reali[sz]ing|learn(?:ed|t)?|found|find|know|knew|noticed|decided|proud|glad|"
    r"sure|means|meant|shows?|showed)\s+that\b",
    re.IGNORECASE,
)
# "I'm thrilled to build a shelter for dogs", "I'm lucky to have my wife and friends": a mood word
# with what the speaker does or has after it ("to hear / see / know" is about the talk).
_GLAD_TO = re.compile(
    r"^(?:(?:so|really|very|also|super|truly)\s)?(?:thrilled|lucky|blessed|proud|stoked|pumped)\s"
    r"to\s(?!(?:hear|see|know|say|be|read|watch|help|get|chat|talk|share)\b)[a-z]"
)
# What affects the speaker, said with the speaker as object: "Knitting helps me calm my
# thoughts", "Music and friends keep me steady", "This old watch is super special to me",
# "Gardening is my escape". The subject is a thing or an activity the sentence names itself, not
# a pronoun ("it", "they", "this") that only the talk resolves.
_NOT_THINGS = (
    r"it|it's|its|this|that|these|those|they|they're|he|she|there|here|what|which|who|everything|something|"
    r"nothing|all|one|we|our|i|my|really|just|so|also|totally|definitely|truly|still|always|sure|and|but|you|your"
)
_THING = r"(?P<thing>(?!(?:" + _NOT_THINGS + r")\b)[a-z][\w'-]*(?:\s(?!me\b|my\b)[\w'-]+){0,5}?)"
_AFFECTS_ME = re.compile(
    r"^(?:(?:and|so|well|also|yeah|yep|oh|honestly|plus|but)\b[\s,]*){0,2}"
    + _THING
    + r"\s(?:(?:really|always|just|truly|also|has|have|sure|still|totally)\s){0,2}"
    r"(?:(?:helps?|helped|keeps?|kept|brings?|brought|gives?|gave|calms?|calmed|inspires?|inspired|"
    r"motivates?|motivated|reminds?|reminded|relaxes|relaxed|fuels?|fueled|fuelled|drives?|drove|makes?|made|"
    r"taught|teaches|shaped|changed)\s(?:me|my)\b|"
    r"(?:is|are|was|were|'s|has\s+been)\s(?:(?:so|really|very|super|truly|always|also|incredibly)\s){0,2}"
    r"(?:important|special|precious|dear|meaningful|significant|everything)\sto\sme\b|"
    r"(?:is|are|was|'s|has\s+been)\s(?:(?:also|always|still|totally|really|definitely)\s)?my\s(?:\w+\s)?"
    r"(?:favou?rite|fave?|top\s+pick|passion|escape|therapy|muse|go-to|happy\s+place|sanctuary|"
    r"stress\s+(?:relief|fix|reliever)|outlet|thing|jam|life)\b)",
    re.IGNORECASE,
)
# What the speaker does, judged: "Opening my own bakery and working nights is both tiring and
# fulfilling", "Hearing my nephew's laugh was so lovely" (a gerund's clause with "my" in it, then "is").
_DOING_MINE = re.compile(
    r"^(?:(?:and|so|well|also|yeah|yep|oh|honestly|plus|but)\b[\s,]*){0,2}"
    r"(?P<thing>(?!(?:some|no|any|every)?thing\b|morning\b|evening\b|spring\b)[a-z]+ing\s[^,;:.!?\-]{0,60}?\bmy\b[^,;:.!?\-]{0,60}?)\s(?:is|was|'s|has\s+been|are|were)\s",
    re.IGNORECASE,
)
# A belief the speaker states about things in general, in the present: "Gardens bring calm", "Music
# lessons make life brighter", "Music has a way of lifting a room", "Art's great for showing
# us another view". The subject is plural, a gerund or a listed mass noun (never "the / this
# / it / she", a name, or a thing the talk points at), so it is a view of the world the speaker
# holds: "Thinks gardens bring calm."
_MASS = (
    r"art|music|dance|family|nature|life|love|creativity|friendship|kindness|support|self-care|health|"
    r"exercise|pottery|travel|education|therapy|community|change|growth|fashion|faith|hope|honesty|"
    r"patience|compassion|empathy|acceptance|guidance|teamwork|hard\swork|mental\shealth|family\stime"
)
# "-ing" words that judge rather than do: "Exciting to see what comes next" has no subject.
_ING_ADJECTIVES = (
    r"(?:exciting|amazing|interesting|inspiring|annoying|boring|charming|stunning|touching|relaxing|refreshing|"
    r"rewarding|satisfying|surprising|encouraging|fascinating|heartwarming|uplifting|exhausting|frustrating|"
    r"overwhelming|humbling|thrilling|calming|comforting|promising)\b"
)
_BELIEF = re.compile(
    r"^(?:(?:and|so|well|also|yeah|yep|oh|honestly|plus|but|true|totally|agreed|absolutely|definitely)\b[\s,]*){0,2}"
    r"(?P<thing>(?:(?:our|family)\s)?(?:(?!(?:some|no|any|every)?things?\b|morning|evening|spring|is\b|this\b|"
    r"its\b|his\b|hers\b|yours\b|ours\b|theirs\b|was\b|has\b|does\b|guys\b|thanks\b|us\b|as\b|yes\b|always\b|"
    r"perhaps\b|sometimes\b|news\b|plus\b|"
    + _ING_ADJECTIVES
    + r")[a-z]+(?:ing|[^s'\s]s)|(?:"
    + _MASS
    + r"))(?:\s(?:and|or)\s[a-z]+)?"
    r"(?:\s(?!(?:it|me|you|i|he|she|they|we|this|that|them|him|her)\b)[a-z]+){0,3}?)"
    r"(?P<verb>'s|\s(?:(?:really|always|truly|sure|can|do|does|just)\s){0,2}(?:is|are|make|makes|bring|brings|help|"
    r"helps|give|gives|keep|keeps|has|have|teach|teaches|matter|matters|heal|heals|shape|shapes|connect|connects))\s",
)
# Chat leaves out the subject before a past verb only the writer's own life fits: "Took a quick drive
# last week to Lisbon", "Started learning the cello last week", "Been doing some repairs for my
# bakery"; and "We went fishing with the twins", "We celebrated my son's graduation" tell what
# the speaker did (with others): read as "I ...". A lead clause before a dash ("So much is
# new - I joined ...") is read from the dash.
_DASH_LEAD = re.compile(
    r"^[^-\u2013\u2014]{1,60}?\s[-\u2013\u2014]+\s(?=(?:i|i'm|i've|my|we)\b)", re.IGNORECASE
)
_DROPPED_SUBJECT = re.compile(
    r"^(?P<lead>(?:(?:and|so|well|also|oh|yeah|yep|btw|anyway|just|finally|recently)\b[\s,]*){0,3})"
    r"(?:(?P<been>been\s[a-z]+ing\b)|(?P<we>we\s)(?=(?:(?:just|finally|also|recently)\s)?"
    r"(?:[a-z]*[^\We]ed|went|got|made|took|had|saw|met|ran|won|bought|spent|found|did|built|ate|swam|flew|rode|"
    r"drove|sang|began|held|left|threw|wrote|watched|read)\b)|"
    # "We're organising a bake sale next month", "We always go fishing in July": a doing or
    # a habit (the anchor below still asks for a date, an own thing or a name)
    r"(?P<were>we're\s|we\sare\s)(?=(?:(?:just|also|finally|currently|still)\s)?[a-z]+ing\b)|"
    r"(?P<habit>we\s)(?=(?:always|usually|often|sometimes|regularly)\s[a-z]+\b)|"
    r"(?=(?:took|went|started|finished|visited|tried|bought|joined|signed|spent|met|ran|won|found|learned|"
    r"learnt|picked|booked|painted|baked|wrote|attended|celebrated|volunteered|adopted|hosted|organi[sz]ed|"
    r"built|made|got\s+(?:a|an|my|into|back|accepted|noticed|engaged|married)\b)\s))",
    re.IGNORECASE,
)


def _spoken_for(text: str) -> str:
    """`text` with the subject chat left out put back as "I" (see _DROPPED_SUBJECT), and a lead
    clause before a dash dropped."""
    dash = _DASH_LEAD.match(text)
    if dash is not None:
        text = text[dash.end() :]
    m = _DROPPED_SUBJECT.match(text)
    if m is None:
        return text
    lead = m.group("lead")
    if not _ANCHOR.search(text, m.end("lead") + 1):
        return text  # "We sang, cooked and told old stories": of what, when, is the talk's
    if m.group("been"):
        return f"{lead}I've b{text[m.start('been') + 1 :]}"
    if m.group("were") or m.group("habit"):
        rest = _as_mine(text[m.end() :])
        return f"{lead}{'I' if m.group('habit') else 'I am'} {rest}"
    if m.group("we"):
        rest = _as_mine(text[m.end("we") :])
        return f"{lead}I {rest}"
    rest = text[m.end("lead") :]
    return f"{lead}I {rest[:1].lower()}{rest[1:]}"


# A greeting and the listener's name before the clause: "Yeah, Priya, my garden's been lovely".
_VOCATIVE = re.compile(
    r"^(?:(?:yeah|yep|yes|oh|thanks|wow|aw+|hey|hi|well|so|sure|totally|true)\b[\s,!]*){0,2}"
    r"(?-i:[A-Z][a-z]+)\s?,\s(?=[A-Za-z])",
    re.IGNORECASE,
)
# A photo the speaker shows of their own things: "Here's a photo of my brother fishing at the pier".
_SHOWN_MINE = re.compile(
    r"^(?:(?:and|so|oh|yeah|yep|btw|also|look)\b[\s,!]*){0,2}(?:here's|here\s+is|check\s+out|this\s+is)\s"
    r"(?:a|the|one|an\s+old)?\s?(?:photo|pic|picture|snap|shot)s?\s(?:of|from)\s(?=my\s)",
    re.IGNORECASE,
)
# What ties a told deed without its "I" to the speaker's life: a date, their own things, a name.
_ANCHOR = re.compile(
    r"\b(?:my|our|yesterday|today|ago|(?:last|this|next)\s(?:week|weekend|month|year|night|summer|winter|spring|"
    r"fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|fri|sat|sun))\b|"
    r"\b(?-i:[A-Z][A-Za-z]+)",
    re.IGNORECASE,
)
_OUR = re.compile(r"\bour\b", re.IGNORECASE)


def _as_mine(text: str) -> str:
    """What "we" told, as the speaker's: their "our" is "my"."""
    return _OUR.sub(lambda o: "My" if o.group()[0] == "O" else "my", text)


# A short lead phrase, then the speaker's clause: "Since we last talked, I took my nephews to the
# aquarium", "Apart from work, I'm coaching a chess club", "Last week was hectic, I got interviewed".
# The whole sentence has already been held to the statement checks; the phrase only drops out
# (its time word still dates what follows, unless that is a plan). Not after a concession ("It's
# still hard, but I'm finding some peace"): what follows it is a mood or an effort.
_LEAD_PHRASE = re.compile(
    r"^(?P<phrase>[^,;:!?\-\u2013\u2014]{1,60}?),\s(?=(?:(?:and|so|now)\s)?(?:i|i'm|im|i've|i'll|my)\s)",
    re.IGNORECASE,
)
_PRONOUN = re.compile(r"\b(?:it|this|that|these|those|them|they)\b")


_CLAUSE_BREAK = re.compile(
    r"\s[-\u2013\u2014]+\s|;|,\s(?:so|but|though|can't|cause|'cause|and\s+it|which|huh|eh|right|let's|lets)\b",
    re.IGNORECASE,
)
_SINGULAR = re.compile(r"(?:'s|\b(?:is|has|does|[a-z]+s))$")
_ENDS_POINTING = re.compile(r"\b(?:that|this|it|them|those|these)$", re.IGNORECASE)
_TRAILING = re.compile(r"(?:,?\s(?:too|though|as\s+well))+(?=[\s!.,\u2026]*$)", re.IGNORECASE)


def _clause_end(text: str) -> int:
    """Where the first clause of `text` ends: a belief is read up to its first break."""
    m = _CLAUSE_BREAK.search(text)
    return m.start() if m else len(text)


def _believed(text: str, m: re.Match[str], speaker: str, at: datetime) -> Draft | None:
    """A belief about things in general (_BELIEF), as what the speaker thinks, or None."""
    if len(_WORD.findall(text)) > MAX_WORDS or _POINTING.search(_THAT_CONJUNCTION.sub("", text)):
        return None
    if _SOMEONE.search(text) or _PAST_VERB.search(text[m.end() :].lower()):
        return None
    if len(_content(_WORD.findall(text.lower()))) < MIN_CONTENT_WORDS:
        return None
    first = m.group("thing").split()[-1 if m.group("thing").startswith(("our ", "family ")) else 0]
    plural = not first.endswith("ing") and re.fullmatch(_MASS, first) is None
    if plural and _SINGULAR.search(m.group("verb")):
        return None  # "James is amazing at painting": a name, not things in general ("Pets are")
    said = text[m.start("thing") :]
    said = said[:1].lower() + said[1:] if not said[1:2].isupper() else said
    said = said[: m.end() - m.start("thing") + _clause_end(said[m.end() - m.start("thing") :])]
    restated, mine = restate(resolve_relative_dates(said, at), speaker)
    content = _TRAILING.sub("", restated).rstrip(" !.,\u2026")
    if not content or _ENDS_POINTING.search(content) or content.endswith(speaker):
        return None  # "Music is so neat like that", "Cooking is just Priya"
    # "Baking is a big part of Priya's life" is about the speaker already: said as it is.
    content = content if mine else f"Thinks {content[:1].lower()}{content[1:]}"
    return Draft(
        fact_sentence(content),
        FactKind.other,
        None,
        exclusive=False,
        importance=IMPORTANCE,
        topics=("experiences",),
    )


def _affecting(text: str, m: re.Match[str], speaker: str, at: datetime) -> Draft | None:
    """What affects the speaker (_AFFECTS_ME), restated about them by name, or None."""
    thing = m.group("thing").lower()
    if len(_WORD.findall(text)) > MAX_WORDS or _POINTING.search(_THAT_CONJUNCTION.sub("", text)):
        return None
    if _SOMEONE.search(text) or _PRONOUN.search(thing):
        return None
    if len(_content(_WORD.findall(text.lower()))) < MIN_CONTENT_WORDS or _TIME_LEAD.search(thing):
        return None
    restated, changed = restate(resolve_relative_dates(text[m.start("thing") :], at), speaker)
    content = restated.rstrip(" !.\u2026")
    if not changed or not content:
        return None
    return Draft(
        fact_sentence(content),
        FactKind.other,
        None,
        exclusive=False,
        importance=IMPORTANCE,
        topics=("experiences",),
    )


# Where a first clause ends that stands without what follows: "I'm lucky to have my wife and
# friends; they keep me steady", "I joined a choir last week - they meet on Fridays".
_FIRST_CLAUSE_END = re.compile(r";|\s[-\u2013\u2014]+\s|,\s(?:and|but|so|which)\s")


def experience(text: str, speaker: str, at: datetime) -> Draft | None:
    """The experience a named speaker's sentence `text` (a statement, already judged one) tells,
    or None. A sentence declined only for a pronoun in a later clause ("...; they keep me
    motivated": who "they" are is the talk's) is read up to that clause."""
    told = _experience(text, speaker, at)
    if told is not None:
        return told
    end = _FIRST_CLAUSE_END.search(text)
    if end is None or not (_SOMEONE.search(text, end.start()) or _POINTING.search(text, end.start())):
        return None
    head = text[: end.start()]
    if _SOMEONE.search(head) or _POINTING.search(_THAT_CONJUNCTION.sub("", head)):
        return None
    return _experience(head, speaker, at)


def _experience(text: str, speaker: str, at: datetime) -> Draft | None:
    if _SECOND_PERSON.search(text):
        return None
    affected = _AFFECTS_ME.match(text) or _DOING_MINE.match(text)
    if affected is not None:
        return _affecting(text, affected, speaker, at)
    text = _VOCATIVE.sub("", text, count=1)  # "Sure Theo, staying patient is vital": not about Theo
    shown = _SHOWN_MINE.match(text)
    if shown is not None:  # "Here's a photo of my quilt I finished recently"
        text = f"I shared a photo of {text[shown.end() :]}"
    belief = _BELIEF.match(text[:1].lower() + text[1:])
    if belief is not None:
        return _believed(text, belief, speaker, at)
    text = _spoken_for(text)
    opening = _OPENING.match(text)
    phrase = ""
    if opening is None:
        # "Since we last talked, I took my nephews to the aquarium": a lead phrase before the "I".
        led = _LEAD_PHRASE.match(text)
        if led is None:
            return None
        phrase, text = led.group("phrase"), text[led.end() :]
        opening = _OPENING.match(text)
        if opening is None:
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
    # "I love fishing trips with my brother", "I love all sports": a liking the sentence names itself.
    liking = (
        len(after) > 2
        and after[0] in ("love", "loved")
        and (after[1].endswith("ing") or (after[1] == "all" and after[2] not in _VAGUE_OBJECTS | {"the"}))
    )
    if not after or (subject in ("i", "i'd", "i'll") and after[0] in _TALK_VERBS and not liking):
        return None  # "I think ...", "I love that!"; not "I love fishing trips with my brother"
    glad_to = _GLAD_TO.match(" ".join(after[:5])) if subject.endswith(("m", "'m")) else None
    if glad_to is None and subject.endswith(("m", "'m")) and any(w in _STATE_WORDS for w in after[:2]):
        return None  # "I'm so happy", "I'm off", "I'm not sure", "I'm feeling confident"
    verb = after[2] if after[0] in ("gonna", "will", "going") and after[1:2] == ["to"] else after[0]
    if after[0] in ("gonna", "will") and len(after) > 1:
        verb = after[1]
    if subject != "my" and (verb in _EFFORT or (len(after) > 1 and after[1] in _VAGUE_OBJECTS)):
        return None  # "I'll keep pushing", "I won't give up", "I made it in class"
    if subject != "my" and _RESOLVE.match(" ".join(after[:6])):
        return None  # "I'll do my best to get some tools", "I'm looking forward to visiting ..."
    if subject == "my" and re.match(r"\s*[\w'-]+\s?,", text[opening.end() :]):
        return None  # "My friends, books, and long swims, for sure": an answer's list, no clause
    if after[:2] == ["been", "doing"] and after[2:3] and after[2] in _STATE_WORDS:
        return None  # "I've been doing great lately": a mood
    if glad_to is None and any(w in _MOODS for w in after[:3]):
        return None  # "I'm really thankful for ...", "I'm gonna stay positive"
    # A verb of substance counts as one of the words ("I cherish mornings with friends"); "went", "got",
    # "wanted" and the like do not.
    own = int(after[0] not in _WEAK_VERBS and len(_content(after[:1])) == 1)
    if len(_content(after[1:])) + own < MIN_CONTENT_WORDS:
        return None
    if _POINTING.search(_THAT_CONJUNCTION.sub("", text)) or _SOMEONE.search(text):
        return None  # "I want 'em to feel ...", "I do remember those classes": about what is shown
    body = condense(text[opening.start("subject") :]) or text[opening.start("subject") :]
    # A time word before the subject ("Last Friday, I went ...") dates what follows.
    lead = f"{phrase} {opening.group('lead')}"
    time_word = _TIME_LEAD.search(lead)
    when = resolve_relative_dates(time_word.group(), at).lower() if time_word else ""
    if when and _DATED.search(when) and not _FUTURE.search(body):  # "yesterday, so I'm gonna ..."
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
