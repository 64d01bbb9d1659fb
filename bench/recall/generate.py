"""Deterministic generator of multi-session conversations with planted facts and paraphrased questions.

    .venv/bin/python -m bench.recall.generate --seed 1 --split tune --out /tmp/recall-tune.json

Each user has a persona (home, job, partner, sibling, pets, hobbies, tastes, health, trips, ...).
Facts are planted in user turns (some stated in full, some only as a terse answer to the
assistant's question, so that the turn makes sense only with the one before it), some in
assistant turns (recommendations), some by a second named speaker (the partner, in sessions
where every user turn carries a speaker name). Some facts change later (a move, a new job).
Events are told on the day they happen, so "when did ..." questions are answered by the
evidence turn's created_at; plans carry their date in the text. Small talk, generic assistant
tasks and same-topic distractors about other people fill the rest.

Questions paraphrase their evidence (different words for the same thing: "dog" for "beagle",
"spouse" for "wife", "Portugal" for "Lisbon") and list the keys (`session_id:seq`) of every
turn that answers them. The `heldout` split uses question phrasings the `tune` split never uses
(every third variant of each question), on top of its own seed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.recall.fillers import FILLERS, MAX_USES
from bench.recall.lexicon import (
    ALLERGIES,
    BANDS,
    BOOKS,
    CAR_COLOURS,
    CARS,
    COMPANIES,
    CONDITIONS,
    CUISINES,
    DISLIKED_FOODS,
    EVENING_COURSES,
    FEMALE_NAMES,
    GIFTS,
    HOBBIES,
    HOME_CITIES,
    JOBS,
    LIKED_BOOKS,
    MALE_NAMES,
    MONTHS,
    MOVIES,
    NEIGHBOURHOOD_BITS,
    PET_NAMES,
    PETS,
    PLANTS,
    PODCASTS,
    RELATIVES_FOR_WEDDINGS,
    RESTAURANTS,
    SCHOOL_GRADES,
    STRETCHES,
    TRIP_DESTINATIONS,
)

CATEGORIES = {
    "user_fact": "a fact the user stated in one turn",
    "context": "a terse answer that needs the assistant's question before it",
    "assistant": "something the assistant said (a recommendation)",
    "update": "the current value of a fact that changed",
    "temporal": "when something happened (the evidence turn's created_at)",
    "plan": "the date of a planned event, stated in the text",
    "speaker": "what a named second speaker (the partner) said",
    "multi_session": "evidence spread over several sessions",
}
MAX_FACTS_PER_SESSION = 3
NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]


@dataclass(eq=False)
class Turn:
    role: str
    content: str
    name: str | None = None
    session: int = -1
    seq: int = -1
    created_at: datetime | None = None

    @property
    def key(self) -> str:
        return f"s{self.session:02d}:{self.seq}"


@dataclass
class Question:
    category: str
    text: str
    answer: str
    evidence: list[Turn]


@dataclass
class Session:
    index: int
    start: datetime
    named: bool = False
    facts: list[list[Turn]] = field(default_factory=list)


@dataclass
class Persona:
    user_id: str
    name: str
    female: bool
    partner: str
    partner_female: bool
    partner_rel: str
    married: bool
    sibling: str
    sibling_rel: str
    sibling_city: str
    city: str
    region: str
    city2: str
    job: str
    job_kind: str
    company: str
    job2: str
    company2: str
    kid: str | None
    kid_rel: str | None
    taken_names: set[str]


def he(female: bool) -> str:
    return "she" if female else "he"


def him(female: bool) -> str:
    return "her" if female else "him"


def his(female: bool) -> str:
    return "her" if female else "his"


def an(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class UserBuilder:
    """Plans one user's sessions, plants the facts and writes the questions."""

    def __init__(self, rng: random.Random, index: int, split: str, n_sessions: int, used: set[str]) -> None:
        self.rng = rng
        self.split = split
        self.questions: list[Question] = []
        self.filler_uses: Counter[Any] = Counter()
        self.p = self._persona(index, used)
        start = datetime(2025, 1, 6, tzinfo=UTC) + timedelta(days=rng.randint(0, 20))
        self.sessions: list[Session] = []
        day = start
        for i in range(n_sessions):
            when = day.replace(hour=rng.randint(7, 22), minute=rng.randint(0, 59))
            self.sessions.append(Session(index=i, start=when, named=rng.random() < 0.25))
            day += timedelta(days=rng.randint(3, 12))

    # --- persona ----------------------------------------------------------------------------------

    def _persona(self, index: int, used: set[str]) -> Persona:
        r = self.rng
        female = r.random() < 0.5
        name = r.choice([n for n in (FEMALE_NAMES if female else MALE_NAMES) if n not in used])
        used.add(name)
        taken = {name}

        def person(fem: bool) -> str:
            n = r.choice([x for x in (FEMALE_NAMES if fem else MALE_NAMES) if x not in taken])
            taken.add(n)
            return n

        partner_female = r.random() < (0.85 if not female else 0.15)
        married = r.random() < 0.6
        partner_rel = (
            ("wife" if partner_female else "husband")
            if married
            else ("girlfriend" if partner_female else "boyfriend")
        )
        partner = person(partner_female)
        sib_female = r.random() < 0.5
        sibling = person(sib_female)
        cities = r.sample(HOME_CITIES, 3)
        jobs = r.sample(JOBS, 2)
        companies = r.sample(COMPANIES, 2)
        kid = kid_rel = None
        if r.random() < 0.45:
            kid_female = r.random() < 0.5
            kid = person(kid_female)
            kid_rel = "daughter" if kid_female else "son"
        return Persona(
            user_id=f"u{index:02d}-{name.lower()}",
            name=name,
            female=female,
            partner=partner,
            partner_female=partner_female,
            partner_rel=partner_rel,
            married=married,
            sibling=sibling,
            sibling_rel="sister" if sib_female else "brother",
            sibling_city=cities[2][0],
            city=cities[0][0],
            region=cities[0][1],
            city2=cities[1][0],
            job=jobs[0][0],
            job_kind=jobs[0][1],
            company=companies[0],
            job2=jobs[1][0],
            company2=companies[1],
            kid=kid,
            kid_rel=kid_rel,
            taken_names=taken,
        )

    # --- helpers ----------------------------------------------------------------------------------

    def pick(self, options: list[str]) -> str:
        return self.rng.choice(options)

    def qpick(self, options: list[str]) -> str:
        """A question phrasing: `heldout` gets every third variant, `tune` the others."""
        want_held = self.split == "heldout"
        idx = [i for i in range(len(options)) if (i % 3 == 2) == want_held] or list(range(len(options)))
        return options[self.rng.choice(idx)]

    def ask(self, category: str, options: list[str], answer: str, evidence: list[Turn]) -> None:
        self.questions.append(Question(category, self.qpick(options), answer, evidence))

    def session(self, lo: float, hi: float, named: bool = False) -> Session:
        """A session in the [lo, hi) fraction of the timeline with room for one more fact."""
        n = len(self.sessions)
        a, b = int(lo * n), max(int(lo * n) + 1, int(hi * n))
        order = list(range(a, min(b, n)))
        self.rng.shuffle(order)
        order += sorted(range(n), key=lambda i: abs(i - a))  # fallback: the nearest with room
        for i in order:
            s = self.sessions[i]
            if len(s.facts) < MAX_FACTS_PER_SESSION and (not named or s.named or len(s.facts) == 0):
                if named:
                    s.named = True
                return s
        return self.sessions[order[0]]

    def plant(self, s: Session, *turns: Turn) -> list[Turn]:
        s.facts.append(list(turns))
        return list(turns)

    def ack(self) -> str:
        return self.pick(
            [
                "Thanks for telling me, I'll keep that in mind.",
                "Good to know! I'll remember that.",
                "Noted. Let me know if you want help with anything related.",
                "Got it, thanks for the update.",
                "That's really good to hear.",
                "Oh, interesting! Thanks for sharing.",
            ]
        )

    def say_date(self, d: datetime) -> str:
        month = MONTHS[d.month - 1]
        return self.pick(
            [f"{month} {d.day}", f"{month} {ordinal(d.day)}", f"the {ordinal(d.day)} of {month}"]
        )

    def u(self, content: str) -> Turn:
        return Turn("user", content)

    def a(self, content: str) -> Turn:
        return Turn("assistant", content)

    # --- the facts --------------------------------------------------------------------------------

    def home(self) -> None:
        p = self.p
        s = self.session(0.0, 0.3)
        stated = self.u(
            self.pick(
                [
                    f"We've been in {p.city} for about {self.rng.randint(2, 9)} years now, our apartment is "
                    f"{self.pick(NEIGHBOURHOOD_BITS)}.",
                    f"One nice thing about living in {p.city}: the food scene. Our place is "
                    f"{self.pick(NEIGHBOURHOOD_BITS)}, so we walk everywhere.",
                    f"I've lived in {p.city} since college and I still love it here, especially in the fall.",
                    f"Winter in {p.city} is long, but our little house "
                    f"{self.pick(NEIGHBOURHOOD_BITS)} is cosy.",
                ]
            )
        )
        self.plant(s, stated, self.a(self.ack()))
        self.ask(
            "user_fact",
            [
                "Which city am I based in?",
                "Which city do I live in?",
                "What town do I call home?",
                "Where was I living at the start of the year?",
                "In which city is my apartment?",
                "What city did I live in before?",
            ],
            p.city,
            [stated],
        )
        s2 = self.session(0.6, 0.9)
        moved = self.u(
            self.pick(
                [
                    f"Big news: {p.partner} got the job, so we're packing up and moving to {p.city2} at the "
                    "end of the month.",
                    f"The movers came today. We're officially {p.city2} residents now! Boxes everywhere.",
                    f"Our lease in {p.city} is up and we signed for a place in {p.city2}, closer to "
                    f"{p.partner}'s family.",
                    f"First night in the new apartment in {p.city2}. No furniture yet, just a mattress.",
                ]
            )
        )
        self.plant(
            s2,
            moved,
            self.a(
                self.pick(
                    [
                        "Congratulations on the move! Want a checklist for the first weeks?",
                        "That's a big change! Remember to update your address with the bank and your doctor.",
                        "Exciting! Moving is exhausting, so be kind to yourself for the next few weeks.",
                    ]
                )
            ),
        )
        self.ask(
            "update",
            [
                "Where do I live now?",
                "Which city did we move to?",
                "What's my current city after the move?",
                "Where is our new home?",
                "Which place did we end up moving to?",
                "What city am I settling into these days?",
            ],
            p.city2,
            [moved],
        )

    def job(self) -> None:
        p = self.p
        s = self.session(0.0, 0.35)
        stated = self.u(
            self.pick(
                [
                    f"Long shift today. Being {an(p.job)} at {p.company} is rewarding, but I'm exhausted.",
                    f"I've been {an(p.job)} for {self.rng.randint(3, 12)} years, currently at {p.company}.",
                    f"Work at {p.company} is hectic this quarter. I'm the only {p.job} on a team of twelve.",
                    f"Quick context for later: I work as {an(p.job)} over at {p.company}.",
                ]
            )
        )
        self.plant(
            s,
            stated,
            self.a(
                self.pick(
                    [
                        "That sounds demanding. Make sure you get some real downtime this week.",
                        "Thanks for the context, it helps me tailor suggestions.",
                        "That's a tough load. Want help organising your week?",
                    ]
                )
            ),
        )
        self.ask(
            "user_fact",
            [
                "What do I do for a living?",
                "Where do I work?",
                "What is my occupation?",
                "What kind of work do I do?",
                "What's my line of work?",
                "What was my role before I switched employers?",
            ],
            p.job,
            [stated],
        )
        s2 = self.session(0.55, 0.95)
        changed = self.u(
            self.pick(
                [
                    f"I accepted an offer! Leaving {p.company} to be {an(p.job2)} at {p.company2}.",
                    f"First day at {p.company2} today. New badge, new laptop, new everything.",
                    f"I finally handed in my notice. Starting at {p.company2} on Monday as {an(p.job2)}.",
                    f"Signed with {p.company2} this morning, so it's my last month at {p.company}.",
                ]
            )
        )
        self.plant(
            s2,
            changed,
            self.a(
                self.pick(
                    [
                        "Congratulations! That's a big step. How are you feeling about it?",
                        "Amazing news, well deserved. Good luck with the first weeks!",
                        "Exciting! A fresh start can be really energising.",
                    ]
                )
            ),
        )
        self.ask(
            "update",
            [
                "Who do I work for now?",
                "Which company did I switch to?",
                "Who is my current employer?",
                "What organisation hired me?",
                "Where am I employed these days?",
                "What firm did I join?",
            ],
            p.company2,
            [changed],
        )

    def partner(self) -> None:
        p = self.p
        s = self.session(0.0, 0.5)
        together = "married" if p.married else "together"
        pt = self.pick(["an ER nurse", "a middle school teacher", "a lawyer", "a chef", "a firefighter"])
        stated = self.u(
            self.pick(
                [
                    f"{p.partner} and I have been {together} for {self.rng.randint(2, 12)} years. "
                    f"{cap(he(p.partner_female))} works as {pt}, so our schedules rarely line up.",
                    f"My {p.partner_rel} {p.partner} is {pt}, which means a lot of late nights for "
                    f"{him(p.partner_female)}.",
                    f"Date night tonight with my {p.partner_rel}, {p.partner}. First one in a month!",
                ]
            )
        )
        self.plant(s, stated, self.a(self.ack()))
        spouse = "spouse" if p.married else "significant other"
        self.ask(
            "user_fact",
            [
                f"What is my {spouse}'s name?",
                f"What's my {p.partner_rel}'s name?",
                "Who am I in a relationship with?",
                f"What's the name of my {spouse}?",
                "Who is my partner?",
                "Whom do I share my life with?",
            ],
            p.partner,
            [stated],
        )

    def sibling(self) -> None:
        p = self.p
        s = self.session(0.0, 0.6)
        sf = p.sibling_rel == "sister"
        stated = self.u(
            self.pick(
                [
                    f"My {p.sibling_rel} {p.sibling} lives in {p.sibling_city} with {his(sf)} two kids, "
                    "I try to visit twice a year.",
                    f"Flying out to see {p.sibling} in {p.sibling_city} soon. My {p.sibling_rel} has lived "
                    "there for ages.",
                    f"{p.sibling}, my {p.sibling_rel}, just bought a house in {p.sibling_city}. I'm so proud "
                    f"of {him(sf)}.",
                ]
            )
        )
        self.plant(s, stated, self.a(self.ack()))
        self.ask(
            "user_fact",
            [
                f"Where does my {p.sibling_rel} live?",
                "Which city is my sibling based in?",
                f"What city would I travel to in order to visit my {p.sibling_rel}?",
                f"Where is {p.sibling}'s home?",
                "In which city does my sibling reside?",
                f"Where would I find my {p.sibling_rel} these days?",
            ],
            p.sibling_city,
            [stated],
        )

    def pets(self) -> None:
        p = self.p
        species = self.rng.choice(["dog", "dog", "cat", "cat", "rabbit", "bird", "reptile"])
        noun, breeds = PETS[species]
        breed = self.pick(breeds)
        pet = self.pick([n for n in PET_NAMES if n not in p.taken_names])
        p.taken_names.add(pet)
        fem = self.rng.random() < 0.5
        s = self.session(0.05, 0.5)
        if self.rng.random() < 0.5:  # stated in full
            stated = self.u(
                self.pick(
                    [
                        f"We brought home {an(breed)} today! {pet} is asleep on my feet as I type.",
                        f"Meet {pet}, our new {breed}. Adopted {him(fem)} from the shelter this morning.",
                        f"I finally did it and got {an(breed)}. I named {him(fem)} {pet}.",
                    ]
                )
            )
            self.plant(
                s,
                stated,
                self.a(
                    self.pick(
                        [
                            "Congratulations! The first few weeks are a big adjustment, for both of you.",
                            "That's wonderful news. Want some tips for the first nights at home?",
                        ]
                    )
                ),
            )
            event, named = stated, stated
            cat_name = "user_fact"
        else:  # the name only in a terse answer to the assistant's question
            event = self.u(
                self.pick(
                    [
                        f"Guess who just brought home {an(breed)}!",
                        f"We did it, we adopted {an(breed)} from the rescue today.",
                        f"So there's {an(breed)} living with us now, as of this afternoon.",
                    ]
                )
            )
            q = self.a(
                self.pick(
                    [
                        "No way, congratulations! What did you name the little one?",
                        "That's so exciting! Does the newest family member have a name yet?",
                        "Oh how wonderful. What are you calling them?",
                    ]
                )
            )
            named = self.u(
                self.pick([f"{pet}. The name just fit.", f"{pet}! The kids voted.", f"We went with {pet}."])
            )
            self.plant(s, event, q, named, self.a(f"{pet} is a great name. Enjoy the cuddles!"))
            cat_name = "context"
        self.ask(
            cat_name,
            [
                f"What's my {noun} called?",
                f"What name did I give my {noun}?",
                "What is my pet's name?",
                f"What did I name my {noun}?",
                f"What's the name of the {noun} we adopted?",
                "How is our pet called?",
            ],
            pet,
            [named],
        )
        self.ask(
            "temporal",
            [
                f"When did I get my {noun}?",
                "When did our pet join the family?",
                f"When did we adopt the {noun}?",
                f"How long have I had my {noun}?",
                f"On what date did the {noun} come home with us?",
                "When did I become a pet owner?",
            ],
            "{date}",
            [event],
        )
        if self.rng.random() < 0.45:  # a second pet, later: a multi-session question
            species2 = self.rng.choice([x for x in PETS if x != species])
            breeds2 = PETS[species2][1]
            pet2 = self.pick([n for n in PET_NAMES if n not in p.taken_names])
            p.taken_names.add(pet2)
            s2 = self.session(0.55, 1.0)
            second = self.u(
                self.pick(
                    [
                        f"{pet} has a new sibling: {an(self.pick(breeds2))} named {pet2}. Chaos at home.",
                        f"We added {an(self.pick(breeds2))} to the family, {pet2}. {pet} is not impressed.",
                    ]
                )
            )
            self.plant(s2, second, self.a("Ha, give them time. Introductions go best slowly."))
            self.ask(
                "multi_session",
                [
                    "What animals live in my home?",
                    "How many pets do I have, and what are they?",
                    "What are the names of all my pets?",
                    "Which animals do I look after?",
                    "List the pets in our household.",
                    "What creatures share our home?",
                ],
                f"{pet} and {pet2}",
                [named, second],
            )

    def hobbies(self) -> None:
        picks = self.rng.sample(HOBBIES, 2)
        turns = []
        for i, (statements, kind) in enumerate(picks):
            s = self.session(0.0 if i == 0 else 0.4, 0.5 if i == 0 else 1.0)
            body = self.pick(statements)
            t = self.u(
                self.pick([f"Random update: {body}.", f"{cap(body)}!", f"Not sure I told you, but {body}."])
            )
            self.plant(
                s,
                t,
                self.a(
                    self.pick(
                        [
                            "That's fantastic, a hobby like that is great for your head.",
                            "Love that! Sticking with it is the hard part, and you're doing it.",
                            "That sounds really fun. Do you want any resources to keep progressing?",
                        ]
                    )
                ),
            )
            turns.append(t)
            self.ask(
                "user_fact",
                [
                    f"What {kind} have I taken up?",
                    f"Which {kind} did I get into?",
                    f"What {kind} do I do in my free time?",
                    f"What {kind} am I into lately?",
                    f"Tell me about the {kind} I started.",
                    f"What {kind} keeps me busy these days?",
                ],
                body,
                [t],
            )
        self.ask(
            "multi_session",
            [
                "What hobbies have I mentioned?",
                "What do I do for fun?",
                "Which pastimes do I have?",
                "What activities fill my spare time?",
                "What am I doing for fun these days?",
                "Name my leisure activities.",
            ],
            "; ".join(t.content for t in turns),
            turns,
        )

    def food(self) -> None:
        food, kind = self.rng.choice(DISLIKED_FOODS)
        s = self.session(0.0, 1.0)
        t = self.u(
            self.pick(
                [
                    f"Please never put {food} in anything you suggest, I can't stand it.",
                    f"Whatever we cook, no {food}. It's the one thing I refuse to eat.",
                    f"I picked all the {food} off my plate at dinner again. I just can't do it.",
                    f"Can you redo that recipe without the {food}? It's a hard no for me.",
                ]
            )
        )
        self.plant(
            s, t, self.a(self.pick(["Noted, I'll leave it out from now on.", "Of course, easy swap."]))
        )
        self.ask(
            "user_fact",
            [
                f"Which {kind} do I hate?",
                f"Is there {an(kind)} I won't touch?",
                "What should be left out of my meals?",
                "What do I refuse to eat?",
                f"What {kind} should never go in my dishes?",
                "What can't I stand eating?",
            ],
            food,
            [t],
        )
        if self.rng.random() < 0.6:
            cuisine, dish = self.rng.choice(CUISINES)
            s = self.session(0.0, 1.0)
            t = self.u(
                self.pick(
                    [
                        f"Honestly I could eat {cuisine} every day. {cap(dish)} is my comfort food.",
                        f"If it were up to me we'd have {cuisine} every Friday, I never get tired of {dish}.",
                    ]
                )
            )
            self.plant(s, t, self.a(self.pick(["Good taste!", "That sounds delicious, I get it."])))
            self.ask(
                "user_fact",
                [
                    "What kind of cooking do I love most?",
                    "What's my favourite type of food?",
                    "Which cuisine is my favourite?",
                    "What do I like to eat best?",
                    "What food do I crave the most?",
                    "What's my go-to comfort meal?",
                ],
                cuisine,
                [t],
            )

    def health(self) -> list[Turn]:
        allergen, kind, how = self.rng.choice(ALLERGIES)
        s = self.session(0.0, 1.0)
        t = self.u(
            self.pick(
                [
                    f"Just so you know, I'm allergic to {allergen}: {how}.",
                    f"Note for the future: no {allergen} for me, I'm allergic. {cap(how)}.",
                    f"I should mention I have a {allergen} allergy. {cap(how)}.",
                ]
            )
        )
        self.plant(s, t, self.a("Thanks, that's important. I'll keep it in mind whenever it's relevant."))
        self.ask(
            "user_fact",
            [
                f"Which {kind} gives me a bad reaction?",
                "Do I have any allergies a doctor should know about?",
                f"What {kind} should I stay away from?",
                "What am I allergic to?",
                "Is there anything my body reacts badly to?",
                f"What {kind} am I sensitive to?",
            ],
            allergen,
            [t],
        )
        turns = [t]
        if self.rng.random() < 0.7:
            cond, kind = self.rng.choice(CONDITIONS)
            s = self.session(0.0, 1.0)
            t2 = self.u(self.pick([f"{cap(cond)}.", f"Ugh, {cond}.", f"Health update: {cond}."]))
            self.plant(
                s,
                t2,
                self.a(
                    self.pick(
                        [
                            "I'm sorry, that's a lot to deal with. Following the plan closely really helps.",
                            "That sounds frustrating. Let me know if you want help building new routines.",
                        ]
                    )
                ),
            )
            self.ask(
                "user_fact",
                [
                    "What health problem am I dealing with?",
                    "What did the doctor find?",
                    f"Do I have any {kind} issue?",
                    "What medical condition do I have?",
                    "What's going on with my health?",
                    "What diagnosis did I get?",
                ],
                cond,
                [t2],
            )
            turns.append(t2)
            self.ask(
                "multi_session",
                [
                    "What should a new doctor know about my health?",
                    "Summarise my medical issues.",
                    "What health information have I shared?",
                    "List my health concerns.",
                    "What should I put on a medical intake form?",
                    "Which medical facts about me matter?",
                ],
                f"{allergen}; {cond}",
                turns,
            )
        return turns

    def car(self) -> None:
        car = f"{self.pick(CAR_COLOURS)} {self.pick(CARS)}"
        s = self.session(0.1, 1.0)
        answer = self.u(
            self.pick(
                [
                    f"A used {car}, only thirty thousand miles on it.",
                    f"A {car}! Test drove three and this one just felt right.",
                    f"We went with the {car}. Good mileage, big trunk.",
                ]
            )
        )
        self.plant(
            s,
            self.u(
                self.pick(
                    [
                        "Okay, I finally replaced the old car.",
                        "Signed the paperwork at the dealership today, new wheels!",
                        "The old car is gone, we traded it in this afternoon.",
                    ]
                )
            ),
            self.a(self.pick(["Oh nice! What did you end up getting?", "Exciting! Which one did you pick?"])),
            answer,
            self.a("Great choice. Enjoy it, and don't forget to check the insurance."),
        )
        self.ask(
            "context",
            [
                "What am I driving now?",
                "What vehicle did I buy?",
                "What model is my car?",
                "Which automobile do I own?",
                "What did I get at the dealership?",
                "What kind of ride do I have?",
            ],
            car,
            [answer],
        )

    def kid(self) -> None:
        p = self.p
        if p.kid is None or p.kid_rel is None:
            return
        kf = p.kid_rel == "daughter"
        s = self.session(0.0, 1.0)
        if self.rng.random() < 0.5:
            age = self.rng.randint(4, 11)
            answer = self.u(
                self.pick(
                    [
                        f"{cap(NUMBER_WORDS[age])}. How did that happen so fast?",
                        f"{cap(NUMBER_WORDS[age])}, can you believe it?",
                    ]
                )
            )
            self.plant(
                s,
                self.u(f"{p.kid}'s birthday party is Saturday and I have done zero planning."),
                self.a(f"Plenty of time! How old is {he(kf)} turning?"),
                answer,
                self.a("That's such a fun age. Want some easy party ideas?"),
            )
            self.ask(
                "context",
                [
                    f"How old is my {p.kid_rel}?",
                    f"What age did {p.kid} turn?",
                    f"How old is {p.kid} now?",
                    "What age is my child?",
                    f"How many years old is my {p.kid_rel}?",
                    f"What birthday did {p.kid} celebrate?",
                ],
                str(age),
                [answer],
            )
        else:
            grade = self.pick(SCHOOL_GRADES)
            t = self.u(
                self.pick(
                    [
                        f"{p.kid} started {grade} this week and cried at drop-off. Me, not {him(kf)}.",
                        f"Can't believe {p.kid} is in {grade} now. The backpack is bigger than {he(kf)} is.",
                    ]
                )
            )
            self.plant(s, t, self.a("Aww. Big milestone for both of you!"))
            self.ask(
                "user_fact",
                [
                    f"What grade is my {p.kid_rel} in?",
                    f"What year of school is {p.kid} in?",
                    "Which grade is my kid attending?",
                    f"What class level did {p.kid} enter?",
                    f"Where is my {p.kid_rel} in school now?",
                    "What school year is my child in?",
                ],
                grade,
                [t],
            )

    def course(self) -> None:
        subject, when = self.rng.choice(EVENING_COURSES)
        s = self.session(0.0, 1.0)
        answer = self.u(
            self.pick([f"{cap(subject)}, {when}. Wish me luck.", f"{cap(subject)}! It meets {when}."])
        )
        self.plant(
            s,
            self.u(
                self.pick(
                    [
                        "I signed up for a class at the community college, first session is tonight.",
                        "I enrolled in an evening course, something I've wanted to do for years.",
                    ]
                )
            ),
            self.a(
                self.pick(["That's exciting! What are you studying?", "Good for you! What's the subject?"])
            ),
            answer,
            self.a("Love that. Going back to learning as an adult is really rewarding."),
        )
        self.ask(
            "context",
            [
                "What subject am I taking at night school?",
                "What course did I enrol in?",
                "What am I studying in the evenings?",
                "Which class am I attending at the college?",
                "What's the topic of my evening lessons?",
                "What did I sign up to learn?",
            ],
            subject,
            [answer],
        )

    def concert(self) -> None:
        band = self.pick(BANDS)
        s = self.session(0.0, 1.0)
        t = self.u(
            self.pick(
                [
                    f"Still buzzing from the {band} show last night, they played for almost three hours.",
                    f"Saw {band} live tonight and my ears are ringing. Worth it.",
                ]
            )
        )
        self.plant(
            s,
            t,
            self.a(self.pick(["That sounds amazing! What was the highlight?", "So jealous. Glad you went!"])),
        )
        self.ask(
            "temporal",
            [
                f"When did I see {band} perform?",
                "When did I go to that concert?",
                "When was the gig I attended?",
                f"When did I catch {band} on stage?",
                "When was the last live music I saw?",
                f"What date was the {band} concert?",
            ],
            "{date}",
            [t],
        )

    def events(self) -> None:
        p = self.p
        sf = p.sibling_rel == "sister"
        baby = self.pick(["Ava", "Milo", "Rosie", "Ezra", "June", "Otis"])
        catalogue = [
            (
                [
                    "Got my wisdom teeth out this morning and my face looks like a chipmunk.",
                    "Oral surgeon pulled two wisdom teeth today. Living on yogurt for a week.",
                ],
                [
                    "When did I have oral surgery?",
                    "When did I get my wisdom teeth out?",
                    "When did I go under for dental surgery?",
                    "When did the dentist remove my teeth?",
                ],
            ),
            (
                [
                    f"Finished the half marathon today in 1:{self.rng.randint(40, 59)}, legs are jelly.",
                    "Crossed the finish line of my first half marathon this morning, cried a little.",
                ],
                [
                    "When did I run my race?",
                    "When did I run the half marathon?",
                    "When was my big running event?",
                    "On what day did I do the long-distance race?",
                ],
            ),
            (
                [
                    f"Back from my {self.pick(RELATIVES_FOR_WEDDINGS)}'s wedding, danced until 2am and my "
                    "feet are wrecked.",
                    f"My {self.pick(RELATIVES_FOR_WEDDINGS)} got married today and I gave a toast without "
                    "crying. Mostly.",
                ],
                [
                    "When did I attend a wedding?",
                    "When was that wedding I went to?",
                    "When did I give that toast?",
                    "When was the nuptial celebration?",
                ],
            ),
            (
                [
                    f"I got promoted to senior {p.job} today!",
                    "My manager just told me I'm getting the senior title. Celebrating tonight!",
                ],
                [
                    "When did I move up at work?",
                    "When did I get promoted?",
                    "When did I get a better title?",
                    "When was I given more seniority?",
                ],
            ),
            (
                [
                    "Someone rear-ended me at a red light this morning. Everyone's fine, the bumper isn't.",
                    "Had a fender bender in the grocery store parking lot today. So annoying.",
                ],
                [
                    "When was my car accident?",
                    "When did I get hit in traffic?",
                    "When was the collision?",
                    "When did my vehicle get damaged?",
                ],
            ),
            (
                [
                    "Tested positive for COVID today, so I'm stuck in bed with tea and tissues.",
                    "I've got the flu, fever of 102 all day. Sorry if I'm slow to reply.",
                ],
                [
                    "When was I sick?",
                    "When did I come down with that illness?",
                    "When was I stuck in bed unwell?",
                    "When did I catch a virus?",
                ],
            ),
            (
                [
                    f"My {p.sibling_rel} had {his(sf)} baby last night, a little one named {baby}!",
                    f"{p.sibling} just called from the hospital: baby {baby} arrived this morning!",
                ],
                [
                    "When did I become an aunt or uncle?",
                    "When was my niece or nephew born?",
                    "When did the newest member of the family arrive?",
                    f"When was {baby} born?",
                ],
            ),
            (
                [
                    "I chopped off all my hair today, like ten inches. Feels so light.",
                    "Went to the salon and came out with a pixie cut. Very dramatic.",
                ],
                [
                    "When did I get the big haircut?",
                    "When did I cut my hair short?",
                    "When did I go short with my hair?",
                    "When was my salon makeover?",
                ],
            ),
        ]
        for statements, questions in self.rng.sample(catalogue, 3):
            s = self.session(0.0, 1.0)
            t = self.u(self.pick(statements))
            self.plant(
                s,
                t,
                self.a(
                    self.pick(
                        [
                            "Wow, what a day! Thanks for telling me.",
                            "That's a big one. How are you feeling?",
                            "Oh wow. Take it easy tonight.",
                        ]
                    )
                ),
            )
            self.ask("temporal", questions, "{date}", [t])

    def trips(self) -> None:
        dests = self.rng.sample(TRIP_DESTINATIONS, self.rng.choice([2, 2, 3]))
        turns = []
        fracs = [(0.05, 0.4), (0.4, 0.75), (0.75, 1.0)]
        for (city, country, detail), (lo, hi) in zip(dests, fracs, strict=False):
            s = self.session(lo, hi)
            t = self.u(
                self.pick(
                    [
                        f"Just got back from {city}. {cap(detail)}.",
                        f"Home from {city} last night. Best trip in years, {detail}.",
                        f"Writing this from the airport on the way back from {city}: {detail}.",
                    ]
                )
            )
            self.plant(
                s, t, self.a(self.pick(["Welcome back! That sounds incredible.", "What a trip! Any photos?"]))
            )
            turns.append(t)
            self.ask(
                "temporal",
                [
                    f"When did I visit {country}?",
                    f"When did I go to {city}?",
                    f"When did I come back from {country}?",
                    f"When was I travelling in {country}?",
                    f"When did I vacation in {country}?",
                    f"When did I get back from {city}?",
                ],
                "{date}",
                [t],
            )
        self.ask(
            "multi_session",
            [
                "Which countries have I travelled to recently?",
                "Where have I been on vacation this year?",
                "What trips abroad have I taken?",
                "List the places I've visited on holiday.",
                "Which foreign destinations have I been to?",
                "Where did I go on my travels?",
            ],
            ", ".join(c for _, c, _ in dests),
            turns,
        )

    def plans(self) -> None:
        p = self.p
        options = ["flight", "birthday", "cardiology", "lease", "race"]
        for kind in self.rng.sample(options, 2):
            s = self.session(0.0, 0.9)
            d = s.start + timedelta(days=self.rng.randint(10, 60))
            date = self.say_date(d)
            if kind == "flight":
                city, country, _ = self.rng.choice(TRIP_DESTINATIONS)
                text = self.pick(
                    [
                        f"My flight to {city} is on {date} and I still haven't booked a hotel.",
                        f"Booked it! Heading to {city} on {date}, window seat.",
                    ]
                )
                qs = [
                    f"When do I leave for {country}?",
                    f"When is my flight to {city}?",
                    f"What day does my {country} trip start?",
                    f"When is my departure to {country}?",
                ]
            elif kind == "birthday":
                text = self.pick(
                    [
                        f"{p.partner}'s birthday is {date} and I have no idea what to get "
                        f"{him(p.partner_female)}.",
                        f"Reminder to self: {p.partner} turns {self.rng.randint(28, 45)} on {date}.",
                    ]
                )
                rel = "spouse" if p.married else "partner"
                qs = [
                    f"When is my {rel}'s birthday?",
                    f"What day was {p.partner} born?",
                    f"When should I celebrate {p.partner}'s special day?",
                    f"When does my {rel} get a year older?",
                ]
            elif kind == "cardiology":
                text = self.pick(
                    [
                        f"I have a cardiology follow-up on {date} at 9, remind me to fast the night before?",
                        f"The cardiologist moved my appointment to {date}.",
                    ]
                )
                qs = [
                    "When is my heart doctor appointment?",
                    "When do I see the heart specialist?",
                    "What's the date of my cardiac check-up?",
                    "When is my next visit about my heart?",
                ]
            elif kind == "lease":
                text = self.pick(
                    [
                        f"Our lease ends on {date}, so we need to decide about renewing soon.",
                        f"The landlord says we have until {date} before the rental agreement expires.",
                    ]
                )
                qs = [
                    "When does our rental contract run out?",
                    "When does our lease end?",
                    "What's the end date of our tenancy?",
                    "When does the apartment agreement finish?",
                ]
            else:
                text = self.pick(
                    [
                        f"I signed up for a 10k on {date}. Six weeks to get ready.",
                        f"Registered for the charity 10k, it's on {date}.",
                    ]
                )
                qs = [
                    "When is my running race?",
                    "When is the 10k I signed up for?",
                    "When is the charity run?",
                    "When do I run the ten kilometre event?",
                ]
            t = self.u(text)
            self.plant(
                s, t, self.a(self.pick(["Got it, I'll remember the date.", "Noted! That's coming up."]))
            )
            self.ask("plan", qs, f"{d:%Y-%m-%d}", [t])

    def assistant_recs(self) -> None:
        p = self.p
        kinds = ["book", "restaurant", "gift", "podcast", "plant", "movie", "stretch"]
        for kind in self.rng.sample(kinds, 3):
            s = self.session(0.0, 1.0)
            if kind == "book":
                title, author, blurb = self.rng.choice(BOOKS)
                liked = self.pick(LIKED_BOOKS)
                ask = f"I need something to read on the plane next week. I loved {liked}. Suggestions?"
                rec = f"If you liked {liked}, try '{title}' by {author}: {blurb}. It's a great travel read."
                qs = [
                    "Which book did you recommend for my flight?",
                    "What novel did you suggest I read on the trip?",
                    "What title did you tell me to pack for the journey?",
                    "What reading did you propose for my travels?",
                ]
                answer = title
            elif kind == "restaurant":
                name, cuisine, detail = self.rng.choice(RESTAURANTS)
                ask = self.pick(
                    [
                        "Our anniversary is coming up. Where should we go for dinner?",
                        f"I want to take {p.partner} somewhere special for a birthday dinner.",
                    ]
                )
                rec = f"I'd book {name}: {cuisine}, {detail}. Reserve about a week ahead."
                qs = [
                    "What place did you suggest for our special dinner?",
                    "Which restaurant did you recommend for the celebration?",
                    "Where did you tell me to eat out for the occasion?",
                    "What spot did you pick for our night out?",
                ]
                answer = name
            elif kind == "gift":
                gift, _ = self.rng.choice(GIFTS)
                ask = f"{p.partner}'s birthday is coming up and I'm completely out of ideas."
                rec = f"How about {gift}? Thoughtful without being over the top."
                rel = "spouse" if p.married else "partner"
                qs = [
                    f"What present did you suggest for my {rel}?",
                    f"What did you think I should give {p.partner}?",
                    f"Which gift idea did you come up with for {p.partner}?",
                    f"What did you propose I buy for my {rel}?",
                ]
                answer = gift
            elif kind == "podcast":
                name, desc = self.rng.choice(PODCASTS)
                ask = "My commute is an hour each way now. Anything good to listen to?"
                rec = f"Try {name}: {desc}. The early episodes are a great place to start."
                qs = [
                    "Which show did you recommend for my drive?",
                    "What audio series did you suggest for the commute?",
                    "What did you tell me to listen to in the car?",
                    "Which podcast did you propose for my travel to work?",
                ]
                answer = name
            elif kind == "plant":
                plant, why = self.rng.choice(PLANTS)
                ask = "Our apartment barely gets any sunlight. What won't die on me?"
                rec = f"Go with {plant}: {why}."
                qs = [
                    "Which houseplant did you suggest for our dark flat?",
                    "What greenery did you recommend for low light?",
                    "What indoor plant did you tell me to get?",
                    "Which plant did you say would survive in our home?",
                ]
                answer = plant
            elif kind == "movie":
                movie, why = self.rng.choice(MOVIES)
                ask = "Movie night with the in-laws on Sunday. Something everyone will like?"
                rec = f"{movie}: {why}, and nobody will be uncomfortable."
                qs = [
                    "What film did you suggest for watching with family?",
                    "Which movie did you recommend for the in-laws?",
                    "What did you say we should watch together on Sunday?",
                    "What was your pick for our family screening?",
                ]
                answer = movie
            else:
                moves, area = self.rng.choice(STRETCHES)
                ask = f"My {area} has been bothering me at my desk. Any exercises?"
                rec = f"Try {moves}, ten slow reps twice a day, and stop if anything is sharp."
                qs = [
                    f"What exercises did you give me for my {area}?",
                    f"What stretches did you suggest to help my {area}?",
                    f"What routine did you recommend for the {area} pain?",
                    f"Which movements did you advise for my sore {area}?",
                ]
                answer = moves
            a_turn = self.a(rec)
            self.plant(
                s,
                self.u(ask),
                a_turn,
                self.u(self.pick(["Perfect, thanks!", "Ooh, good one.", "I'll try that."])),
                self.a("Enjoy!"),
            )
            self.ask("assistant", qs, answer, [a_turn])

    def speaker(self) -> None:
        p = self.p
        kinds = ["allergy", "instrument", "vacation", "news"]
        for kind in self.rng.sample(kinds, 2):
            s = self.session(0.0, 1.0, named=True)
            if kind == "allergy":
                allergen = self.pick(["sesame", "strawberries", "soy", "eggs", "mustard"])
                said = (
                    f"Jumping in here: I can't eat {allergen}, I react badly. Please leave it off the menu."
                )
                lead = self.u(
                    self.pick(
                        [
                            "Planning the dinner menu for Saturday.",
                            "We're hosting friends this weekend, menu help?",
                        ]
                    )
                )
                qs = [
                    f"What can't {p.partner} eat?",
                    f"What food should I avoid when cooking for {p.partner}?",
                    f"Which ingredient is {p.partner} allergic to?",
                    f"What does {p.partner} react badly to?",
                ]
                answer = allergen
            elif kind == "instrument":
                inst = self.pick(["cello", "drums", "violin", "piano", "saxophone"])
                said = (
                    f"Also, I've started {inst} lessons, so don't book anything for me on Thursday evenings."
                )
                lead = self.u("Can you help us sort out the family calendar for next month?")
                qs = [
                    f"What instrument is {p.partner} learning?",
                    f"Which music lessons is {p.partner} taking?",
                    f"What does {p.partner} play now?",
                    f"Why is {p.partner} busy on Thursday nights?",
                ]
                answer = inst
            elif kind == "vacation":
                said = self.pick(
                    [
                        "For the trip, I'd much rather do mountains than a beach. I burn in five minutes.",
                        "My vote for the holiday: a cabin in the mountains, no beaches please.",
                    ]
                )
                lead = self.u("We're trying to plan our summer vacation and can't agree.")
                qs = [
                    f"What kind of holiday does {p.partner} prefer?",
                    f"Where would {p.partner} rather go on vacation?",
                    f"What did {p.partner} say about the summer trip?",
                    f"What type of getaway does {p.partner} want?",
                ]
                answer = "mountains, not the beach"
            else:
                said = self.pick(
                    [
                        "Quick brag: I got the team lead position today!",
                        "I got the promotion, by the way. Team lead starting next month!",
                    ]
                )
                lead = self.u("Can you help me draft a toast for a small celebration tonight?")
                qs = [
                    f"What work news did {p.partner} share?",
                    f"What happened with {p.partner}'s career?",
                    f"What did {p.partner} achieve at the office?",
                    f"Why are we celebrating {p.partner}?",
                ]
                answer = "promoted to team lead"
            said_turn = Turn("user", said, name=p.partner)
            self.plant(
                s,
                lead,
                self.a(
                    self.pick(["Happy to help! What are you thinking so far?", "Sure, let's figure it out."])
                ),
                said_turn,
                self.a(self.pick([f"Noted, {p.partner}!", "Got it, thanks for jumping in.", "Noted!"])),
            )
            self.ask("speaker", qs, answer, [said_turn])

    # --- assembly ---------------------------------------------------------------------------------

    def build(self) -> tuple[list[Session], list[list[Turn]]]:
        for maker in (self.home, self.job, self.partner, self.sibling, self.pets, self.hobbies, self.food):
            maker()
        self.health()
        for maker, share in (
            (self.car, 0.6),
            (self.kid, 1.0),
            (self.course, 0.5),
            (self.concert, 0.5),
            (self.events, 1.0),
            (self.trips, 1.0),
            (self.plans, 1.0),
            (self.assistant_recs, 1.0),
            (self.speaker, 1.0),
        ):
            if self.rng.random() < share:
                maker()
        used: set[str] = set()
        out: list[list[Turn]] = []
        for s in self.sessions:
            target = self.rng.randint(10, 20) * 2
            episodes = [list(e) for e in s.facts]
            have = sum(len(e) for e in episodes)
            while have < target:
                ep = self._filler(used, target - have)
                episodes.append(ep)
                have += len(ep)
            self.rng.shuffle(episodes)
            turns = [t for e in episodes for t in e]
            clock = s.start
            for i, t in enumerate(turns, start=1):
                t.session, t.seq, t.created_at = s.index, i, clock
                if s.named and t.role == "user" and t.name is None:
                    t.name = self.p.name
                clock += timedelta(seconds=self.rng.randint(20, 150))
            out.append(turns)
        return self.sessions, out

    def _filler(self, used: set[str], room: int) -> list[Turn]:
        for _ in range(60):
            fn = self.rng.choice(FILLERS)
            if self.filler_uses[fn] >= MAX_USES.get(fn, 15):
                continue
            texts = fn(self.rng, _Who(self.p))
            if len(texts) <= room and texts[0] not in used:
                used.add(texts[0])
                self.filler_uses[fn] += 1
                return [Turn("user" if i % 2 == 0 else "assistant", x) for i, x in enumerate(texts)]
        for _ in range(200):  # little room left: any unused two-turn exchange
            fn = self.rng.choice(FILLERS)
            texts = fn(self.rng, _Who(self.p))[:2]
            if texts[0] not in used and self.filler_uses[fn] < MAX_USES.get(fn, 15):
                self.filler_uses[fn] += 1
                used.add(texts[0])
                return [Turn("user", texts[0]), Turn("assistant", texts[1])]
        user, reply = self.rng.choice(
            [
                ("Thanks!", "Anytime."),
                ("Got it, thanks.", "You're welcome!"),
                ("Cool, that works.", "Great. Shout if you need anything else."),
                ("Okay, I'll try that.", "Sounds good, let me know how it goes."),
                ("Makes sense.", "Glad it does!"),
                ("Brilliant, cheers.", "Happy to help."),
            ]
        )
        return [Turn("user", user), Turn("assistant", reply)]


