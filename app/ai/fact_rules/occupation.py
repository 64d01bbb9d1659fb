"""Occupation rules: job title, employer, industry, job status, studies and school."""

from __future__ import annotations

import re
from datetime import date

from app.ai.fact_rules.drafts import Draft, Rule, fact, rule
from app.ai.fact_rules.names import EMPLOYERS, organisation
from app.ai.fact_rules.phrases import article, checked, past_day, plain_object, singular, slot_key, trim
from app.ai.fact_rules.sentences import END, IM, IVE, NOW, Sentence
from app.ai.fact_rules.words import (
    FIELDS,
    JOB_NOUNS,
    NOT_TITLES,
    STUDENT_DEGREES,
    alternation,
    word_pairs,
    word_set,
)

_TITLE_END = re.compile(
    r"\s+(?:at|for|with|in|from|since|and|but|so|because|who|which|that|on|by|of|near|now|here|there|these|"
    r"this|currently|full-time|part-time|remotely|lol|haha|btw|tbh|now|though|too)\b|[,;:!?()\"]|\.(?:\s|$)",
    re.IGNORECASE,
)


def job_title(tail: str, *, free: bool) -> tuple[str, int] | None:
    """A job title opening `tail` and where it ends. Unless `free` ("I work as ..."), its last
    word must be a job noun, and no word before it an opinion ("a good cook" is not a job)."""
    m = _TITLE_END.search(tail)
    title = trim(tail[: m.start()] if m else tail)
    words = title.split()
    if not checked(title, 4) or any(w.lower() in NOT_TITLES for w in words):
        return None
    if not all(re.fullmatch(r"[^\W\d_][\w&'/.-]*", w) for w in words):
        return None
    if not free and singular(words[-1]) not in JOB_NOUNS and words[-1].lower() not in JOB_NOUNS:
        return None
    return title, tail.find(title) + len(title)


def job_fact(title: str, det: str | None = None, *, negated: bool = False, when: date | None = None) -> Draft:
    return fact("job_title", f"Works as {det or article(title)} {title}", negated=negated, when=when)


def employer_fact(org: str, *, negated: bool = False, when: date | None = None) -> Draft:
    return fact("employer", f"Works at {org}", negated=negated, when=when)


def _org_after(rest: str, s: Sentence, preps: str = "at|for|with") -> str | None:
    m = re.match(rf"\s*,?\s*(?:{preps})\s+", rest, re.IGNORECASE)
    return organisation(rest[m.end() :], s) if m else None


