"""Deterministic generator of multi-session chats with planted user facts, updates and negations.

    .venv/bin/python -m bench.facts.generate --seed 7 --users 30 --out /tmp/facts.json

Each user has a persona drawn from lists below (name, age, hometown, languages, home city,
employer and job title, partner, siblings, children, pets, diet, allergies, likes and dislikes of
food, music and activities, plans with dates, past events). Facts are planted in USER turns with
several phrasings each, as people write in chats: casual, sometimes lower-case, with fillers
("btw", "haha"), some implicit ("here in Porto it's raining"), some only as a terse answer to
the assistant's question, a few combined in one message ("I'm Ana, 34, living in Lisbon").
Later sessions change things: a move (home A -> B), a new job, a new partner (directly or after
a break-up), a birthday, a diet that becomes stricter; and end things: "I quit my job at X",
"I don't play tennis anymore", "I don't eat meat anymore" after "I love steak", "the Rome trip
is cancelled". Facts are also mentioned again in other words in later sessions.

Around them, most user turns are things that must NOT become facts about the user: questions,
hypotheticals ("if I lived in Paris..."), other people's facts ("my colleague lives in
Berlin"), passing moods ("so tired today"), tasks for the assistant, the assistant's own
suggestions answered with "maybe". Distractor values (cities, companies, pets, ...) never
collide with any value of the same user's persona, so a fact taken from a distractor cannot
match the gold by accident.

The phrasings were written from how people chat, not from what any extractor matches; do not
tune them to an extractor's rules (see README.md).

Gold, per user (`gold`): every fact with its accepted kinds, slot, key `terms` (any one must
appear in an extracted fact's content), `polarity` ("-" for dislikes: the content must say so),
`status` at the end (`valid`, `superseded` with `superseded_by`, or `negated`), `required`
(False: true and acceptable, but not expected; e.g. "Doesn't eat meat." after "I stopped eating
meat"), `date` for plans and events when the text pins a day, and the keys (`session_id:seq`) of
the messages that planted, repeated and ended it. `updates` lists the supersede chains (old ->
new, exclusive slots), `negations` the facts the user ended without a new value.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

# --- lexicon ---------------------------------------------------------------------------------------

FEMALE = [
    "Ana", "Maria", "Sofia", "Emma", "Clara", "Ines", "Laura", "Julia", "Marta", "Elena", "Nora",
    "Hannah", "Lucy", "Chloe", "Mia", "Zoe", "Alice", "Eva", "Rosa", "Priya", "Aisha", "Yuki",
    "Lena", "Camille", "Greta", "Olivia", "Freya", "Isabel", "Naomi", "Tessa", "Ruth", "Daria",
]  # fmt: skip
MALE = [
    "Tom", "Luke", "Pedro", "Marco", "David", "Jonas", "Felix", "Oscar", "Leo", "Hugo", "Sam",
    "Ben", "Daniel", "Rafael", "Tiago", "Anton", "Ravi", "Omar", "Kenji", "Mateo", "Ethan",
    "Noah", "Lucas", "Victor", "Simon", "Adrian", "Milan", "Theo", "Jakob", "Elias", "Ivan", "Paul",
]  # fmt: skip
CITIES = [
    "Lisbon", "Porto", "Berlin", "Munich", "Hamburg", "Madrid", "Barcelona", "Valencia", "Lyon",
    "Marseille", "Milan", "Turin", "Vienna", "Prague", "Warsaw", "Krakow", "Dublin", "Edinburgh",
    "Manchester", "Bristol", "Amsterdam", "Rotterdam", "Copenhagen", "Stockholm", "Oslo",
    "Helsinki", "Toronto", "Vancouver", "Montreal", "Chicago", "Denver", "Seattle", "Austin",
    "Boston", "Melbourne", "Sydney", "Auckland", "Brussels", "Zurich", "Glasgow",
]  # fmt: skip
HOMETOWNS = [
    "Brazil", "Poland", "Ireland", "Mexico", "Kenya", "India", "Vietnam", "Greece", "Chile",
    "Nigeria", "Romania", "Argentina", "Scotland", "Curitiba", "Gdansk", "Cork", "Guadalajara",
    "Naples", "Seville", "Bologna", "Leipzig", "Nantes", "Galway", "Bilbao", "Ghent",
]  # fmt: skip
DESTINATIONS = [
    "Tokyo", "Kyoto", "Rome", "Athens", "Istanbul", "Reykjavik", "Marrakech", "Lima", "Hanoi",
    "Bali", "Seoul", "New York", "Cape Town", "Havana", "Budapest", "Crete", "Sicily", "Iceland",
    "Peru", "Bangkok", "Vietnam", "Sardinia", "the Azores", "Norway",
]  # fmt: skip
COMPANIES = [
    "Siemens", "Deloitte", "Accenture", "Spotify", "Zalando", "Shopify", "Bosch", "IKEA",
    "Philips", "Unilever", "Vodafone", "Ericsson", "Airbus", "Salesforce", "Adobe", "Atlassian",
    "Revolut", "Klarna", "SAP", "Oracle", "Cisco", "Lidl", "Decathlon", "Novartis", "Heineken",
    "Nokia", "Ubisoft", "Booking", "Canva", "Maersk", "Danone", "Bayer",
]  # fmt: skip
TITLES = [
    "nurse", "software engineer", "data analyst", "teacher", "architect", "accountant",
    "graphic designer", "pharmacist", "electrician", "chef", "lawyer", "physiotherapist",
    "product manager", "journalist", "civil engineer", "dentist", "translator",
    "marketing manager", "vet", "UX designer", "project manager", "paramedic", "librarian",
    "mechanic",
]  # fmt: skip
LANGUAGES = [
    "Portuguese", "Spanish", "German", "French", "Italian", "Polish", "Dutch", "Mandarin",
    "Hindi", "Arabic", "Greek", "Swedish", "Romanian", "Turkish", "Korean", "Russian",
]  # fmt: skip
# (key term of the gold, how it is said)
FOODS = [
    ("sushi", "sushi"), ("ramen", "ramen"), ("taco", "tacos"), ("pizza", "pizza"),
    ("dumpling", "dumplings"), ("curry", "curry"), ("pho", "pho"), ("dark chocolate", "dark chocolate"),
    ("cheesecake", "cheesecake"), ("falafel", "falafel"), ("kimchi", "kimchi"), ("pad thai", "pad thai"),
    ("croissant", "croissants"), ("lasagna", "lasagna"), ("risotto", "risotto"), ("pancake", "pancakes"),
]  # fmt: skip
MUSIC = [
    ("jazz", "jazz"), ("techno", "techno"), ("metal", "metal"), ("classical", "classical music"),
    ("hip hop", "hip hop"), ("k-pop", "k-pop"), ("indie", "indie rock"), ("reggae", "reggae"),
    ("opera", "opera"), ("punk", "punk"), ("blues", "blues"), ("Beatles", "the Beatles"),
    ("Taylor Swift", "Taylor Swift"), ("Radiohead", "Radiohead"), ("salsa", "salsa music"),
]  # fmt: skip


@dataclass(frozen=True)
class Activity:
    terms: tuple[str, ...]  # any of these in the content ("*" ends a prefix)
    verb: str  # "play tennis": I ___ every weekend
    gerund: str  # "playing tennis": I love ___
    noun: str  # "tennis": I gave up ___


ACTIVITIES = [
    Activity(("tennis",), "play tennis", "playing tennis", "tennis"),
    Activity(("running", "runs", "runner", "run", "jog*"), "go running", "running", "running"),
    Activity(("climb*", "bouldering"), "go climbing", "climbing", "climbing"),
    Activity(("chess",), "play chess", "playing chess", "chess"),
    Activity(("swim*",), "go swimming", "swimming", "swimming"),
    Activity(("cycl*", "bike", "biking"), "go cycling", "cycling", "cycling"),
    Activity(("hik*",), "go hiking", "hiking", "hiking"),
    Activity(("yoga",), "do yoga", "doing yoga", "yoga"),
    Activity(("surf*",), "go surfing", "surfing", "surfing"),
    Activity(("football", "soccer"), "play football", "playing football", "football"),
    Activity(("basketball",), "play basketball", "playing basketball", "basketball"),
    Activity(("paint*",), "paint", "painting", "painting"),
    Activity(("knit*",), "knit", "knitting", "knitting"),
    Activity(("garden*",), "do some gardening", "gardening", "gardening"),
    Activity(("volleyball",), "play volleyball", "playing volleyball", "volleyball"),
    Activity(("guitar",), "play the guitar", "playing the guitar", "the guitar"),
    Activity(("piano",), "play the piano", "playing the piano", "the piano"),
]
DISLIKED_FOODS = [
    (("cilantro", "coriander"), "cilantro"), (("olive",), "olives"), (("mushroom",), "mushrooms"),
    (("mayonnaise", "mayo"), "mayonnaise"), (("blue cheese",), "blue cheese"),
    (("licorice", "liquorice"), "licorice"), (("anchov*",), "anchovies"), (("raisin",), "raisins"),
    (("eggplant", "aubergine"), "eggplant"), (("beetroot", "beet"), "beetroot"),
]  # fmt: skip
DISLIKED_THINGS = [
    (("country",), "country music"), (("reality",), "reality TV"), (("horror",), "horror movies"),
    (("karaoke",), "karaoke"), (("musical",), "musicals"), (("camping",), "camping"),
]  # fmt: skip
# (terms, as said after "allergic to", "a ___ allergy", is it food)
ALLERGENS = [
    (("peanut",), "peanuts", "peanut", True), (("shellfish",), "shellfish", "shellfish", True),
    (("sesame",), "sesame", "sesame", True), (("penicillin",), "penicillin", "penicillin", False),
    (("pollen", "hay fever"), "pollen", "pollen", False), (("latex",), "latex", "latex", False),
    (("strawberr*",), "strawberries", "strawberry", True), (("kiwi",), "kiwi", "kiwi", True),
    (("egg",), "eggs", "egg", True), (("bee",), "bee stings", "bee sting", False),
    (("hazelnut",), "hazelnuts", "hazelnut", True), (("soy",), "soy", "soy", True),
]  # fmt: skip
DIETS = ["vegetarian", "vegan", "pescatarian"]
MEATS = [(("steak",), "steak"), (("burger",), "burgers"), (("bacon",), "bacon"), (("ribs",), "ribs")]
PET_SPECIES = ["dog", "cat", "rabbit", "parrot", "beagle", "tabby cat", "golden retriever", "hamster"]
PET_NAMES = [
    "Rex", "Luna", "Milo", "Biscuit", "Pepper", "Mochi", "Ziggy", "Nala", "Bruno", "Olive",
    "Pickles", "Waffles", "Kiwi", "Loki", "Simba", "Coco", "Ruby", "Toast", "Bean", "Pixel",
]  # fmt: skip
SIBLINGS = ["sister", "brother", "older sister", "little brother", "twin sister", "big brother"]
ARTISTS = ["Coldplay", "Adele", "Arctic Monkeys", "Dua Lipa", "Metallica", "Billie Eilish", "Muse", "Bjork"]
# (terms, how it is said after "I'm starting" / "I signed up for")
COURSES = [
    (("pottery",), "a pottery class"), (("salsa",), "salsa lessons"), (("cooking",), "a cooking course"),
    (("first aid",), "a first aid course"), (("sailing",), "a sailing course"),
    (("woodwork*",), "a woodworking class"), (("photography",), "a photography workshop"),
]  # fmt: skip
MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# --- the gold record -------------------------------------------------------------------------------

KINDS = ("identity", "preference", "relationship", "occupation", "location", "plan", "event", "other")
# Which extracted kinds count for a gold fact of a slot, and why beyond the obvious one:
ACCEPT: dict[str, tuple[str, ...]] = {
    "name": ("identity", "other"),
    "age": ("identity", "event", "other"),  # "Turned 35 on ..." is a birthday event holding the age
    "language": ("identity", "other"),
    "hometown": ("location", "identity"),  # where one is from is also who one is
    "home": ("location",),
    "job": ("occupation",),
    "employer": ("occupation",),
    "partner": ("relationship",),
    "sibling": ("relationship",),
    "child": ("relationship",),
    "pet": ("relationship", "other"),
    "diet": ("preference", "identity", "other"),
    "allergy": ("other", "preference", "identity"),  # health has no kind of its own: `other`
    "likes": ("preference", "other"),
    "dislikes": ("preference", "other"),
    "activity": ("preference", "other"),  # a hobby is a habit (preference) or just a fact
    "plan": ("plan", "event"),  # a dated thing ahead is easily called an event
    "event": ("event", "other"),
    # Small talk about other people still tells who is in the user's life ("my friend Daniel is a
    # nurse": has a friend named Daniel). True, but not what the benchmark asks for: optional.
    "friend": ("relationship", "other"),
    "colleague": ("relationship", "other"),
    "neighbour": ("relationship", "other"),
    "boss": ("relationship", "other"),
    "cousin": ("relationship", "other"),
    "roommate": ("relationship", "other"),
    # The unnamed form of a planted relation is true too: "Has a hamster.", "Has a sister.",
    # "Is married.": optional, so it is neither required nor a false positive.
    "has": ("relationship", "other"),
    "status": ("relationship", "identity", "other"),
}


@dataclass
class Gold:
    id: str
    kind: str  # the kind it should have (per-kind tables use this)
    kinds: list[str]  # the kinds accepted when matching
    slot: str  # "home", "employer", "likes:sushi", ...
    value: str  # what the user said, for display
    terms: list[str]  # any one of them must appear in the content (word boundaries; "*": prefix)
    polarity: str = "+"  # "-": the content must say it is disliked / not done
    exclusive: bool = False
    required: bool = True
    date: str | None = None  # YYYY-MM-DD the plan / event is on, when the text pins the day
    status: str = "valid"  # at the end: valid | superseded | negated
    superseded_by: str | None = None
    sources: list[str] = field(default_factory=list)  # message keys that state it
    ended_by: str | None = None  # message key that superseded or negated it


@dataclass
class Msg:
    role: str
    content: str
    tag: str  # plant:<gold>, repeat:<gold>, update:<old>-><new>, negate:<gold>, distractor:<type>, ...
    golds: tuple[str, ...] = ()
    ends: tuple[str, ...] = ()


# --- phrasing ---------------------------------------------------------------------------------------

SUFFIXES = [" haha", " lol", " :)", "!", " tbh", " 😅", "", "", "", "", "", ""]
PREFIXES = ["btw ", "oh and ", "ok so ", "fun fact, ", "also, ", "anyway, ", "", "", "", "", "", "", ""]


def a_an(word: str) -> str:
    vowel = word[0].lower() in "aeiou" and not word.startswith("U")  # "a UX designer"
    return ("an " if vowel else "a ") + word


def is_are(noun: str) -> str:
    """ "Tacos are", "pizza is" (the plural nouns of these lists end in s)."""
    return "are" if noun.endswith("s") and not noun.endswith(("ss", "hummus")) else "is"


def casual(rng: random.Random, text: str) -> str:
    """How people type in a chat: fillers, dropped full stops, lower case, apostrophes left out."""
    if rng.random() < 0.25:
        text = rng.choice(PREFIXES) + text[0].lower() + text[1:]
    if rng.random() < 0.3 and text.endswith("."):
        text = text[:-1] + rng.choice(SUFFIXES)
    elif rng.random() < 0.3 and text.endswith("."):
        text = text[:-1]
    if rng.random() < 0.25:
        text = text[0].lower() + text[1:]
    if rng.random() < 0.1:
        for a, b in (("I'm", "im"), ("I've", "ive"), ("don't", "dont"), ("can't", "cant")):
            text = text.replace(a, b)
    return text


ACKS = [
    "Got it, thanks for telling me!",
    "Nice, good to know.",
    "Oh, that's great!",
    "Thanks for sharing that.",
    "Noted! Anything I can help with?",
    "That's lovely to hear.",
    "Ah, okay. How's that going?",
    "Good to know, I'll keep that in mind.",
    "Oh wow, how exciting!",
    "I see. Tell me more if you like.",
    "Love that.",
    "Makes sense!",
]
SAD_ACKS = [
    "Oh no, I'm sorry to hear that.",
    "That sounds tough. How are you feeling about it?",
    "Ah, that's a shame.",
    "Sorry about that. Anything I can do to help?",
    "Changes like that take some getting used to.",
]


def date_text(d: date) -> str:
    return f"{MONTHS[d.month - 1]} {d.day}"


# --- one user --------------------------------------------------------------------------------------


@dataclass
class Exchange:
    msgs: list[Msg]


class UserBuilder:
    def __init__(self, rng: random.Random, idx: int, n_sessions: int, base: datetime) -> None:
        self.rng = rng
        self.user_id = f"fact-user-{idx:03d}"
        self.golds: dict[str, Gold] = {}
        self.updates: list[dict[str, str]] = []
        self.negations: list[str] = []
        self.used: set[str] = set()  # every value of this persona (lower case): distractors avoid them
        self.n = n_sessions
        self.plan: list[list[Exchange]] = [[] for _ in range(n_sessions)]
        start = base + timedelta(
            days=rng.randint(0, 40), hours=rng.randint(8, 19), minutes=rng.randint(0, 59)
        )
        self.starts: list[datetime] = []
        for _ in range(n_sessions):
            self.starts.append(start)
            start += timedelta(
                days=rng.randint(5, 20), hours=rng.randint(-4, 4), minutes=rng.randint(-30, 30)
            )
            start = start.replace(hour=min(max(start.hour, 8), 20))
        self.gender = rng.choice("fm")
        self.name = rng.choice(FEMALE if self.gender == "f" else MALE)
        self.used.add(self.name.lower())

    # -- helpers --
    def pick(self, pool: Sequence[str]) -> str:
        choices = [p for p in pool if p.lower() not in self.used]
        value = self.rng.choice(choices)
        self.used.add(value.lower())
        return value

    def free(self, pool: Sequence[str]) -> str:
        """A value for a distractor: never one of this user's values."""
        return self.rng.choice([p for p in pool if p.lower() not in self.used])

    def person(self, gender: str | None = None) -> str:
        g = gender or self.rng.choice("fm")
        return self.pick(FEMALE if g == "f" else MALE)

    def gold(self, slot: str, value: str, terms: Sequence[str], own: bool = True, **kw: Any) -> Gold:
        """A gold fact; `own=False`: its terms stay free for distractors (implied relations)."""
        base = slot.split(":")[0]
        kind = {
            "name": "identity", "age": "identity", "language": "identity", "hometown": "location",
            "home": "location", "job": "occupation", "employer": "occupation", "partner": "relationship",
            "sibling": "relationship", "child": "relationship", "pet": "relationship", "diet": "preference",
            "allergy": "other", "likes": "preference", "dislikes": "preference",
            "activity": "preference", "plan": "plan", "event": "event",
        }.get(base, "relationship")  # fmt: skip
        gid = f"{self.user_id}/{slot}/{value.lower().replace(' ', '-')}"
        if gid in self.golds:  # the same implied relation again
            return self.golds[gid]
        g = Gold(id=gid, kind=kind, kinds=list(ACCEPT[base]), slot=slot, value=value, terms=list(terms), **kw)
        self.golds[gid] = g
        if not own:
            return g
        for t in terms:
            self.used.add(t.rstrip("*").lower())
        self.used.add(value.lower())
        return g

    def user(self, text: str, tag: str, golds: Sequence[Gold] = (), ends: Sequence[Gold] = ()) -> Msg:
        return Msg("user", casual(self.rng, text), tag, tuple(g.id for g in golds), tuple(g.id for g in ends))

    def bot(self, text: str) -> Msg:
        return Msg("assistant", text, "assistant")

    def ack(self, sad: bool = False) -> Msg:
        return self.bot(self.rng.choice(SAD_ACKS if sad else ACKS))

    def add(self, session: int, *msgs: Msg) -> None:
        self.plan[session].append(Exchange(list(msgs)))

    def day(self, session: int) -> date:
        return self.starts[session].date()

    def early(self) -> int:
        return self.rng.randint(0, max(0, self.n // 2 - 1))

    def later(self, after: int) -> int | None:
        """A session strictly after `after`, in the second half when there is room."""
        lo = max(after + 1, self.n // 2)
        return self.rng.randint(lo, self.n - 1) if lo <= self.n - 1 else None

    def repeat(self, g: Gold, after: int, say: Callable[[], str], until: int | None = None) -> None:
        """Mention a fact again, in other words, in a later session while it still holds."""
        hi = (until - 1) if until is not None else self.n - 1
        if after + 1 <= hi and self.rng.random() < 0.35:
            s = self.rng.randint(after + 1, hi)
            self.add(s, self.user(say(), f"repeat:{g.id}", [g]), self.ack())

    def end(self, old: Gold, new: Gold | None, by: Msg) -> None:
        """`by` supersedes `old` with `new`, or negates it."""
        old.status = "superseded" if new is not None else "negated"
        old.superseded_by = new.id if new is not None else None
        if new is not None:
            self.updates.append({"slot": old.slot, "old": old.id, "new": new.id})
        else:
            self.negations.append(old.id)

    # -- the persona, fact by fact --
    def build(self) -> None:
        r = self.rng
        intro = r.random() < 0.25
        s_intro = 0
        home = self.home_and_moves(intro_session=s_intro if intro else None)
        if intro:
            self.intro(s_intro, home)
        else:
            if r.random() < 0.6:
                self.name_fact(self.early())
            if r.random() < 0.55:
                self.age(self.early())
        if r.random() < 0.5:
            self.hometown(self.early())
        if r.random() < 0.6:
            self.languages(self.early())
        if r.random() < 0.9:
            self.work()
        if r.random() < 0.7:
            self.partner()
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            self.sibling(self.early())
        if r.random() < 0.25:
            self.child(self.early())
        for _ in range(r.choice([0, 1, 1, 2])):
            self.pet(r.randint(0, self.n - 1))
        if r.random() < 0.35:
            self.diet()
        elif r.random() < 0.35:
            self.meat()
        if r.random() < 0.4:
            self.allergy(self.early())
        for _ in range(r.randint(1, 2)):
            self.likes_food(r.randint(0, self.n - 1))
        for _ in range(r.randint(0, 2)):
            self.likes_music(r.randint(0, self.n - 1))
        for _ in range(r.randint(1, 2)):
            self.activity()
        for _ in range(r.randint(0, 2)):
            self.dislike(r.randint(0, self.n - 1))
        for _ in range(r.randint(1, 2)):
            self.plan_fact()
        for _ in range(r.randint(1, 2)):
            self.event(r.randint(0, self.n - 1))

    def intro(self, s: int, home: Gold) -> None:
        age = self.rng.randint(19, 58)
        n = self.gold("name", self.name, [self.name], exclusive=True)
        a = self.gold("age", str(age), [str(age)], exclusive=True)
        city = home.value
        text = self.rng.choice(
            [
                f"Hi! I'm {self.name}, {age}, living in {city}.",
                f"hey, {self.name} here, {age} years old, based in {city}",
                f"Hello! Quick intro: {self.name}, {age}, I live in {city}.",
            ]
        )
        m = self.user(text, f"plant:{n.id}+{a.id}+{home.id}", [n, a, home])
        self.add(s, m, self.bot(f"Nice to meet you, {self.name}! What can I do for you today?"))
        self.maybe_birthday(a, age, s)

    def name_fact(self, s: int) -> None:
        g = self.gold("name", self.name, [self.name], exclusive=True)
        text = self.rng.choice(
            [
                f"I'm {self.name} btw.",
                f"My name's {self.name}.",
                f"{self.name} here!",
                f"You can call me {self.name}.",
                f"Oh, I never introduced myself: I'm {self.name}.",
                f"My name is {self.name}, nice to meet you.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.bot(f"Nice to meet you, {self.name}!"))

    def age(self, s: int) -> None:
        age = self.rng.randint(19, 58)
        g = self.gold("age", str(age), [str(age)], exclusive=True)
        text = self.rng.choice(
            [
                f"I'm {age}.",
                f"I'm {age} years old.",
                f"As a {age} year old I feel ancient lol.",
                f"{age} and still can't cook haha.",
                f"I'm {age}, is that too old to start learning the piano?",
                f"I'm {age} if that matters.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.ack())
        self.maybe_birthday(g, age, s)

    def maybe_birthday(self, g: Gold, age: int, s: int) -> None:
        later = self.later(s)
        if later is None or self.rng.random() > 0.3:
            return
        new = self.gold("age", str(age + 1), [str(age + 1)], exclusive=True)
        text = self.rng.choice(
            [
                f"I turned {age + 1} yesterday!",
                f"It was my birthday this week, {age + 1} now haha.",
                f"Just turned {age + 1}, feeling old.",
                f"Guess who's {age + 1} today, me!",
            ]
        )
        m = self.user(text, f"update:{g.id}->{new.id}", [new], [g])
        self.add(later, m, self.bot("Happy birthday!! 🎉 Any plans to celebrate?"))
        self.end(g, new, m)

    def hometown(self, s: int) -> None:
        place = self.pick(HOMETOWNS)
        g = self.gold("hometown", place, [place])
        text = self.rng.choice(
            [
                f"I'm originally from {place}.",
                f"I grew up in {place}.",
                f"Born and raised in {place}.",
                f"Back home in {place} we used to eat this all the time.",
                f"I'm from {place} originally, moved away for uni.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.bot(f"Oh, {place}! Do you miss it?"))

    def languages(self, s: int) -> None:
        n = self.rng.choice([1, 1, 2])
        langs = [self.pick(LANGUAGES) for _ in range(n)]
        gs = [self.gold(f"language:{lang.lower()}", lang, [lang]) for lang in langs]
        if n == 2:
            text = self.rng.choice(
                [
                    f"I speak {langs[0]} and {langs[1]}.",
                    f"I grew up speaking {langs[0]} and {langs[1]} at home.",
                    f"I'm fluent in {langs[0]} and {langs[1]}, if that helps.",
                ]
            )
        else:
            lang = langs[0]
            text = self.rng.choice(
                [
                    f"I speak {lang}.",
                    f"I'm fluent in {lang}.",
                    f"My first language is {lang}.",
                    f"{lang} is my native language.",
                    f"I speak {lang} fluently, so you can use that too.",
                ]
            )
        self.add(s, self.user(text, "plant:" + "+".join(g.id for g in gs), gs), self.ack())

    # home, with up to two moves later on
    def home_and_moves(self, intro_session: int | None) -> Gold:
        city = self.pick(CITIES)
        home = self.gold("home", city, [city], exclusive=True)
        s = intro_session if intro_session is not None else self.early()
        if intro_session is None:
            self.say_home(s, home)
        moves = 0 if self.rng.random() < 0.55 else (1 if self.rng.random() < 0.8 else 2)
        cur, at = home, s
        for _ in range(moves):
            # Two moves a week apart would be odd: the second waits at least two sessions.
            nxt = self.later(at + (1 if cur is not home else 0))
            if nxt is None:
                break
            self.repeat(cur, at, partial(self.home_text, cur.value, cur is not home), until=nxt)
            new_city = self.pick(CITIES)
            new = self.gold("home", new_city, [new_city], exclusive=True)
            old = cur.value
            text = self.rng.choice(
                [
                    f"I moved to {new_city} last month!",
                    f"Big news: we just moved to {new_city}.",
                    f"I'm living in {new_city} now, the move from {old} was exhausting.",
                    f"I don't live in {old} anymore, I moved to {new_city} a few weeks ago.",
                    f"Finally settled into our new flat in {new_city}.",
                    f"Since moving to {new_city} I walk everywhere.",
                    f"I left {old} recently, {new_city} is home now.",
                ]
            )
            m = self.user(text, f"update:{cur.id}->{new.id}", [new], [cur])
            self.add(nxt, m, self.bot(f"Congrats on the move! How are you finding {new_city}?"))
            self.end(cur, new, m)
            cur, at = new, nxt
        self.repeat(cur, at, partial(self.home_text, cur.value, cur is not home))
        return home

    def home_text(self, city: str, moved: bool = False) -> str:
        options = [
            f"I live in {city}.",
            f"I'm based in {city}.",
            f"Here in {city} it's been raining all week ugh.",
            f"{city} is home for me.",
            f"We live in {city}, pretty central.",
            f"The rent here in {city} is insane lol.",
            f"I'm in {city}, if that matters for the recommendation.",
        ]
        if not moved:  # not said of a city one moved to a few weeks ago
            options.append(f"I've lived in {city} for {self.rng.randint(2, 12)} years now.")
        return self.rng.choice(options)

    def say_home(self, s: int, g: Gold) -> None:
        if self.rng.random() < 0.2:  # a terse answer, clear only with the question before it
            q = self.bot("Where are you based, if you don't mind me asking?")
            a = self.rng.choice([f"{g.value}!", f"{g.value}, for about {self.rng.randint(2, 9)} years now"])
            self.add(s, q, self.user(a, f"plant:{g.id}", [g]), self.bot(f"{g.value}, lovely!"))
        else:
            self.add(s, self.user(self.home_text(g.value), f"plant:{g.id}", [g]), self.ack())

    # job title and employer, then maybe a new job or quitting
    def work(self) -> None:
        r = self.rng
        title = self.pick(TITLES)
        company = self.pick(COMPANIES)
        job = self.gold("job", title, [title], exclusive=True)
        emp = self.gold("employer", company, [company], exclusive=True)
        s = self.early()
        both = r.random() < 0.45
        if both and r.random() < 0.3:
            q = self.bot("What do you do for a living, by the way?")
            a = r.choice([f"{title} at {company}", f"I'm {a_an(title)}, at {company}"])
            self.add(s, q, self.user(a, f"plant:{job.id}+{emp.id}", [job, emp]), self.ack())
        elif both:
            text = r.choice(
                [
                    f"I'm {a_an(title)} at {company}.",
                    f"I work as {a_an(title)} for {company}.",
                    f"I've been {a_an(title)} at {company} for {r.randint(2, 9)} years.",
                    f"Long week at {company}, being {a_an(title)} is exhausting some days.",
                ]
            )
            self.add(s, self.user(text, f"plant:{job.id}+{emp.id}", [job, emp]), self.ack())
        else:
            self.add(s, self.user(self.job_text(title), f"plant:{job.id}", [job]), self.ack())
            s2 = r.randint(s, self.n // 2)
            self.add(s2, self.user(self.employer_text(company), f"plant:{emp.id}", [emp]), self.ack())
            s = s2
        change = r.random()
        nxt = self.later(s)
        retitled = nxt is not None and change < 0.32 and r.random() < 0.35
        self.repeat(job, s, lambda: self.job_text(title), until=nxt if retitled else None)
        if nxt is None or change > 0.5:
            self.repeat(emp, s, lambda: self.employer_text(company))
            return
        if change < 0.32:  # a new job: the employer (and sometimes the title) is superseded
            new_co = self.pick(COMPANIES)
            new = self.gold("employer", new_co, [new_co], exclusive=True)
            if retitled:
                new_title = self.pick(TITLES)
                new_job = self.gold("job", new_title, [new_title], exclusive=True)
                text = r.choice(
                    [
                        f"New job! I'm {a_an(new_title)} at {new_co} now.",
                        f"I switched careers, I work as {a_an(new_title)} for {new_co} now.",
                    ]
                )
                tag = f"update:{emp.id}->{new.id}+{job.id}->{new_job.id}"
                m = self.user(text, tag, [new, new_job], [emp, job])
                self.end(job, new_job, m)
            else:
                text = r.choice(
                    [
                        f"I started a new job at {new_co} this week!",
                        f"I switched jobs, I'm at {new_co} now.",
                        f"First week at {new_co} done, so far so good.",
                        f"I left {company} and joined {new_co} last month.",
                        f"Got an offer from {new_co} and took it, I started on Monday.",
                    ]
                )
                m = self.user(text, f"update:{emp.id}->{new.id}", [new], [emp])
            self.add(nxt, m, self.bot(f"Congratulations on the new job at {new_co}!"))
            self.end(emp, new, m)
            self.repeat(new, nxt, lambda: self.employer_text(new_co))
        else:  # quits; sometimes a new employer a session or more later (a plain new fact)
            text = r.choice(
                [
                    f"I quit my job at {company}.",
                    f"I handed in my notice at {company}, my last day was Friday.",
                    f"I'm not working at {company} anymore.",
                    f"I left {company} last month, taking some time off.",
                    f"So I finally quit {company} lol.",
                ]
            )
            m = self.user(text, f"negate:{emp.id}", [], [emp])
            self.add(nxt, m, self.bot("Big step! How are you feeling about it?"))
            self.end(emp, None, m)
            later = self.later(nxt)
            if later is not None and r.random() < 0.5:
                new_co = self.pick(COMPANIES)
                new = self.gold("employer", new_co, [new_co], exclusive=True)
                t2 = r.choice([f"I've started working at {new_co}.", f"Good news, {new_co} hired me!"])
                self.add(later, self.user(t2, f"plant:{new.id}", [new]), self.bot("That's great news!"))

    def job_text(self, title: str) -> str:
        return self.rng.choice(
            [
                f"I'm {a_an(title)}.",
                f"I work as {a_an(title)}.",
                f"I've been {a_an(title)} for {self.rng.randint(2, 15)} years.",
                f"{title[0].upper() + title[1:]} here, so I know the struggle lol.",
                f"Being {a_an(title)} is exhausting some days.",
                f"As {a_an(title)}, I never get weekends off.",
            ]
        )

    def employer_text(self, company: str) -> str:
        return self.rng.choice(
            [
                f"I work at {company}.",
                f"I've been at {company} for {self.rng.randint(2, 9)} years.",
                f"I work for {company}.",
                f"My job at {company} keeps me busy.",
                f"Things at {company} are hectic right now, we have a big launch at work.",
            ]
        )

    def partner(self) -> None:
        r = self.rng
        s = self.early()
        g = r.choice("fm")
        role = r.choice(["partner"] + (["wife", "girlfriend"] if g == "f" else ["husband", "boyfriend"]))
        name = self.person(g)
        p = self.gold("partner", name, [name], exclusive=True)
        said = [p]
        if role in ("wife", "husband"):
            said.append(self.gold("status", "married", ["married"], own=False, required=False))
        self.add(s, self.user(self.partner_text(role, name), f"plant:{p.id}", said), self.ack())
        nxt = self.later(s)
        change = r.random()
        if nxt is None or change > 0.35:
            self.repeat(p, s, lambda: self.partner_text(role, name))
            return
        if len(said) > 1:  # no longer married to them either
            said[1].status = "negated"
        g2 = r.choice("fm")
        role2 = r.choice(["partner"] + (["girlfriend"] if g2 == "f" else ["boyfriend"]))
        if change < 0.15:  # straight to someone new: supersede
            new_name = self.person(g2)
            new = self.gold("partner", new_name, [new_name], exclusive=True)
            text = r.choice(
                [
                    f"I have a new {role2}, {new_name}!",
                    f"My new {role2} {new_name} wants to meet my friends this weekend, nervous lol.",
                    f"I'm seeing someone new now, {new_name}. It's going really well.",
                ]
            )
            m = self.user(text, f"update:{p.id}->{new.id}", [new], [p])
            self.add(nxt, m, self.ack())
            self.end(p, new, m)
            return
        text = r.choice(  # a break-up: negation, and sometimes someone new later
            [
                f"{name} and I broke up last month.",
                f"I'm single again, {name} and I split up.",
                f"Me and {name} aren't together anymore.",
                f"{name} and I separated a few weeks ago.",
            ]
        )
        m = self.user(text, f"negate:{p.id}", [], [p])
        self.add(nxt, m, self.ack(sad=True))
        self.end(p, None, m)
        later = self.later(nxt)
        if later is not None and r.random() < 0.6:
            new_name = self.person(g2)
            new = self.gold("partner", new_name, [new_name], exclusive=True)
            pron = "her" if g2 == "f" else "his"
            t2 = r.choice(
                [
                    f"I've started seeing someone, {pron} name is {new_name}.",
                    f"I met someone! {new_name}. We've been dating for a month.",
                    f"My {role2} {new_name} says hi haha.",
                ]
            )
            self.add(later, self.user(t2, f"plant:{new.id}", [new]), self.bot("Aww, happy for you!"))

    def partner_text(self, role: str, name: str) -> str:
        options = [
            f"My {role} {name} says hi.",
            f"I was telling my {role} {name} about this.",
            f"{name}, my {role}, keeps stealing my hoodies lol.",
            f"I've been with my {role} {name} for {self.rng.randint(2, 12)} years.",
            f"My {role} {name} thinks I should ask you.",
        ]
        if role in ("wife", "husband"):
            options.append(f"I'm married to {name}.")
        return self.rng.choice(options)

    def sibling(self, s: int) -> None:
        rel = self.rng.choice(SIBLINGS)
        name = self.person("f" if "sister" in rel else "m")
        g = self.gold(f"sibling:{name.lower()}", name, [name])
        word = rel.split()[-1]
        unnamed = self.gold(f"has:{word}", word, [word], own=False, required=False)
        text = self.rng.choice(
            [
                f"I have {a_an(rel)} called {name}.",
                f"My {rel} {name} always makes fun of me for this haha.",
                f"My {rel} {name} recommended this book to me.",
                f"Me and my {rel} {name} talk every day.",
                f"{name}, my {rel}, is the only one in the family who gets it.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g, unnamed]), self.ack())
        self.repeat(g, s, lambda: f"My {rel} {name} came over for dinner, it was nice.")

    def child(self, s: int) -> None:
        kid = self.rng.choice(["daughter", "son"])
        name = self.person("f" if kid == "daughter" else "m")
        g = self.gold(f"child:{name.lower()}", name, [name])
        unnamed = self.gold(f"has:{kid}", kid, [kid, "child", "kid"], own=False, required=False)
        text = self.rng.choice(
            [
                f"My {kid} {name} is obsessed with dinosaurs right now.",
                f"I have a {self.rng.randint(3, 14)}-year-old {kid}, {name}.",
                f"Getting my {kid} {name} to eat vegetables is impossible lol.",
                f"{name}, my {kid}, drew me a card today.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g, unnamed]), self.ack())

    def pet(self, s: int) -> None:
        species = self.rng.choice(PET_SPECIES)
        name = self.pick(PET_NAMES)
        g = self.gold(f"pet:{name.lower()}", name, [name])
        word = species.split()[-1]
        kinds_of = [word] + (["dog"] if species in ("beagle", "golden retriever") else [])
        unnamed = self.gold(f"has:{word}", word, kinds_of, own=False, required=False)
        pron = self.rng.choice(["him", "her"])
        options = [
            f"I have {a_an(species)} called {name}.",
            f"My {species} {name} just knocked my coffee over lol.",
            f"{name}, my {species}, is snoring next to me.",
            f"Coming home to {name} (my {species}) is the best part of my day.",
            f"We have {a_an(species)} named {name}.",
            f"We adopted {a_an(species)} last weekend! We called {pron} {name}.",
        ]
        if species in ("dog", "beagle", "golden retriever"):
            options.append(f"Walking {name} (my {species}) before work is the best part of my day.")
        text = self.rng.choice(options)
        if s > 0 and self.rng.random() < 0.15:
            q = self.bot("Do you have any pets?")
            self.add(
                s,
                q,
                self.user(f"yep, {a_an(species)} called {name}", f"plant:{g.id}", [g, unnamed]),
                self.ack(),
            )
        else:
            self.add(s, self.user(text, f"plant:{g.id}", [g, unnamed]), self.bot(f"{name} sounds adorable!"))
        sub = "he" if pron == "him" else "she"
        self.repeat(g, s, lambda: f"{name} has been so cute lately, {sub} learned a new trick.")

    def diet(self) -> None:
        r = self.rng
        diet = r.choice(DIETS)
        g = self.gold("diet", diet, [diet], exclusive=True)
        s = self.early()
        text = r.choice(
            [
                f"I'm {diet}.",
                f"I've been {diet} for {r.randint(2, 12)} years.",
                f"As {a_an(diet)}, what can I make for a dinner party?",
                f"{diet[0].upper() + diet[1:]} here, so keep that in mind for recipes.",
                f"I went {diet} back in {r.randint(2012, 2022)}.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.ack())
        nxt = self.later(s)
        if diet == "vegetarian" and nxt is not None and r.random() < 0.4:
            new = self.gold("diet", "vegan", ["vegan"], exclusive=True)
            t2 = r.choice(
                [
                    "I went fully vegan last month.",
                    "I'm vegan now, I cut out dairy too.",
                    "Update: I'm not just vegetarian anymore, I'm vegan now.",
                ]
            )
            m = self.user(t2, f"update:{g.id}->{new.id}", [new], [g])
            self.add(nxt, m, self.bot("That's a big change! Want some vegan recipe ideas?"))
            self.end(g, new, m)
        else:
            self.repeat(g, s, lambda: f"Being {diet} makes eating out tricky sometimes.")

    def meat(self) -> None:
        """Loves a meat dish, later stops eating meat: the liking must end (a contradiction)."""
        r = self.rng
        terms, said = r.choice(MEATS)
        g = self.gold(f"likes:{terms[0]}", said, list(terms))
        s = self.early()
        text = r.choice(
            [
                f"I love a good {said}." if said in ("steak",) else f"I love {said}.",
                f"Honestly I could eat {said} every day haha.",
                f"{said[0].upper() + said[1:]} {is_are(said)} my favourite food, no contest.",
                f"I eat pretty much everything, but {said} {is_are(said)} my weakness.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.ack())
        nxt = self.later(s)
        if nxt is None or r.random() < 0.25:
            return
        month = MONTHS[(self.day(nxt).month - 2) % 12]
        veggie = r.random() < 0.5
        if veggie:
            v = self.gold("diet", "vegetarian", ["vegetarian"], exclusive=True)
            t2 = r.choice(
                [
                    f"I went vegetarian in {month}!",
                    f"I'm vegetarian now, haven't had meat since {month}.",
                    "Big change: I'm vegetarian these days.",
                ]
            )
            m = self.user(t2, f"negate:{g.id}+plant:{v.id}", [v], [g])
        else:
            o = self.gold("diet", "no meat", ["meat"], polarity="-", required=False)
            t2 = r.choice(
                [
                    "I don't eat meat anymore.",
                    "I stopped eating meat a couple of months ago.",
                    "I gave up meat completely this year.",
                ]
            )
            m = self.user(t2, f"negate:{g.id}", [o], [g])
        self.add(nxt, m, self.bot("Interesting! What made you decide that?"))
        self.end(g, None, m)

    def allergy(self, s: int) -> None:
        avail = [a for a in ALLERGENS if a[0][0] not in self.used]
        terms, plural, attr, food = self.rng.choice(avail)
        g = self.gold(f"allergy:{terms[0]}", plural, list(terms))
        options = [
            f"I'm allergic to {plural}.",
            f"I have {a_an(attr)} allergy.",
            f"My {attr} allergy is acting up again ugh.",
        ]
        if food:
            options += [f"I can't eat {plural}, I'm allergic.", f"No {plural} for me please, I'm allergic."]
        if self.rng.random() < 0.2 and food:
            q = self.bot("Any food allergies I should know about before I suggest recipes?")
            self.add(s, q, self.user(f"{plural}, unfortunately", f"plant:{g.id}", [g]), self.ack())
        else:
            self.add(s, self.user(self.rng.choice(options), f"plant:{g.id}", [g]), self.ack())

    def likes_food(self, s: int) -> None:
        avail = [f for f in FOODS if f[0] not in self.used]
        term, said = self.rng.choice(avail)
        g = self.gold(f"likes:{term}", said, [term])
        text = self.rng.choice(
            [
                f"I love {said}.",
                f"{said[0].upper() + said[1:]} {is_are(said)} my favourite food.",
                f"Honestly I could eat {said} every day.",
                f"Big fan of {said}.",
                f"Nothing beats {said} on a rainy day.",
                f"I'm obsessed with {said} lately.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.ack())
        self.repeat(g, s, lambda: f"Had {said} again yesterday, still my favourite.")

    def likes_music(self, s: int) -> None:
        avail = [m for m in MUSIC if m[0].lower() not in self.used]
        term, said = self.rng.choice(avail)
        g = self.gold(f"likes:{term.lower()}", said, [term])
        text = self.rng.choice(
            [
                f"I'm really into {said}.",
                f"{said[0].upper() + said[1:]} is my favourite music.",
                f"I listen to {said} pretty much all day.",
                f"Huge {said} fan here.",
                f"Been listening to a lot of {said}, I love it.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.ack())

    def activity(self) -> None:
        r = self.rng
        avail = [a for a in ACTIVITIES if a.terms[0].rstrip("*") not in self.used]
        act = r.choice(avail)
        g = self.gold(f"activity:{act.noun.replace('the ', '')}", act.noun, list(act.terms))
        s = r.randint(0, self.n // 2)
        text = r.choice(
            [
                f"I {act.verb} every weekend.",
                f"I {act.verb} twice a week.",
                f"I love {act.gerund}.",
                f"{act.gerund[0].upper() + act.gerund[1:]} is my favourite way to unwind.",
                f"I've been {act.gerund} for years.",
                f"Just got back from {act.gerund}, I try to go every Sunday.",
            ]
        )
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.ack())
        nxt = self.later(s)
        if nxt is None or r.random() < 0.6:
            self.repeat(g, s, lambda: f"Still {act.gerund} every week, it keeps me sane.")
            return
        t2 = r.choice(
            [
                f"I don't {act.verb} anymore.",
                f"I gave up {act.noun}.",
                f"I stopped {act.gerund}, just no time for it anymore.",
                f"I quit {act.noun} this year.",
                f"I'm done with {act.noun}, it wasn't fun anymore.",
            ]
        )
        m = self.user(t2, f"negate:{g.id}", [], [g])
        self.add(nxt, m, self.bot("Fair enough, priorities change."))
        self.end(g, None, m)

    def dislike(self, s: int) -> None:
        r = self.rng
        if r.random() < 0.6:
            avail = [d for d in DISLIKED_FOODS if d[0][0].rstrip("*") not in self.used]
            terms, said = r.choice(avail)
            options = [
                f"I can't stand {said}.",
                f"I hate {said}, always have.",
                f"Ugh, no {said} please, I really don't like {said}.",
                f"Not a fan of {said} at all.",
            ]
        else:
            avail = [d for d in DISLIKED_THINGS if d[0][0] not in self.used]
            terms, said = r.choice(avail)
            options = [
                f"I can't stand {said}.",
                f"I really don't like {said}.",
                f"{said[0].upper() + said[1:]} just isn't for me, never liked it.",
                f"I hate {said} lol.",
            ]
        g = self.gold(f"dislikes:{terms[0].rstrip('*')}", said, list(terms), polarity="-")
        self.add(s, self.user(r.choice(options), f"plant:{g.id}", [g]), self.ack())

    def future(self, s: int) -> tuple[str, str | None]:
        """A date ahead of session `s` as people say it, and the day it pins (None: a month)."""
        d = self.day(s)
        r = self.rng.random()
        if r < 0.45:
            when = d + timedelta(days=self.rng.randint(10, 80))
            return f"on {date_text(when)}", when.isoformat()
        if r < 0.55:
            return "tomorrow", (d + timedelta(days=1)).isoformat()
        if r < 0.7:
            n = self.rng.choice([2, 3])
            return f"in {['', '', 'two', 'three'][n]} weeks", (d + timedelta(days=7 * n)).isoformat()
        month = (d.month + self.rng.randint(1, 3) - 1) % 12
        return f"in {MONTHS[month]}", None

    def plan_fact(self) -> None:
        r = self.rng
        s = r.randint(0, self.n - 1)
        when, day = self.future(s)
        kind = r.random()
        if kind < 0.6:
            dest = self.pick(DESTINATIONS)
            g = self.gold(f"plan:{dest.lower()}", dest, [dest], date=day)
            text = r.choice(
                [
                    f"I'm flying to {dest} {when}.",
                    f"We're going to {dest} {when}!",
                    f"Booked a trip to {dest} {when}, so excited.",
                    f"I'm visiting {dest} {when}, any tips?",
                    f"Heading to {dest} {when} for a week.",
                ]
            )
            reply = f"{dest} is wonderful! Want some ideas for the trip?"
            cancel = [
                f"The {dest} trip is cancelled :(",
                f"We're not going to {dest} anymore.",
                f"Had to cancel {dest}, work stuff.",
            ]
        elif kind < 0.8:
            artist = self.pick(ARTISTS)
            g = self.gold(f"plan:{artist.lower()}", artist, [artist], date=day)
            text = r.choice(
                [
                    f"I'm going to see {artist} live {when}!",
                    f"Got tickets for {artist} {when}.",
                    f"{artist} concert {when}, can't wait.",
                ]
            )
            reply = "That's going to be amazing!"
            cancel = [
                f"The {artist} concert got cancelled, so annoying.",
                f"I'm not going to {artist} anymore.",
            ]
        else:
            avail = [c for c in COURSES if c[0][0].rstrip("*") not in self.used]
            terms, said = r.choice(avail)
            g = self.gold(f"plan:{terms[0].rstrip('*')}", said, list(terms), date=day)
            text = r.choice(
                [
                    f"I'm starting {said} {when}.",
                    f"I signed up for {said}, the first session is {when}.",
                    f"Starting {said} {when}, wish me luck.",
                ]
            )
            reply = "Fun! What got you into it?"
            cancel = [f"I dropped out of {said} before it even started.", f"I'm not doing {said} after all."]
        self.add(s, self.user(text, f"plant:{g.id}", [g]), self.bot(reply))
        nxt = self.later(s)
        if nxt is not None and r.random() < 0.2 and (day is None or self.day(nxt).isoformat() < day):
            m = self.user(r.choice(cancel), f"negate:{g.id}", [], [g])
            self.add(nxt, m, self.ack(sad=True))
            self.end(g, None, m)

    def event(self, s: int) -> None:
        r = self.rng
        d = self.day(s)
        x = r.random()
        if x < 0.35:
            when, day = "yesterday", (d - timedelta(days=1)).isoformat()
        elif x < 0.6:
            wd = r.randint(0, 6)
            back = (d.weekday() - wd) % 7 or 7
            when, day = f"last {WEEKDAYS[wd]}", (d - timedelta(days=back)).isoformat()
        elif x < 0.8:
            past = d - timedelta(days=r.randint(8, 40))
            when, day = f"on {date_text(past)}", past.isoformat()
        else:
            when, day = r.choice(["last week", "a few days ago", "recently"]), None
        w = when
        events: list[tuple[tuple[str, ...], list[str]]] = [
            (("wrist",), [f"I broke my wrist {w}.", f"Guess who broke their wrist {w}, me lol."]),
            (("marathon",), [f"I ran my first marathon {w}!", f"I finished a half marathon {w}!"]),
            (("driving",), [f"I passed my driving test {w}!", f"Finally got my driving licence {w}!"]),
            (("graduat*", "degree", "master"), [f"I graduated {w}!", f"I finished my master's degree {w}."]),
            (("knee",), [f"I had knee surgery {w}.", f"Got my knee operated on {w}, recovering now."]),
            (("tattoo",), [f"I got my first tattoo {w}!", f"Got a new tattoo {w}, a small wave on my arm."]),
            (("car",), [f"I bought my first car {w}!", f"We bought a car {w}, finally."]),
            (("promot*",), [f"I got promoted {w}!", f"Got the promotion {w}!!"]),
        ]  # fmt: skip
        avail = [e for e in events if e[0][0].rstrip("*") not in self.used]
        terms, texts = r.choice(avail)
        shown = {"driving": "driving test", "graduat*": "graduated", "promot*": "promotion"}
        value = shown.get(terms[0], terms[0])
        g = self.gold(f"event:{terms[0].rstrip('*')}", value, list(terms), date=day)
        sad = terms[0] in ("wrist", "knee")
        reply = "Oh no! How are you doing?" if sad else "Congratulations, that's huge!"
        self.add(s, self.user(r.choice(texts), f"plant:{g.id}", [g]), self.bot(reply))

    # -- small talk, questions, hypotheticals, other people, moods, tasks --
    def distractor(self) -> Exchange:
        r = self.rng
        kind = r.choices(
            ["question", "hypothetical", "other_person", "mood", "task", "suggestion"],
            weights=[3, 2, 3, 2, 3, 2],
        )[0]
        city, dest, co = self.free(CITIES), self.free(DESTINATIONS), self.free(COMPANIES)
        title, lang, pet = self.free(TITLES), self.free(LANGUAGES), self.free(PET_NAMES)
        friend = self.free(FEMALE + MALE)
        act = r.choice([a for a in ACTIVITIES if a.terms[0].rstrip("*") not in self.used])
        food = r.choice([f for f in FOODS if f[0] not in self.used])[1]
        allergen = r.choice([a for a in ALLERGENS if a[0][0].rstrip("*") not in self.used])[1]
        species = r.choice(PET_SPECIES)
        pairs: dict[str, list[tuple[str, str]]] = {
            "question": [
                (
                    f"What's the best way to learn {lang}?",
                    "Daily practice with a tutor or app, plus lots of listening.",
                ),
                (
                    f"Is {city} expensive to live in?",
                    f"{city} is on the pricier side, mostly because of rent.",
                ),
                (
                    "What should I cook for dinner tonight?",
                    "How about a quick stir-fry with whatever veg you have?",
                ),
                ("How long should I boil an egg for a runny yolk?", "About 6 minutes from boiling water."),
                (
                    f"What's the weather like in {dest} in spring?",
                    f"Mild and pleasant in {dest}, with some rain.",
                ),
                (
                    f"Do {species}s get bored when you leave them alone?",
                    "They can, so toys and routine help.",
                ),
                ("How do I know if I'm allergic to something?", "An allergist can run skin or blood tests."),
                (
                    "What's a good gift for a 10 year old?",
                    "A building kit or a fun science set is usually a hit.",
                ),
                ("why is the sky blue lol", "Shorter blue wavelengths scatter more in the atmosphere."),
                (
                    f"Is {act.noun} hard to pick up as an adult?",
                    "Not at all, lots of people start later in life.",
                ),
                (
                    f"What does {a_an(title)} actually do all day?",
                    f"It varies, but {a_an(title)} spends a lot of time on planning.",
                ),
            ],
            "hypothetical": [
                (f"If I lived in {city} I'd probably cycle everywhere.", f"{city} is quite bike-friendly!"),
                (f"If I were rich I'd move to {dest} tomorrow haha.", "Ha, the dream!"),
                (
                    f"Imagine working at {co}, must be wild.",
                    "Big companies have their perks and their chaos.",
                ),
                (f"If I ever get a {species} I'm calling it {pet}.", f"{pet} is a great name!"),
                (f"In another life I'd be {a_an(title)}.", "What draws you to it?"),
                (f"I might try {act.noun} at some point, who knows.", "Could be fun to try a class."),
                (f"Thinking about maybe learning {lang} someday.", "It's a beautiful language."),
                (
                    f"What if I just quit everything and opened a bakery in {city}?",
                    "Ha, plenty of people dream of that!",
                ),
            ],
            "other_person": [
                (f"My colleague just moved to {city}.", "Oh nice, how's she finding it?"),
                (f"My friend {friend} is {a_an(title)}.", "That must keep them busy!"),
                (f"My neighbour has {a_an(species)} called {pet}.", "Cute name!"),
                (
                    "My boss is vegan, which makes team lunches tricky.",
                    "A shared menu with good veggie options helps.",
                ),
                (f"A friend of mine works at {co}.", "Maybe they could give you the inside scoop."),
                (f"My coworker is allergic to {allergen}.", "Good that you know, worth being careful."),
                (f"My friend {friend} is flying to {dest} next week.", "Lucky them!"),
                (f"{friend} from work speaks {lang}, so impressive.", "Languages are such a great skill."),
                (f"My cousin is obsessed with {food}.", "It's easy to see why!"),
                (f"My roommate from uni used to {act.verb} every day.", "Impressive dedication."),
            ],
            "mood": [
                ("I'm so tired today.", "Sorry to hear that. Maybe an early night?"),
                ("Ugh, long day.", "Hope you get some rest tonight."),
                ("Feeling kinda meh today.", "That's okay, some days are like that."),
                ("I'm starving lol.", "Time for a snack!"),
                ("In a great mood today!", "Love that! Anything special?"),
                ("Bit stressed this week tbh.", "Want to talk through what's on your plate?"),
                ("Can't sleep.", "Try putting the phone away for a bit, and some slow breathing."),
                ("I have a bit of a headache.", "Drink some water and take a break from the screen."),
            ],
            "task": [
                (
                    "Can you help me write an email asking for a day off?",
                    "Sure! Here's a short, polite draft: ...",
                ),
                (
                    "Give me a quick recipe for banana bread.",
                    "Mash 3 bananas, mix with flour, sugar, egg, butter; bake 50 min.",
                ),
                (
                    "Explain compound interest like I'm five.",
                    "Your money earns money, and then that money earns money too.",
                ),
                ("Translate 'where is the train station' into German.", "Wo ist der Bahnhof?"),
                ("What's a good name for a fantasy novel character?", "How about Elowen Thorne?"),
                (
                    "Summarize the plot of Hamlet in two sentences.",
                    "A prince seeks revenge for his father's murder...",
                ),
                ("How many calories are in an avocado?", "Roughly 240 for a medium one."),
                ("Write a haiku about autumn.", "Crisp leaves drift and fall / ..."),
                ("What's 15% of 240?", "36."),
                ("Can you suggest a name for a book club?", "How about 'Between the Lines'?"),
            ],
        }
        colleague = ("colleague", "colleague", ("colleague", "coworker", "co-worker"))
        implied: dict[str, tuple[str, str, tuple[str, ...]]] = {
            f"My colleague just moved to {city}.": colleague,
            f"My friend {friend} is {a_an(title)}.": (f"friend:{friend.lower()}", friend, (friend,)),
            f"My neighbour has {a_an(species)} called {pet}.": ("neighbour", "neighbour", ("neighbo*",)),
            "My boss is vegan, which makes team lunches tricky.": ("boss", "boss", ("boss",)),
            f"A friend of mine works at {co}.": ("friend", "friend", ("friend",)),
            f"My coworker is allergic to {allergen}.": colleague,
            f"My friend {friend} is flying to {dest} next week.": (
                f"friend:{friend.lower()}",
                friend,
                (friend,),
            ),
            f"{friend} from work speaks {lang}, so impressive.": (
                f"colleague:{friend.lower()}",
                friend,
                (friend,),
            ),
            f"My cousin is obsessed with {food}.": ("cousin", "cousin", ("cousin",)),
            f"My roommate from uni used to {act.verb} every day.": ("roommate", "roommate", ("roommate",)),
        }
        if kind == "suggestion":  # the assistant proposes; the user does not take it up
            sugs = [
                (f"You could try {act.noun} to unwind.", "hmm maybe, I'll think about it"),
                (f"Have you thought about moving somewhere quieter, like {city}?", "lol maybe one day"),
                (
                    "A vegetarian diet could help with that, if you're open to it.",
                    "interesting, I'll look into it",
                ),
                (f"You might enjoy a weekend in {dest}.", "that does sound nice"),
                (f"Maybe a {species} would be good company?", "not sure, they're a lot of work"),
            ]
            sug = r.choice([p for p in sugs if not self.names_own(p[0])])
            return Exchange([self.bot(sug[0]), Msg("user", casual(r, sug[1]), "distractor:suggestion")])
        # A distractor that names one of the user's own values (the boss is vegan, and so is the
        # user) would make a misread fact count as found: those are left out.
        clean = [p for p in pairs[kind] if not self.names_own(p[0])]
        u, a = r.choice(clean or pairs["task"])
        golds: tuple[str, ...] = ()
        if u in implied:
            slot, value, terms = implied[u]
            golds = (self.gold(slot, value, terms, own=False, required=False).id,)
        return Exchange([Msg("user", casual(r, u), f"distractor:{kind}", golds), self.bot(a)])

    def names_own(self, text: str) -> bool:
        words = set(re.findall(r"[\w-]+", text.lower()))
        return any(v in words if " " not in v else v in text.lower() for v in self.used)

    def greeting(self) -> Exchange:
        u = self.rng.choice(["hey", "hi again!", "good morning :)", "hello", "hey, quick question", "hi"])
        return Exchange([Msg("user", u, "distractor:greeting"), self.bot("Hi! How can I help today?")])

    def sessions(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for i in range(self.n):
            items = list(self.plan[i])
            items += [self.distractor() for _ in range(self.rng.randint(5, 9))]
            self.rng.shuffle(items)
            if self.rng.random() < 0.6:
                items.insert(0, self.greeting())
            sid = f"{self.user_id}-s{i + 1:02d}"
            at = self.starts[i]
            msgs: list[dict[str, Any]] = []
            for ex in items:
                for m in ex.msgs:
                    at += timedelta(seconds=self.rng.randint(15, 150))
                    key = f"{sid}:{len(msgs) + 1}"
                    for gid in m.golds:
                        self.golds[gid].sources.append(key)
                    for gid in m.ends:
                        self.golds[gid].ended_by = key
                    msgs.append(
                        {
                            "seq": len(msgs) + 1,
                            "role": m.role,
                            "content": m.content,
                            "created_at": at.isoformat().replace("+00:00", "Z"),
                            "tag": m.tag,
                        }
                    )
            out.append({"session_id": sid, "messages": msgs})
        return out


def generate(seed: int, users: int, sessions: int) -> dict[str, Any]:
    rng = random.Random(seed)
    base = datetime(2026, 1, 5, tzinfo=UTC)
    out: list[dict[str, Any]] = []
    for i in range(users):
        b = UserBuilder(random.Random(rng.random()), i + 1, sessions, base)
        b.build()
        out.append(
            {
                "user_id": b.user_id,
                "name": b.name,
                "sessions": b.sessions(),
                "gold": [asdict(g) for g in b.golds.values()],
                "updates": b.updates,
                "negations": b.negations,
            }
        )
    return {"meta": {"seed": seed, "users": users, "sessions": sessions}, "users": out}


def describe(data: dict[str, Any]) -> dict[str, Any]:
    users = data["users"]
    msgs = [m for u in users for s in u["sessions"] for m in s["messages"]]
    golds = [g for u in users for g in u["gold"]]
    times = [m["created_at"] for m in msgs]
    tags = Counter(m["tag"].split(":")[0] for m in msgs if m["role"] == "user")
    distract = Counter(m["tag"].split(":")[1] for m in msgs if m["tag"].startswith("distractor:"))
    valid = [g for g in golds if g["status"] == "valid" and g["required"]]
    return {
        "users": len(users),
        "sessions": sum(len(u["sessions"]) for u in users),
        "messages": len(msgs),
        "user_messages": sum(1 for m in msgs if m["role"] == "user"),
        "user_messages_by_role": dict(tags),
        "distractors": dict(distract),
        "span": f"{min(times)[:10]} .. {max(times)[:10]}",
        "gold_facts": len(golds),
        "gold_valid_at_end": len(valid),
        "gold_valid_by_kind": dict(Counter(g["kind"] for g in valid)),
        "optional": sum(1 for g in golds if not g["required"]),
        "updates": sum(len(u["updates"]) for u in users),
        "negations": sum(len(u["negations"]) for u in users),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--users", type=int, default=30)
    ap.add_argument("--sessions", type=int, default=7)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--show", metavar="USER", help="print one user's conversation with its tags")
    args = ap.parse_args()
    data = generate(args.seed, args.users, args.sessions)
    if args.out:
        args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False))
    if args.show:
        user = next(u for u in data["users"] if u["user_id"] == args.show)
        for s in user["sessions"]:
            print(f"--- {s['session_id']}")
            for m in s["messages"]:
                print(f"{m['seq']:>3} {m['created_at'][:16]} {m['role'][:4]:4} {m['content']}   [{m['tag']}]")
        for g in user["gold"]:
            print(g["status"], g["slot"], g["value"], g["sources"], g["ended_by"])
    json.dump(describe(data), sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