class _Who:
    """What a filler may know about the persona: names only, never facts."""

    def __init__(self, p: Persona) -> None:
        self.partner = p.partner
        self.sibling = p.sibling
        self.sibling_rel = p.sibling_rel
        self.taken_names = p.taken_names


STOP = frozenset(
    re.findall(
        r"[a-z]+",
        """a an the i me my we our you your he she him her his it its they them their is am are was were be
        been do does did have has had what which who whom when where why how of to in on at for with from by
        about as and or not no so this that these those there any some now days recently lately just""",
    )
)


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:5] for w in words if w not in STOP and len(w) > 1}


def generate(seed: int, split: str, users: int, sessions: int) -> dict[str, Any]:
    used: set[str] = set()
    out_users: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for ui in range(users):
        rng = random.Random(f"engram-recall:{seed}:{split}:{ui}")
        b = UserBuilder(rng, ui, split, sessions, used)
        plans, turns_by_session = b.build()
        sess_out = []
        for s, turns in zip(plans, turns_by_session, strict=True):
            sess_out.append(
                {
                    "session_id": f"{b.p.user_id}-s{s.index:02d}",
                    "messages": [
                        {
                            "seq": t.seq,
                            "role": t.role,
                            **({"name": t.name} if t.name else {}),
                            "content": t.content,
                            "created_at": (t.created_at or s.start).strftime("%Y-%m-%dT%H:%M:%SZ"),
                        }
                        for t in turns
                    ],
                }
            )
        out_users.append(
            {
                "user_id": b.p.user_id,
                "name": b.p.name,
                "persona": {
                    "partner": f"{b.p.partner} ({b.p.partner_rel})",
                    "city": b.p.city,
                    "moved_to": b.p.city2,
                    "job": f"{b.p.job} at {b.p.company}",
                    "new_job": f"{b.p.job2} at {b.p.company2}",
                },
                "sessions": sess_out,
            }
        )
        for qi, q in enumerate(b.questions):
            ev = q.evidence
            answer = q.answer
            if "{date}" in answer and ev[0].created_at is not None:
                answer = answer.replace("{date}", f"{ev[0].created_at:%Y-%m-%d}")
            questions.append(
                {
                    "id": f"{b.p.user_id}-q{qi:02d}",
                    "user_id": b.p.user_id,
                    "category": q.category,
                    "question": q.text,
                    "answer": answer,
                    "evidence": [f"{b.p.user_id}-s{t.session:02d}:{t.seq}" for t in ev],
                }
            )
    return {
        "meta": {
            "generator": "bench/recall/generate.py",
            "seed": seed,
            "split": split,
            "users": users,
            "sessions_per_user": sessions,
            "categories": CATEGORIES,
        },
        "users": out_users,
        "questions": questions,
    }


