"""Ending rules: what the user says has stopped being true (moved away, quit a job, broke up, gave
something up, no longer likes X). Each yields a negated draft in the positive form of what ended,
with the subject the positive statement has, so reconciliation ends that slot.

They come first in the table: a rule claims the words it reads, so "I don't like jazz anymore" is
not also read as a dislike.
"""

from __future__ import annotations

import re
from datetime import date

from app.ai.fact_rules.diet import DIET, b_diet, b_dont_eat, ended_eating
from app.ai.fact_rules.drafts import Draft, Rule, fact, rule
from app.ai.fact_rules.health import b_allergic_to
from app.ai.fact_rules.location import b_place
from app.ai.fact_rules.names import EMPLOYERS, organisation, person_name, place
from app.ai.fact_rules.occupation import b_retired, employer_fact, job_fact, job_title
from app.ai.fact_rules.phrases import (
    article,
    date_in,
    ends,
    objects,
    past_day,
    slot_key,
    third_person,
    without,
)
from app.ai.fact_rules.plans_events import STUDIES, course_phrase, proper_key
from app.ai.fact_rules.preferences import (
    HABIT,
    HABIT_GERUND,
    HABIT_VERBS,
    activity_key,
    habit_fact,
    habit_object,
    prefs,
)
from app.ai.fact_rules.relationships import PET_ALT, kin_fact
from app.ai.fact_rules.sentences import BE, DONT, IM, Sentence
from app.ai.fact_rules.words import (
    FAMILY,
    FOODS_GIVEN_UP,
    GAMES,
    GERUNDS,
    GO_GERUNDS,
    INSTRUMENTS,
    NAME_STOP,
    SPORTS,
)