def _b_work_as(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    det = re.match(r"\s*(an?|the)\s+", tail, re.IGNORECASE)
    body = tail[det.end() :] if det else tail
    found = job_title(body, free=True)
    if not found:
        return []
    org = _org_after(body[found[1] :], s)
    return [job_fact(found[0], det.group(1).lower() if det else None)] + ([employer_fact(org)] if org else [])


_WHEN = word_set("full-time part-time mature first-year second-year third-year final-year")


def _student(mods: list[str], rest: str, s: Sentence) -> list[Draft]:
    """ "I'm a (law | PhD) student (of X) (at Y)"."""
    degree = [w for w in mods if w.lower() in STUDENT_DEGREES]
    subject_words = [w for w in mods if w.lower() not in STUDENT_DEGREES]
    of = re.match(r"\s+of\s+([^\W\d_][\w\s-]{1,40})", rest, re.IGNORECASE)
    studied = " ".join(subject_words) or (plain_object(of.group(1), max_words=3) or "" if of else "")
    studied = {"med": "medicine", "medical": "medicine"}.get(studied.lower(), studied)
    if studied and checked(studied, 3):
        out = [fact("studies", f"Studies {studied}")]
    elif degree and not subject_words:
        label = " ".join(
            "PhD" if w.lower() in ("phd", "ph.d") else w for w in degree if w.lower() not in _WHEN
        )
        out = [fact("studies", f"Is {article(label)} {label} student" if label else "Is a student")]
    elif not mods:
        out = [fact("studies", "Is a student")]
    else:
        return []
    school = _org_after(rest[of.end() :] if of else rest, s, "at|in")
    return out + ([fact("school", f"Studies at {school}")] if school else [])


def _b_im_a(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm a nurse (at X)", "I'm the CEO of X", "I'm a law student"."""
    det = m.group("det").lower()
    tail = s.tail(m.end())
    found = job_title(tail, free=False)
    if not found:
        return []
    title, end = found
    if title.split()[-1].lower() == "student":
        return _student(title.split()[:-1], tail[end:], s)
    if "retired" in title.lower().split():
        return [fact("job_title", "Is retired")]
    if det != "the":
        org = _org_after(tail[end:], s)
        return [job_fact(title, det)] + ([employer_fact(org)] if org else [])
    of = re.match(r"\s+(?:of|at|for)\s+", tail[end:], re.IGNORECASE)
    org = organisation(tail[end + of.end() :], s) if of else None
    if of is None or org is None:
        return []  # "I'm the driver tonight": a role, not a job
    return [job_fact(f"{title} {of.group().strip()} {org}", "the"), employer_fact(org)]


# Words that make "I joined X" / "I'm at X now" a job and not a gym, a club or a café.
_JOB_CONTEXT = re.compile(
    r"\b(?:jobs?|careers?|hired|employer|company|team|position|role|left|quit|switched|offer)\b",
    re.IGNORECASE,
)


def _b_joined(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I joined Maersk last month", "I left SAP and joined Maersk": an employer when it is a
    well-known one or the sentence speaks of a job ("I joined Reddit" is not)."""
    org = organisation(s.tail(m.end()), s)
    if not org or (org.lower() not in EMPLOYERS and not _JOB_CONTEXT.search(s.text)):
        return []
    return [employer_fact(org)]  # undated: "last month" would date it before the job it replaces


def _b_my_job_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "my job at Atlassian keeps me busy": the job they have (not "my old / last job at X", nor the
    job "I lost my job at X" or "since I quit my job at X" speaks of: that one ended)."""
    if _JOB_GONE.search(s.text[max(0, m.start() - 40) : m.start()]):
        return []
    org = organisation(s.tail(m.end()), s)
    return [employer_fact(org)] if org else []


_JOB_GONE = re.compile(
    r"\b(?:lost|lose|losing|quit|quitting|left|leaving|leave|miss|missed|hated|hate|about|after|since|"
    r"from|fired\s+from|laid\s+off\s+from)\s*$",
    re.IGNORECASE,
)


def _b_at_org_now(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I switched jobs, I'm at Ubisoft now": "at X now" is a job only where the sentence says so."""
    tail = s.tail(m.end())
    org = organisation(tail, s)
    if not org or not _JOB_CONTEXT.search(s.text):
        return []
    if not re.match(
        r"\s*(?:now|these\s+days)?(?:\s+(?:haha+|lol|tbh|lmao|btw))?\s*(?:$|[,.;!])",
        tail[tail.find(org) + len(org) :],
        re.IGNORECASE,
    ):
        return []
    return [employer_fact(org)]


def _b_week_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Long week at Cisco", "busy day at the hospital", "first week at Bosch done": where one spends
    working weeks. A name of a well-known employer or a sentence about work ("at work", "my team",
    "being a nurse"); a first week only at an employer."""
    org = organisation(s.tail(m.end()), s)
    if not org or (org.lower() not in EMPLOYERS and not _WORK_TALK.search(s.text)):
        return []
    return [employer_fact(org)]


def _b_things_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Things at Adobe are hectic right now, we have a big launch at work": only when the sentence
    says the writer works there (at work, our launch, my team)."""
    tail = s.tail(m.end())
    org = organisation(tail, s)
    if not org or not _WORK_TALK.search(s.text):
        return []
    rest = tail[tail.find(org) + len(org) :]
    if not re.match(r"\s*(?:are|'re|have\s+been|got|were)\b", rest, re.IGNORECASE):
        return []
    return [employer_fact(org)]


def _b_offer_from(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I got an offer from Novartis and took it", "I accepted an offer from Bosch": the new employer."""
    tail = s.tail(m.end())
    org = organisation(tail, s)
    if not org:
        return []
    rest = tail[tail.find(org) + len(org) :]
    if not (m.group("took") or re.match(r"\s*(?:,\s*)?and\s+(?:i\s+)?(?:took|accepted)\s+it\b", rest, re.I)):
        return []
    return [employer_fact(org)]


def _b_being_a(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Being a nurse is exhausting some days": said of one's own job, with nothing before it."""
    tail = s.tail(m.end())
    verb = _BEING_VERB.search(tail)
    title = tail[: verb.start()] if verb else ""
    found = job_title(title, free=False) if title else None
    if not found or found[1] != len(title.rstrip()):
        return []
    return [job_fact(found[0], m.group("det").lower())]


_BEING_VERB = re.compile(r"\s+(?:is|has|can\s+be|means|isn't)\b", re.IGNORECASE)


_WORK_TALK = re.compile(
    r"\b(?:at\s+work|(?:my|our)\s+(?:team|boss|manager|shift|launch|project|office|clients?)|"
    r"we\s+have\s+(?:a\s+)?(?:big\s+)?(?:launch|deadline|release)|being\s+an?\s+\w+)",
    re.IGNORECASE,
)


def _b_work_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    if re.match(r"\s*myself\b", tail, re.IGNORECASE):
        return [fact("employer", "Is self-employed")]
    if m.group("perfect") and not re.search(
        r"\bfor\s+(?:\w+\s+){0,2}(?:years?|months?|weeks?)\b|\bsince\b", tail, re.IGNORECASE
    ):
        return []  # "I've worked at Google": past experience, unless it goes on ("for 5 years")
    org = organisation(tail, s)
    if not org or (m.group("been") and org.lower() not in EMPLOYERS):  # "I've been with Tom for years"
        return []
    out = [employer_fact(org, when=past_day(m, s) if m.group("started") else None)]
    as_ = re.match(r"\s*,?\s*as\s+(an?\s+|the\s+)?", tail[tail.find(org) + len(org) :], re.IGNORECASE)
    found = job_title(tail[tail.find(org) + len(org) + as_.end() :], free=True) if as_ else None
    if as_ and found:
        out.append(job_fact(found[0], as_.group(1).strip().lower() if as_.group(1) else None))
    return out


def _b_new_job(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I (just) started / got a new job (as a designer) at Initech"."""
    tail = s.tail(m.end())
    when = past_day(m, s)
    out: list[Draft] = []
    as_ = re.match(r"\s*as\s+(an?\s+|the\s+)?", tail, re.IGNORECASE)
    rest = tail
    if as_:
        found = job_title(tail[as_.end() :], free=True)
        if not found:
            return []
        out.append(job_fact(found[0], as_.group(1).strip().lower() if as_.group(1) else None, when=when))
        rest = tail[as_.end() + found[1] :]
    org = _org_after(rest, s, "at|with")
    return ([employer_fact(org, when=when)] if org else []) + out


def _b_work_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    f = re.match(
        rf"\s*((?:{alternation(FIELDS)})|the\s+[a-z]+(?:\s+[a-z]+)?\s+(?:industry|sector))(?![\w-])",
        tail,
        re.IGNORECASE,
    )
    return [fact("industry", f"Works in {f.group(1)}")] if f else []


_JOB_STATUS = {
    **dict.fromkeys(("self-employed", "self employed"), ("employer", "Is self-employed")),
    **dict.fromkeys(("unemployed", "between jobs", "out of work", "jobless"), ("job_title", "Is unemployed")),
    "retired": ("job_title", "Is retired"),
}


def _b_job_status(m: re.Match[str], s: Sentence) -> list[Draft]:
    st = " ".join(m.group("st").lower().split())
    if st.startswith("a stay"):
        return [fact("job_title", f"Is a stay-at-home {st.split()[-1]}")]
    subject, content = _JOB_STATUS[st]
    return [fact(subject, content)]


def b_retired(m: re.Match[str], s: Sentence) -> list[Draft]:
    return [fact("job_title", "Is retired", when=past_day(m, s))]


_STUDY_BAD = word_set(
    """for hard abroad every tonight now at in all late a the with online remotely together full part on
    about up there here lots so really"""
)


_STUDY_END = re.compile(r"\s+(?:at|in|for|with|since|now|every|online|part-time|full-time)\b", re.IGNORECASE)


def _b_study(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    out: list[Draft] = []
    rest = tail
    if (tail.split() or [""])[0].lower().strip(".,!?;:") not in _STUDY_BAD:
        studied = plain_object(_STUDY_END.split(tail, maxsplit=1)[0])
        if not studied:
            return []
        out.append(fact("studies", f"Studies {studied}"))
        rest = tail[tail.find(studied) + len(studied) :]
    school = _org_after(rest, s, "at")
    return out + ([fact("school", f"Studies at {school}")] if school else [])


def _b_degree(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    studied = plain_object(re.split(r"\s+(?:at|from|now)\b", tail, maxsplit=1, flags=re.IGNORECASE)[0])
    if not studied:
        return []
    deg = m.group("deg")
    deg = word_pairs("phd:PhD ph.d:PhD ph.d.:PhD mba:MBA msc:MSc bsc:BSc").get(deg.lower(), deg)
    school = _org_after(tail[tail.find(studied) + len(studied) :], s, "at")
    out = [fact("studies", f"Is doing {article(deg)} {deg} in {studied}")]
    return out + ([fact("school", f"Studies at {school}")] if school else [])


def _b_graduated_from(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = organisation(s.tail(m.end()), s)
    return [fact(f"alma_mater:{slot_key(org)}", f"Graduated from {org}", when=past_day(m, s))] if org else []


_DEGREE = (
    r"phd|ph\.d\.?|doctorate|master'?s(?:\s+degree)?|masters|bachelor'?s(?:\s+degree)?|degree|mba|msc|bsc"
)


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    ("work_as", "as", _b_work_as, rf"\bi\s+{NOW}work\s+as\s+|{IM}\s+{NOW}(?:working|employed)\s+as\s+"),
    ("work_at", "work working employed worked been", _b_work_at,
     rf"\bi\s+{NOW}work\s+(?:at|for)\s+|{IM}\s+{NOW}(?:working|employed)\s+(?:at|for|by)\s+|"
     rf"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally)\s+)?(?P<started>started\s+working)\s+(?:at|for)\s+|"
     rf"(?P<perfect>{IVE}\s+(?:been\s+working|worked)\s+(?:at|for|with)\s+|(?P<been>{IVE}\s+been\s+(?:at|with)\s+))"),
    ("new_job", "job position role gig", _b_new_job,
     r"\bi\s+(?:(?:just|recently|finally|officially)\s+)?(?:started|got|landed|accepted|took|found)\s+"
     r"(?:a\s+|my\s+|the\s+)?(?:new\s+)?(?:job|position|role|gig)\b"),
    ("job_status", "employed unemployed retired jobless jobs work home", _b_job_status,
     rf"{IM}\s+(?:(?:now|currently|officially|finally)\s+)?(?P<st>self[-\s]employed|unemployed|retired|"
     rf"jobless|"
     rf"between\s+jobs|out\s+of\s+work|a"
     rf"\s+stay[-\s]at[-\s]home\s+(?:mom|mum|dad|parent|mother|father)){END}"),
    ("retired", "retired", b_retired,
     r"\bi\s+(?:(?:just|finally|recently|officially)\s+)?retired\b(?!\s+from)"),
    ("degree", "doing pursuing working studying", _b_degree,
     rf"{IM}\s+(?:(?:currently|also|now)\s+)?(?:doing|pursuing|working\s+on|studying\s+for)\s+(?:an?|my)\s+"
     rf"(?P<deg>{_DEGREE})\s+in\s+"),
    ("study", "study studying", _b_study,
     rf"\bi\s+(?:(?:currently|also|now|still)\s+)?study\s+|{IM}\s+(?:(?:currently|also|now|"
     rf"still)\s+)?studying\s+"),
    ("graduated_from", "graduated", _b_graduated_from,
     r"\bi\s+(?:(?:just|recently|finally|officially)\s+)?graduated\s+from\s+"),
    ("im_a", "i im", _b_im_a,
     rf"{IM}\s+(?:(?:currently|now|also|actually|still|just)\s+)?(?P<det>an?|the)\s+"),
    ("work_in", "work", _b_work_in, rf"\bi\s+{NOW}work\s+in\s+"),
    # "As a nurse, I never get weekends off": true of the user even in a question that follows.
    ("as_a", "as", _b_im_a,
     r"\bas\s+(?P<det>an?)\s+(?=[^,.;!?]{2,40}(?:$|,?\s+(?:i|i'm|im|i've|my|me)\b))", "anywhere"),
    ("been_a", "been", _b_im_a,
     r"\bi(?:\s*'\s*ve|\s+have)\s+(?:(?:now|also)\s+)?been\s+(?P<det>an?)\s+(?=[^.;!?]*\b(?:for|since)\b)"),
    ("my_job_at", "job", _b_my_job_at,
     r"\bmy\s+(?:(?:new|current|day)\s+)?job\s+(?:at|with)\s+", "unanchored"),
    ("joined", "joined", _b_joined,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|officially)\s+){0,2}joined\s+"),
    ("at_org_now", "now", _b_at_org_now, rf"{IM}\s+(?:now\s+)?(?:at|with)\s+(?=[^.;!?]*\bnow\b)"),
    ("week_at", "week day shift month", _b_week_at,
     r"^\W*(?:(?:so|ugh|phew|what\s+a|another|such\s+a)\W+){0,2}(?:long|busy|hard|rough|crazy|tough|hectic|first)\s+"
     r"(?:week|day|shift|month)\s+at\s+"),
    ("things_at", "things", _b_things_at, r"^\W*(?:(?:so|ugh|also|btw|well)\W+){0,2}things\s+at\s+"),
    ("offer_from", "offer", _b_offer_from,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|finally|recently)\s+)?(?:got|received|had|(?P<took>accepted|took))\s+"
     r"(?:an?|the|their)\s+(?:job\s+)?offer\s+(?:from|at)\s+"),
    ("being_a", "being", _b_being_a,
     r"(?:^\W*(?:(?:honestly|tbh|ugh|so)\W+){0,2}|,\s*)being\s+(?P<det>an?)\s+", "unanchored"),
))  # fmt: skip