def describe(data: dict[str, Any]) -> dict[str, Any]:
    """Shape and lexical-overlap statistics of a dataset."""
    msgs = {
        f"{s['session_id']}:{m['seq']}": m
        for u in data["users"]
        for s in u["sessions"]
        for m in s["messages"]
    }
    lens = [len(s["messages"]) for u in data["users"] for s in u["sessions"]]
    overlap, zero = [], 0
    for q in data["questions"]:
        qs = _stems(q["question"])
        ev: set[str] = set()
        for k in q["evidence"]:
            ev |= _stems(msgs[k]["content"])
        share = len(qs & ev) / len(qs) if qs else 0.0
        overlap.append(share)
        zero += share == 0
    dates = sorted(m["created_at"] for m in msgs.values())
    return {
        "users": len(data["users"]),
        "sessions": len(lens),
        "messages": len(msgs),
        "turns_per_session": f"{min(lens)}-{max(lens)} (mean {sum(lens) / len(lens):.1f})",
        "named_messages": sum(1 for m in msgs.values() if m.get("name")),
        "time_span": f"{dates[0][:10]} .. {dates[-1][:10]}",
        "questions": len(data["questions"]),
        "by_category": dict(sorted(Counter(q["category"] for q in data["questions"]).items())),
        "question_word_overlap": round(sum(overlap) / len(overlap), 3),
        "questions_with_no_shared_word": zero,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--split", choices=["tune", "heldout"], default="tune")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    data = generate(args.seed, args.split, args.users, args.sessions)
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False))
    print(json.dumps(describe(data), indent=2))


if __name__ == "__main__":
    main()