def _b_moved_from(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I moved (away) from Berlin (to Porto)": Berlin ends, Porto begins."""
    tail = s.tail(m.end())
    old = place(tail, s)
    if not old:
        return []
    when = past_day(m, s)
    out = [fact("home", f"Lives in {old}", negated=True, when=when)]
    to = re.match(r"\s*to\s+", tail[tail.find(old) + len(old) :], re.IGNORECASE)
    new = place(tail[tail.find(old) + len(old) + to.end() :], s) if to else None
    return [*out, fact("home", f"Lives in {new}", when=when)] if new else out


def ended_on(m: re.Match[str], s: Sentence) -> date | None:
    """The day an ending is dated from: only a stated day or week. "I quit tennis this year" would date it
    from January 1st, before the user said they play it, and an ending never ends what started
    after it; the message's time is the better guess."""
    d = date_in(m, s, m.end() + len(s.tail(m.end())), "past")
    return d.day if d and d.granularity in ("day", "week", "weekend") else None


def _b_left_employer(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I no longer work at X", "I quit my job at X", "I got laid off from X", "I retired from X"."""
    tail = s.tail(m.end())
    if m.groupdict().get("neg") and not ends(m.group("neg"), tail):
        return []
    verb = (m.groupdict().get("v") or "").lower()
    job = m.groupdict().get("job")
    org = organisation(tail, s)
    if (verb == "left" or s.lower_only) and not job:  # "I left Google Maps open"; "i quit smoking"
        return b_retired(m, s) if verb.startswith("retired") else []
    if not org or not (job or org[0].isupper() or org[0].isdigit()):
        return b_retired(m, s) if verb.startswith("retired") else []
    out = [employer_fact(org, negated=True, when=ended_on(m, s))]
    return out + (b_retired(m, s) if verb.startswith("retired") else [])


def _b_gave_notice(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = organisation(s.tail(m.end()), s)
    return [employer_fact(org, negated=True, when=ended_on(m, s))] if org else []


def _b_left_job(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm no longer a nurse", "I used to be a nurse", "I'm a former nurse"."""
    tail = s.tail(m.end())
    if m.groupdict().get("neg") and not ends(m.group("neg"), tail):
        return []
    found = job_title(tail, free=bool(m.groupdict().get("free")))
    if not found or found[0].split()[-1].lower() == "student":
        return []
    return [job_fact(found[0], negated=True)]


def _b_not_married(m: re.Match[str], s: Sentence) -> list[Draft]:
    return (
        [fact("relationship_status", "Is married", negated=True)]
        if ends(m.group("neg"), s.tail(m.end()))
        else []
    )


def _b_breakup(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I broke up with my girlfriend (Anna)", "my boyfriend and I split up"."""
    name = m.groupdict().get("name")
    tail = s.tail(m.end())
    if name is None and re.match(r"\s*,?\s*[A-Z]", tail):
        name = person_name(tail.lstrip(" ,"), max_words=1)
    noun = FAMILY.get(m.group("rel").lower(), ("partner", m.group("rel").lower()))[1]
    named = f" named {name}" if name and name.lower() not in NAME_STOP else ""
    return [fact("partner", f"Has {article(noun)} {noun}{named}", negated=True, when=ended_on(m, s))]


def _b_pet_died(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = m.group("name")
    if name.lower() in NAME_STOP or not name[0].isupper():
        return []
    draft = kin_fact(m.group("rel"), None, name, negated=True, when=ended_on(m, s))
    return [draft] if draft else []


def _b_gave_up_food(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I gave up meat", "I stopped eating pork", "I quit drinking (coffee)"."""
    tail = s.tail(m.end())
    for d in s.dates("past"):  # "I gave up meat completely this year"
        tail = without(tail, m.end(), d)
    g = (m.group("g") or "").lower()
    items = objects(tail, max_words=2, max_items=4)
    if (
        not items
        and g == "drinking"
        and re.match(r"\s*(?:$|[,.;!]|and\b|last\b|a\b|two\b|three\b)", tail, re.IGNORECASE)
    ):
        items = ["alcohol"]
    if not items or (not g and not all(i.lower() in FOODS_GIVEN_UP for i in items)):
        return []
    return ended_eating(items, ended_on(m, s))


def _b_negated_like(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I don't like X" dislikes X; "I don't like X anymore", "I no longer enjoy X", "I used to love
    X", "I stopped liking X" end liking it. Likewise "I'm not into X (anymore)"."""
    tail = s.tail(m.end())
    if re.search(r"\bstill\b", tail, re.IGNORECASE):
        return []  # "I used to love jazz and still do"
    neg = m.groupdict().get("neg")
    ended = neg is None or ends(neg, tail)
    return prefs(objects(tail, max_words=5), dislike=not ended, negated=ended)


def _b_no_longer_hate(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    return prefs(objects(tail), dislike=True, negated=True) if ends(m.group("neg"), tail) else []


def _b_stopped_habit(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I stopped playing tennis", "I quit smoking", "I don't run anymore", "I used to play X"."""
    tail = s.tail(m.end())
    if (m.groupdict().get("neg") and not ends(m.group("neg"), tail)) or re.search(
        r"\bstill\b", tail, re.IGNORECASE
    ):
        return []
    verb = m.groupdict().get("v") or GERUNDS.get((m.groupdict().get("g") or "").lower(), "")
    obj = habit_object(tail, s, m.end())
    draft = (
        habit_fact(verb, obj or "", negated=True, when=ended_on(m, s)) if verb and obj is not None else None
    )
    return [draft] if draft else []


# "I'm done with cooking for today" is a pause, not an ending.
_FOR_NOW = re.compile(
    r"^[^,.;!?]*\b(?:for\s+(?:today|tonight|now|the\s+(?:day|night|week|weekend|season)|a\s+(?:while|bit))|"
    r"today|tonight|this\s+(?:morning|afternoon|evening))\b",
    re.IGNORECASE,
)
_ACTIVITY_OBJECT = re.compile(r"\s*((?:the\s+)?[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*)?)", re.IGNORECASE)


def _activity_content(phrase: str) -> str:
    """ "volleyball" -> "Plays volleyball", "yoga" -> "Does yoga", "hiking" -> "Hikes"."""
    low = phrase.lower().removeprefix("the ")
    if low in GAMES or low in INSTRUMENTS:
        return f"Plays {phrase}"
    if low in SPORTS:
        return f"Does {phrase}"
    first, *rest = phrase.split()
    base = GERUNDS.get(first.lower())
    if base in HABIT_VERBS and first.lower() not in GO_GERUNDS:
        return " ".join([third_person(base), *rest])
    return f"Goes {phrase}" if low in GO_GERUNDS else f"Does {phrase}"


def _b_gave_up_activity(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I gave up the guitar", "I quit volleyball", "I'm done with swimming": the activity ends,
    liked or done (one subject for both)."""
    tail = s.tail(m.end())
    obj = _ACTIVITY_OBJECT.match(tail)
    if not obj or _FOR_NOW.match(tail) or re.search(r"\bstill\b", tail, re.IGNORECASE):
        return []
    words = obj.group(1).split()
    # "table tennis", "the piano (this year)", else the first word: "volleyball (this year)"
    for n in dict.fromkeys((len(words), len(words) - 1, 1)):
        phrase = " ".join(words[:n])
        key = activity_key(phrase)
        if key and (n > 1 or not phrase.lower().startswith("the ")):
            return [fact(f"activity:{key}", _activity_content(phrase), negated=True, when=ended_on(m, s))]
    return []


def _partner_ended(name: str | None, m: re.Match[str], s: Sentence) -> list[Draft]:
    if name is None or name.lower() in NAME_STOP or name.lower() in FAMILY:
        return []
    return [fact("partner", f"Has a partner named {name[:1].upper()}{name[1:]}", negated=True,
                 when=ended_on(m, s))]  # fmt: skip


# After "we broke up / separated": nothing, or when it happened; "we separated the recycling" is not it.
_SPLIT_END = re.compile(
    r"\s*(?:$|[,.;!]|\b(?:(?:a|two|three|few|couple|some|\d+)\b[\w\s]{0,20}\bago|last\s+\w+|recently|"
    r"yesterday|this\s+\w+|in\s+\w+|on\s+\w+|for\s+good|anymore|any\s+more|after\b|and\b|but\b|so\b)\b)",
    re.IGNORECASE,
)


def _b_split_with(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Freya and I separated", "me and Clara aren't together anymore", "we broke up": the partner
    slot ends, whoever is in it (the name is only what the content says)."""
    tail = s.tail(m.end())
    if not _SPLIT_END.match(tail):
        return []
    if m.groupdict().get("together") and not ends("not", tail):
        return []
    name = m.groupdict().get("name") or m.groupdict().get("name2")
    if name is None:
        return [fact("partner", "Has a partner", negated=True, when=ended_on(m, s))]
    if (
        s.text[: m.start("name") if m.groupdict().get("name") else m.start()]
        .rstrip()
        .lower()
        .endswith(("my", "our", "his", "her", "their", "your"))
    ):
        return []
    return _partner_ended(name, m, s)


def _b_plan_cancelled(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I had to cancel Iceland", "we're not going to Hanoi anymore", "the Athens trip is
    cancelled": the plan about that place or act ends (plans are keyed by the proper noun in them)."""
    tail = s.tail(m.end())
    if m.groupdict().get("neg") and not ends(m.group("neg"), tail):
        return []
    target = m.groupdict().get("what") or tail
    if re.search(r"'s?\b|\b(?:" + "|".join(FAMILY) + r")\b", m.groupdict().get("what") or "", re.IGNORECASE):
        return []  # "my sister's Rome trip": someone else's
    key = proper_key(target, s.lower_only)
    if not key:
        return []
    return [fact(f"plan:{key}", f"Plans to go to {key.title()}", negated=True)]


_COURSE = re.compile(rf"\s*(?:(?:an?|the|my)\s+)?((?:[\w-]+\s+){{0,2}}?(?:{STUDIES}))\b", re.IGNORECASE)


def _b_course_dropped(m: re.Match[str], s: Sentence) -> list[Draft]:
    """The plan keyed by the course's words ends (reconciliation ends every plan whose key has
    them all: "plan:start woodworking class" by "plan:woodworking class")."""
    course = _COURSE.match(s.tail(m.end()))
    if not course:
        return []
    what = course.group(1)
    return [fact(f"plan:{slot_key(what)}", f"Plans to take {course_phrase(what)}", negated=True)]


def _b_left_known_employer(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I left Spotify last month", "I left SAP and joined Maersk": "left" with a place, a party or a
    window as easily ("I left Paris", "I left Google Maps open"), so only a well-known employer, or one
    the clause says was swapped for another."""
    tail = s.tail(m.end())
    org = organisation(tail, s)
    if not org:
        return []
    rest = tail[tail.find(org) + len(org) :]
    swapped = re.match(
        r"\s*(?:,\s*)?(?:and\s+(?:i\s+)?(?:then\s+)?(?:joined|started\s+(?:at|working))|to\s+join)\b",
        rest,
        re.IGNORECASE,
    )
    if swapped:  # the new employer ("joined Maersk") supersedes it, which links the two
        return []
    if org.lower() not in EMPLOYERS:
        return []
    if org.lower() in EMPLOYERS and re.match(
        r"\s+[a-z]+\s+(?:open|on|off|behind)\b|\s+(?:open|on|behind)\b", rest
    ):
        return []
    return [employer_fact(org, negated=True, when=ended_on(m, s))]


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    ("not_live", "live", b_place("Lives in {}", "home", negated=True),
     rf"\b(?:i|we)\s+(?P<neg>no\s+longer|{DONT}|used\s+to)\s+(?:really\s+)?live\s+(?:in|on)\s+"),
    ("not_living", "living based", b_place("Lives in {}", "home", negated=True),
     rf"{BE}\s+(?P<neg>no\s+longer|not)\s+(?:living|based)\s+in\s+"),
    ("moved_from", "moved", _b_moved_from,
     r"\b(?:i|we)(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|"
     r"actually)\s+){0,2}moved\s+(?:away\s+from|out\s+of|from)\s+"),
    ("not_employer", "work", _b_left_employer,
     rf"\bi\s+(?P<neg>no\s+longer|{DONT}|used\s+to)\s+work\s+(?:at|for|with)\s+"),
    ("quit_employer", "quit left resigned retired", _b_left_employer,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|officially)\s+){0,2}(?P<v>quit|left|"
     r"resigned\s+from|retired\s+from)"
     r"\s+(?P<job>my\s+(?:job|position|role|post)\s+(?:at|with)\s+)?"),
    # "I handed in my notice at Shopify", "I gave my notice to Bosch": the job ends.
    ("notice", "notice resignation", _b_gave_notice,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|finally|officially|already)\s+)?(?:handed\s+in|gave|given|put\s+in|"
     r"turned\s+in|submitted|hand\s+in)\s+(?:my|in\s+my)\s+(?:two\s+weeks'?\s+)?(?:notice|resignation)\s+"
     r"(?:at|to|with)\s+"),
    ("fired", "fired laid let sacked redundant", _b_left_employer,
     r"\bi\s+(?:got|was|have\s+been|'ve\s+been|just\s+got)\s+(?:fired|laid\s+off|let\s+go|sacked|"
     r"made\s+redundant)"
     r"\s+(?:from|by|at)\s+"),
    ("stopped_working", "stopped", _b_left_employer,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+stopped\s+working\s+(?:at|for)\s+"),
    ("no_longer_at", "no not", _b_left_employer,
     rf"{IM}\s+(?P<neg>no\s+longer|not)\s+(?:working\s+(?:at|for)|employed\s+(?:at|by)|with)\s+"),
    ("not_job", "no not", _b_left_job, rf"{IM}\s+(?P<neg>no\s+longer|not)\s+an?\s+"),
    ("used_to_be", "used", _b_left_job, r"\bi\s+used\s+to\s+(?:be\s+an?|(?P<free>work\s+as(?:\s+an?)?))\s+"),
    ("former_job", "former ex", _b_left_job, rf"{IM}\s+(?:an?\s+)?(?:former|ex-|ex)\s*"),
    ("quit_job_as", "quit left", _b_left_job,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally)\s+){0,2}(?:quit|left)\s+my\s+(?:job|position|"
     r"role)\s+as\s+"
     r"(?P<free>an?\s+)?"),
    ("not_diet", "no not", b_diet,
     rf"{IM}\s+(?P<neg>no\s+longer|not)\s+(?:an?\s+)?(?P<d>{DIET})(?![\w-])"),
    ("stopped_diet", "being used", b_diet,
     rf"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just)\s+)?(?P<stop>stopped\s+being|quit\s+being|gave\s+up\s+being|"
     rf"used\s+to\s+be)\s+"
     rf"(?:an?\s+)?(?P<d>{DIET})(?![\w-])"),
    ("not_married", "married", _b_not_married, rf"{BE}\s+(?P<neg>no\s+longer|not)\s+married\b"),
    ("breakup", "broke split separated", _b_breakup,
     r"\b(?:i|we)\s+(?:(?:just|recently|finally|have|'ve)\s+){0,2}(?:broke\s+up|split\s+up|split|"
     r"separated)\s+"
     r"(?:with|from)\s+my\s+(?P<rel>girlfriend|boyfriend|partner|fianc[eé]e?|wife|husband)\b"),
    ("breakup_we", "broke split", _b_breakup,
     r"\bmy\s+(?P<rel>girlfriend|boyfriend|partner|fianc[eé]e?)\s+(?:(?P<name>[A-Z][^\W\d_]+)\s+)?"
     r"and\s+i\s+(?:just\s+|recently\s+)?(?:broke|split)\s+up\b"),
    ("divorced_from", "divorced", _b_breakup,
     r"\bi\s+(?:(?:just|recently|finally)\s+)?divorced\s+my\s+(?P<rel>wife|husband|partner)\b"),
    ("pet_died", "died passed", _b_pet_died,
     rf"\bmy\s+(?P<rel>{PET_ALT})\s*,?\s+(?P<name>[^\W\d_]+)\s*,?\s+(?:just\s+|sadly\s+|recently\s+)?"
     r"(?:passed\s+away|died|passed|was\s+put\s+down)\b", "unanchored"),
    ("not_allergic", "allergic", b_allergic_to, rf"{IM}\s+(?P<neg>no\s+longer|not)\s+allergic\s+to\s+"),
    ("dont_eat", "eat drink", b_dont_eat,
     rf"\bi\s+(?P<neg>no\s+longer|{DONT}|never|used\s+to)\s+(?:really\s+)?(?P<v>eat|drink)\s+"),
    ("gave_up_food", "stopped quit gave cut", _b_gave_up_food,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|completely)\s+){0,2}(?:stopped|quit|gave\s+up|"
     r"cut\s+out)\s+"
     r"(?:(?P<g>eating|drinking)\b\s*)?"),
    ("dont_like", "like love enjoy care", _b_negated_like,
     rf"\bi\s+(?:(?:really|just|honestly|seriously|genuinely|truly)\s+)?(?P<neg>no\s+longer|{DONT}|never)\s+"
     rf"(?:really\s+|particularly\s+|much\s+)?(?:like|love|enjoy|"
     rf"care\s+for)\s+"),
    ("stopped_liking", "liking loving enjoying used", _b_negated_like,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+stopped\s+(?:liking|loving|enjoying)\s+|\bi\s+used\s+to\s+(?:like|love|"
     r"enjoy|"
     r"be\s+(?:really\s+)?into|be\s+an?\s+(?:big\s+|huge\s+)?fan\s+of)\s+"),
    ("not_into", "into fan keen crazy", _b_negated_like,
     rf"{IM}\s+(?P<neg>no\s+longer|not)\s+(?:really\s+|that\s+|very\s+|much\s+of\s+)?(?:into|"
     rf"an?\s+(?:big\s+|huge\s+)?"
     r"fan\s+of|keen\s+on|crazy\s+about)\s+"),
    ("no_longer_hate", "hate dislike", _b_no_longer_hate,
     rf"\bi\s+(?P<neg>no\s+longer|{DONT})\s+(?:hate|dislike)\s+"),
    ("dont_habit", " ".join(HABIT_VERBS) + " out", _b_stopped_habit,
     rf"\bi\s+(?P<neg>no\s+longer|{DONT}|used\s+to)\s+(?:really\s+)?(?P<v>{HABIT})\b"),
    ("stopped_habit", "stopped quit quitted gave", _b_stopped_habit,
     rf"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|completely)\s+){{0,2}}(?:stopped|quit|"
     rf"quitted|gave\s+up)\s+"
     rf"(?P<g>{HABIT_GERUND})\b"),
    ("gave_up_activity", "gave quit stopped dropped done", _b_gave_up_activity,
     rf"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|completely|officially|kind\s+of)\s+){{0,2}}"
     rf"(?:gave\s+up|quit|stopped|dropped)\s+|{IM}\s+(?:(?:so|totally|completely|officially|just|kinda)\s+)?"
     r"done\s+with\s+"),
    ("split_with", "broke split separated together divorced", _b_split_with,
     r"\b(?:(?P<name>[^\W\d_][\w'-]*)\s+and\s+(?:i|me)|me\s+and\s+(?P<name2>[^\W\d_][\w'-]*)|we)\s+"
     r"(?:(?:just|recently|finally|officially|have|'ve)\s+){0,2}"
     r"(?:broke\s+up|split\s+up|separated|split|divorced|got\s+divorced|"
     r"(?P<together>(?:are|'re)\s+(?:not|no\s+longer)|aren't)\s+together)\b", "unanchored"),
    ("plan_cancelled", "cancel cancelled canceled called going", _b_plan_cancelled,
     r"\b(?:i|we)(?:\s*'\s*ve|\s+have)?\s+(?:(?:had\s+to|just|finally|sadly|also)\s+){0,2}"
     r"(?:cancel(?:l?ed)?|called\s+off)\s+(?:(?:my|our|the)\s+(?:\w+\s+)?(?:trip|vacation|holiday|visit|"
     r"flight|tickets?)\s+(?:to|for)\s+)?|"
     rf"{BE}\s+(?P<neg>no\s+longer|not)\s+(?:going|flying|travell?ing|heading)\s+to\s+(?:see\s+)?"),
    ("trip_cancelled", "cancelled canceled off", _b_plan_cancelled,
     r"\b(?:the|my|our)\s+(?P<what>(?:[^\W\d_][\w'-]*\s+){1,3}?)(?:trip|vacation|holiday|visit|concert|gig|"
     r"show|flight|tour)\s+(?:is|was|got|has\s+been|'s)\s+(?:(?:now|just|officially)\s+)?(?:cancel(?:l?ed)|"
     r"called\s+off|off)\b"),
    # "I'm not doing the pottery class after all", "I dropped out of my Spanish course": a course ends.
    ("course_dropped", "after dropped", _b_course_dropped,
     rf"{IM}\s+not\s+(?:doing|taking|starting)\s+(?=[^,.;!?]*\bafter\s+all\b)|"
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|finally|already)\s+)?(?:dropped\s+out\s+of|quit|cancell?ed)\s+"
     r"(?=(?:an?|the|my)\s+)"),
    ("left_employer", "left", _b_left_known_employer,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|officially)\s+){0,2}left\s+"),
))  # fmt: skip
