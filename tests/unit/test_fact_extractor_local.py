"""The `local` fact extractor: what it reads from users' own words (table per kind), how it ends
facts, how it keys slots (paraphrases share a subject), relative dates made absolute, the long list
of things that must give nothing, and that no input, however odd, makes it raise or dawdle."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from app.ai.fact_extractor import FactCandidate, FactKind, TurnRef
from app.ai.fact_rules.stated_dates import Tense, find_stated_dates
from app.ai.local_fact_extractor import MAX_CHARS, LocalFactExtractor, extract_facts
from tests.support.examples import examples

AT = datetime(2026, 11, 20, 15, 30, tzinfo=UTC)  # a Friday


@pytest.fixture(autouse=True)
def no_rule_fails() -> Iterator[None]:
    """A rule that raises is skipped (and logged) in production; here it fails the test."""
    with capture_logs() as logs:
        yield
    assert [e for e in logs if e["event"] == "fact_rule_failed"] == []


def turn(content: str, seq: int = 1, role: str = "user", at: datetime = AT) -> TurnRef:
    return TurnRef(seq, role, None, content, at, uuid.uuid5(uuid.NAMESPACE_URL, f"{seq}:{role}:{content}"))


def facts(text: str, *, asked: str | None = None) -> list[FactCandidate]:
    turns = [turn(asked, 0, "assistant"), turn(text)] if asked else [turn(text)]
    return extract_facts(turns)


def said(text: str, *, asked: str | None = None) -> list[tuple[str, str | None]]:
    return [(c.content, c.subject) for c in facts(text, asked=asked)]


# --- what it reads, by kind ------------------------------------------------------------------

IDENTITY = [
    ("My name is Sarah.", [("Is named Sarah.", "name")]),
    ("my name's João btw", [("Is named João.", "name")]),
    ("Hi, I'm Sarah.", [("Is named Sarah.", "name")]),
    ("Hello! I'm Tom and I live in Leeds.", [("Is named Tom.", "name"), ("Lives in Leeds.", "home")]),
    ("Call me Bob.", [("Is named Bob.", "name")]),
    ("You can call me Liz.", [("Is named Liz.", "name")]),
    ("I go by Sam.", [("Is named Sam.", "name")]),
    ("I'm 34 years old.", [("Is 34 years old.", "age")]),
    ("I'm 29 and I'm from Porto.", [("Is 29 years old.", "age"), ("Is from Porto.", "origin")]),
    ("I'm Ana, 34, living in Lisbon.", [("Is named Ana.", "name"), ("Is 34 years old.", "age"),
                                        ("Lives in Lisbon.", "home")]),
    ("My birthday is on March 3rd.", [("Has a birthday on March 3.", "birthday")]),
    ("My birthday is next Friday!", [("Has a birthday on November 27.", "birthday")]),
    ("I was born on 3 March 1990.", [("Was born on 1990-03-03.", "birthday")]),
    ("I was born in Lisbon in 1990.", [("Was born in Lisbon.", "birthplace"),
                                       ("Was born in 1990.", "birth_year")]),
    ("I'm Italian.", [("Is Italian.", "nationality:italian")]),
    ("I'm a Brazilian citizen.", [("Is Brazilian.", "nationality:brazilian")]),
    ("I have a Portuguese passport.", [("Is Portuguese.", "nationality:portuguese")]),
    ("I speak Spanish and French fluently.", [("Speaks Spanish.", "language:spanish"),
                                              ("Speaks French.", "language:french")]),
    ("I'm fluent in German.", [("Speaks German.", "language:german")]),
    ("My native language is Portuguese.", [("Is a native Portuguese speaker.", "language:portuguese")]),
]  # fmt: skip

LOCATION = [
    ("I live in Lisbon.", [("Lives in Lisbon.", "home")]),
    ("i live in lisbon", [("Lives in Lisbon.", "home")]),
    ("hey! so I just moved to porto and I love it here", [("Lives in Porto.", "home")]),
    ("i'm from the uk", [("Is from the UK.", "origin")]),
    ("I live in St. Louis, Missouri.", [("Lives in St. Louis, Missouri.", "home")]),
    ("My name is Sarah and I live in Lisbon, Portugal.", [("Is named Sarah.", "name"),
                                                          ("Lives in Lisbon, Portugal.", "home")]),
    ("We live in New York City with our two kids.", [("Lives in New York City.", "home")]),
    ("I live in a small flat in Camden.", [("Lives in Camden.", "home")]),
    ("I've lived in Berlin for 5 years.", [("Lives in Berlin.", "home")]),
    ("I'm based in São Paulo.", [("Lives in São Paulo.", "home")]),
    ("I'm from Brazil.", [("Is from Brazil.", "origin")]),
    ("I'm originally from the UK.", [("Is from the UK.", "origin")]),
    ("I grew up in Rio de Janeiro.", [("Grew up in Rio de Janeiro.", "grew_up")]),
]  # fmt: skip

OCCUPATION = [
    ("I work as a nurse.", [("Works as a nurse.", "job_title")]),
    ("I'm a software engineer at Google.", [("Works as a software engineer.", "job_title"),
                                            ("Works at Google.", "employer")]),
    ("I'm an English teacher.", [("Works as an English teacher.", "job_title")]),
    ("I'm the CEO of Acme.", [("Works as the CEO of Acme.", "job_title"), ("Works at Acme.", "employer")]),
    ("I'm a retired teacher.", [("Is retired.", "job_title")]),
    ("I'm a full-time student.", [("Is a student.", "studies")]),
    ("I work at Acme Corp.", [("Works at Acme Corp.", "employer")]),
    ("i work at google", [("Works at Google.", "employer")]),
    ("i work for a small startup", [("Works at a small startup.", "employer")]),
    ("I work at Google as a designer.", [("Works at Google.", "employer"),
                                         ("Works as a designer.", "job_title")]),
    ("I've been working at Google for 3 years.", [("Works at Google.", "employer")]),
    ("I started a new job at Initech.", [("Works at Initech.", "employer")]),
    ("I work for myself.", [("Is self-employed.", "employer")]),
    ("I'm retired.", [("Is retired.", "job_title")]),
    ("I work in marketing.", [("Works in marketing.", "industry")]),
    ("I'm a student at MIT.", [("Is a student.", "studies"), ("Studies at MIT.", "school")]),
    ("I'm a computer science student.", [("Studies computer science.", "studies")]),
    ("I study law at Oxford.", [("Studies law.", "studies"), ("Studies at Oxford.", "school")]),
    ("I'm doing a PhD in physics at ETH Zurich.", [("Is doing a PhD in physics.", "studies"),
                                                  ("Studies at ETH Zurich.", "school")]),
    ("I live in Lisbon and work as a nurse at Santa Maria Hospital.", [
        ("Lives in Lisbon.", "home"), ("Works as a nurse.", "job_title"),
        ("Works at Santa Maria Hospital.", "employer")]),
]  # fmt: skip

RELATIONSHIPS = [
    ("I have a sister named Maria.", [("Has a sister named Maria.", "sibling:maria")]),
    ("I have a dog named Rex.", [("Has a dog named Rex.", "pet:rex")]),
    ("i have a dog named rex", [("Has a dog named Rex.", "pet:rex")]),
    ("My sister Maria lives in Rome.", [("Has a sister named Maria.", "sibling:maria")]),
    ("Maria is my older sister.", [("Has an older sister named Maria.", "sibling:maria")]),
    ("Rex is my dog.", [("Has a dog named Rex.", "pet:rex")]),
    ("My wife's name is Anna.", [("Has a wife named Anna.", "partner")]),
    ("My son is called Leo.", [("Has a son named Leo.", "child:leo")]),
    ("My best friend Tom is visiting.", [("Has a best friend named Tom.", "friend:tom")]),
    ("We just adopted a kitten called Mochi!", [("Has a cat named Mochi.", "pet:mochi")]),
    ("I have two kids, Sam and Leo.", [("Has a child named Sam.", "child:sam"),
                                       ("Has a child named Leo.", "child:leo"),
                                       ("Has two kids.", "has:child")]),
    ("We have a dog and two cats.", [("Has a dog.", "has:dog"), ("Has two cats.", "has:cat")]),
    ("I'm a mom of two.", [("Has two children.", "has:child")]),
    ("I'm married to Anna.", [("Is married to Anna.", "partner")]),
    ("I'm dating Tom.", [("Is dating Tom.", "partner")]),
    ("I'm married.", [("Is married.", "relationship_status")]),
    ("I'm single.", [("Is single.", "relationship_status")]),
]  # fmt: skip

HEALTH_AND_DIET = [
    ("I'm vegetarian.", [("Is vegetarian.", "diet")]),
    ("I'm a vegan and I'm allergic to soy.", [("Is vegan.", "diet"), ("Is allergic to soy.", "allergy:soy")]),
    ("I've been vegetarian for ten years.", [("Is vegetarian.", "diet")]),
    ("I'm on a keto diet.", [("Follows a keto diet.", "diet")]),
    ("I keep kosher.", [("Keeps kosher.", "observes:kosher")]),
    ("I don't eat pork.", [("Does not eat pork.", "avoids:pork")]),
    ("I never drink alcohol.", [("Does not drink alcohol.", "avoids:alcohol")]),
    ("I'm allergic to peanuts.", [("Is allergic to peanuts.", "allergy:peanut")]),
    ("I'm allergic to peanuts and shellfish.", [("Is allergic to peanuts.", "allergy:peanut"),
                                                ("Is allergic to shellfish.", "allergy:shellfish")]),
    ("I have a peanut allergy.", [("Is allergic to peanuts.", "allergy:peanut")]),
    ("I'm lactose intolerant.", [("Is lactose intolerant.", "intolerance:lactose")]),
    ("I have asthma.", [("Has asthma.", "condition:asthma")]),
    ("I'm diabetic.", [("Has diabetes.", "condition:diabetes")]),
]  # fmt: skip

PREFERENCES = [
    ("I like jazz.", [("Likes jazz.", "likes:jazz")]),
    ("I love reading, especially fantasy novels.", [("Likes reading.", "activity:reading")]),
    ("I like dogs more than cats.", [("Likes dogs.", "likes:dog")]),
    ("I love hiking and cooking.",
     [("Likes hiking.", "activity:hiking"), ("Likes cooking.", "activity:cooking")]),
    ("I love rock and roll.", [("Likes rock and roll.", "likes:rock and roll")]),
    ("I like to cook.", [("Likes cooking.", "activity:cooking")]),
    ("I'm a big fan of Radiohead.", [("Likes Radiohead.", "likes:radiohead")]),
    ("I'm a huge jazz fan.", [("Likes jazz.", "likes:jazz")]),
    ("I prefer tea to coffee.", [("Prefers tea.", "likes:tea")]),
    ("I don't like cilantro.", [("Dislikes cilantro.", "dislikes:cilantro")]),
    ("I can't stand cilantro.", [("Dislikes cilantro.", "dislikes:cilantro")]),
    ("I'm not a fan of horror movies.", [("Dislikes horror movies.", "dislikes:horror movie")]),
    ("Honestly I can't stand horror movies but I love comedies.", [
        ("Dislikes horror movies.", "dislikes:horror movie"), ("Likes comedies.", "likes:comedy")]),
    ("My favourite colour is blue.", [("Favourite colour is blue.", "favorite:color")]),
    ("Sushi is my favourite food.", [("Favourite food is sushi.", "favorite:food")]),
    ("Blue is my favourite colour ever.", [("Favourite colour is blue.", "favorite:color")]),
    ("I play tennis.", [("Plays tennis.", "activity:tennis")]),
    ("I play the piano every day.", [("Plays the piano every day.", "activity:piano")]),
    ("I run every morning.", [("Runs every morning.", "activity:running")]),
    ("I go to the gym three times a week.", [("Goes to the gym three times a week.", "activity:gym")]),
    ("I usually cook dinner for my family.", [("Usually cooks dinner.", "activity:cooking dinner")]),
    ("I'm a smoker.", [("Smokes.", "activity:smoking")]),
]  # fmt: skip

PLANS_AND_EVENTS = [
    ("I'm going to visit Tokyo on December 3.", [
        ("Plans to visit Tokyo on 2026-12-03.", "plan:tokyo")]),
    ("I want to learn Spanish.", [("Plans to learn Spanish.", "plan:learn spanish")]),
    ("I'm planning to learn Spanish.", [("Plans to learn Spanish.", "plan:learn spanish")]),
    ("I'm flying to Tokyo next Friday.", [("Plans to fly to Tokyo on 2026-11-27.", "plan:tokyo")]),
    ("I'm going to visit my parents next weekend.", [
        ("Plans to visit their parents on the weekend of 2026-11-28.", "plan:visit parent")]),
    ("I plan to move to Berlin next year.", [("Plans to move to Berlin in 2027.", "plan:berlin")]),
    ("I'll be visiting Paris in March.", [("Plans to visit Paris in March 2027.", "plan:paris")]),
    ("I'm planning a trip to Japan in April.", [
        ("Plans a trip to Japan in April 2027.", "plan:japan")]),
    ("I have a dentist appointment tomorrow.", [
        ("Has a dentist appointment on 2026-11-21.", "plan:dentist appointment")]),
    ("My exam is on Monday.", [("Has an exam on 2026-11-23.", "plan:exam")]),
    ("I ran a marathon last Sunday.", [("Ran a marathon on 2026-11-15.", "event:ran marathon")]),
    ("Last Sunday I ran a half marathon.", [
        ("Ran a half marathon on 2026-11-15.", "event:ran half marathon")]),
    ("I got promoted yesterday.", [("Got promoted on 2026-11-19.", "event:got promoted")]),
    ("We bought a house last month.", [("Bought a house in October 2026.", "event:bought house")]),
    ("I broke my leg last Friday.", [("Broke their leg on 2026-11-13.", "event:broke leg")]),
    ("I graduated in May.", [("Graduated in May 2026.", "event:graduated")]),
    # no day can be made of "next summer": the plan is kept without it
    ("I'm going to visit Japan next summer.", [("Plans to visit Japan.", "plan:japan")]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    IDENTITY + LOCATION + OCCUPATION + RELATIONSHIPS + HEALTH_AND_DIET + PREFERENCES + PLANS_AND_EVENTS,
)
def test_reads(text: str, expected: list[tuple[str, str]]) -> None:
    assert said(text) == expected


# Said without "I", in passing, or with a courtesy or a smiley around it.
IMPLICIT = [
    ('btw hey, Lena here, 36 years old, based in Chicago',
     [('Is named Lena.', 'name'), ('Is 36 years old.', 'age'), ('Lives in Chicago.', 'home')]),
    ('Pescatarian here, so keep that in mind for recipes',
     [('Is pescatarian.', 'diet')]),
    ('marketing manager here, so I know the struggle lol',
     [('Works as a marketing manager.', 'job_title')]),
    ('Huge blues fan here tbh',
     [('Likes blues.', 'likes:blue')]),
    ('anyway, yep, a rabbit called Biscuit',
     [('Has a rabbit named Biscuit.', 'pet:biscuit')]),
    ("i'm fluent in Turkish and Greek, if that helps tbh",
     [('Speaks Turkish.', 'language:turkish'), ('Speaks Greek.', 'language:greek')]),
    ('Kimchi is my favourite food :)',
     [('Favourite food is Kimchi.', 'favorite:food')]),
    ('Got a new tattoo on February 8, a small wave on my arm.',
     [('Got a new tattoo on 2026-02-08.', 'event:got new tattoo')]),
    ('Booked a trip to Peru in April, so excited',
     [('Plans a trip to Peru in April 2027.', 'plan:peru')]),
    ('anyway, born and raised in Romania.',
     [('Was born in Romania.', 'birthplace')]),
    ('Big fan of dark chocolate',
     [('Likes dark chocolate.', 'likes:dark chocolate')]),
    ('starting a photography workshop on June 9, wish me luck tbh',
     [('Plans to start a photography workshop on 2027-06-09.', 'plan:start photography workshop')]),
    ("btw i really don't like country music.",
     [('Dislikes country music.', 'dislikes:country music')]),
    ('I grew up speaking Dutch and Turkish at home.',
     [('Speaks Dutch.', 'language:dutch'), ('Speaks Turkish.', 'language:turkish')]),
    ("i've started working at Atlassian.",
     [('Works at Atlassian.', 'employer')]),
    ("i've been at Lidl for 6 years",
     [('Works at Lidl.', 'employer')]),
    ('i listen to opera pretty much all day.',
     [('Likes opera.', 'likes:opera')]),
    ("camping just isn't for me, never liked it tbh",
     [('Dislikes camping.', 'dislikes:camping')]),
    ('Honestly I could eat pad thai every day',
     [('Likes pad thai.', 'likes:pad thai')]),
    ('i do some gardening twice a week',
     [('Does gardening twice a week.', 'activity:gardening')]),
    ("I've been cycling for years",
     [('Cycles.', 'activity:cycling')]),
    ('As a nurse, I never get weekends off.',
     [('Works as a nurse.', 'job_title')]),
    ("rosa, my older sister, is the only one in the family who gets it :)",
     [("Has an older sister named Rosa.", "sibling:rosa")]),
    ("oh and daniel, my son, drew me a card today.", [("Has a son named Daniel.", "child:daniel")]),
    ("Maria, my girlfriend, keeps stealing my hoodies lol", [("Has a girlfriend named Maria.", "partner")]),
    ("Coming home to Coco (my dog) is the best part of my day.", [("Has a dog named Coco.", "pet:coco")]),
    ("my beagle Ziggy just knocked my coffee over lol.", [("Has a beagle named Ziggy.", "pet:ziggy")]),
    ("yep, a tabby cat called Toast", [("Has a tabby cat named Toast.", "pet:toast")]),
    ("I'm 54 tbh", [("Is 54 years old.", "age")]),
    ("Electrician here, so I know the struggle lol!", [("Works as an electrician.", "job_title")]),
    ("Romanian is my native language :)", [("Is a native Romanian speaker.", "language:romanian")]),
    ("oh, I never introduced myself: I'm Victor haha", [("Is named Victor.", "name")]),
    ("anyway, huge Taylor Swift fan here", [("Likes Taylor Swift.", "likes:taylor swift")]),
    ("I'm starting salsa lessons in April.",
     [("Plans to start salsa lessons in April 2027.", "plan:start salsa lesson")]),
    ("my job at Atlassian keeps me busy.", [("Works at Atlassian.", "employer")]),
    ("Not a fan of blue cheese at all.", [("Dislikes blue cheese.", "dislikes:blue cheese")]),
    ("Been listening to a lot of Radiohead, I love it", [("Likes Radiohead.", "likes:radiohead")]),
    ('As a pescatarian, what can I make for a dinner party?',
     [('Is pescatarian.', 'diet')]),
    # issue 12, round 6: openings only the writer's life fits, and what a value's change sounds like
    ("Lisbon is home for me these days.", [("Lives in Lisbon.", "home")]),
    ("The rent here in Dublin just went up again", [("Lives in Dublin.", "home")]),
    ("Here in Leeds it's been freezing since Monday", [("Lives in Leeds.", "home")]),
    ("Busy day at Deloitte, my team shipped the release.", [("Works at Deloitte.", "employer")]),
    ("Being a paramedic means nights and weekends.", [("Works as a paramedic.", "job_title")]),
    ("I accepted an offer from Stripe.", [("Works at Stripe.", "employer")]),
    ("I'm seeing someone: his name is Omar.", [("Is dating Omar.", "partner")]),
    ("My birthday was yesterday, 41 now!", [("Is 41 years old.", "age")]),
    ("Cooking is my favourite way to relax.", [("Likes cooking.", "activity:cooking")]),
    ("cheesecake is my guilty pleasure.", [("Likes cheesecake.", "likes:cheesecake")]),
    ("Got tickets for Coldplay on 14 March.", [("Plans to see Coldplay on 2027-03-14.", "plan:coldplay")]),
    ("Radiohead concert next Friday, so excited",
     [("Plans to see Radiohead live on 2026-11-27.", "plan:radiohead")]),
    ("I signed up for a Spanish course, it starts on January 10.",
     [("Plans to take a Spanish course on 2027-01-10.", "plan:take spanish course")]),
    ("ive been running for years", [("Runs.", "activity:running")]),
    ("Just came back from cycling, I try to go twice a week.", [("Cycles.", "activity:cycling")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), IMPLICIT)
def test_reads_implicit_statements(text: str, expected: list[tuple[str, str]]) -> None:
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "kind", "exclusive"),
    [
        ("I'm Italian.", FactKind.identity, False),
        ("I live in Lisbon.", FactKind.location, True),
        ("I work as a nurse.", FactKind.occupation, True),
        ("I have a sister named Maria.", FactKind.relationship, False),
        ("I'm married to Anna.", FactKind.relationship, True),
        ("I'm vegetarian.", FactKind.preference, True),
        ("I like jazz.", FactKind.preference, False),
        ("My favourite colour is blue.", FactKind.preference, True),
        ("I'm allergic to peanuts.", FactKind.other, False),
        ("I'm going to visit Tokyo on December 3.", FactKind.plan, False),
        ("I ran a marathon last Sunday.", FactKind.event, False),
    ],
)
def test_kind_and_exclusivity(text: str, kind: FactKind, exclusive: bool) -> None:
    (c,) = facts(text)
    assert (c.kind, c.exclusive, c.negated) == (kind, exclusive, False)
    assert 0 < c.importance <= 1 and c.topics and all(t == t.lower() for t in c.topics)


def test_importance_ranks_identity_over_likes() -> None:
    name, home, like, plan = (facts(t)[0].importance for t in (
        "My name is Sarah.", "I live in Lisbon.", "I like jazz.", "I want to learn Spanish."))  # fmt: skip
    assert name >= home > plan > like


def test_content_form() -> None:
    for _, expected in IDENTITY + LOCATION + OCCUPATION + RELATIONSHIPS + PREFERENCES:
        for content, _ in expected:
            assert content[0].isupper() and content.endswith(".") and not content.endswith(".."), content
            assert not content.lower().startswith(("i ", "my ", "the user")), content


# --- endings ---------------------------------------------------------------------------------

ENDINGS = [
    ("I don't eat meat any more.", "Eats meat.", "eats:meat"),
    ("I gave up meat.", "Eats meat.", "eats:meat"),
    ("I stopped drinking.", "Drinks alcohol.", "drinks:alcohol"),
    ("I no longer work at Google.", "Works at Google.", "employer"),
    ("I don't work at Google anymore.", "Works at Google.", "employer"),
    ("I quit my job at Acme.", "Works at Acme.", "employer"),
    ("I left my job at Amazon.", "Works at Amazon.", "employer"),
    ("I got laid off from Meta.", "Works at Meta.", "employer"),
    ("I used to be a nurse.", "Works as a nurse.", "job_title"),
    ("I'm no longer a nurse.", "Works as a nurse.", "job_title"),
    ("I'm a former teacher.", "Works as a teacher.", "job_title"),
    ("I'm not vegetarian anymore.", "Is vegetarian.", "diet"),
    ("I stopped being vegan.", "Is vegan.", "diet"),
    ("I stopped playing tennis.", "Plays tennis.", "activity:tennis"),
    ("I don't play tennis anymore.", "Plays tennis.", "activity:tennis"),
    ("I used to play football.", "Plays football.", "activity:football"),
    ("I stopped going to the gym.", "Goes to the gym.", "activity:gym"),
    ("I quit smoking.", "Smokes.", "activity:smoking"),
    ("I don't like jazz anymore.", "Likes jazz.", "likes:jazz"),
    ("I no longer enjoy jazz.", "Likes jazz.", "likes:jazz"),
    ("I used to love jazz.", "Likes jazz.", "likes:jazz"),
    ("I'm not into football anymore.", "Likes football.", "activity:football"),
    ("I no longer hate broccoli.", "Dislikes broccoli.", "dislikes:broccoli"),
    ("I moved out of Berlin.", "Lives in Berlin.", "home"),
    ("I don't live in London anymore.", "Lives in London.", "home"),
    ("I used to live in Paris.", "Lives in Paris.", "home"),
    ("I broke up with my girlfriend.", "Has a girlfriend.", "partner"),
    ("My boyfriend and I broke up.", "Has a boyfriend.", "partner"),
    ("I'm not married anymore.", "Is married.", "relationship_status"),
    ("My dog Rex died yesterday.", "Has a dog named Rex.", "pet:rex"),
    ("I'm no longer allergic to cats.", "Is allergic to cats.", "allergy:cat"),
    # an activity given up ends liking it and doing it alike (one subject)
    ("I gave up the guitar.", "Plays the guitar.", "activity:guitar"),
    ("I quit volleyball this year.", "Plays volleyball.", "activity:volleyball"),
    ("I'm done with swimming, it wasn't fun anymore.", "Goes swimming.", "activity:swimming"),
    ("anyway, i gave up painting", "Paints.", "activity:painting"),
    # a breakup ends the partner slot, whoever is in it
    ("Freya and I separated a few weeks ago.", "Has a partner named Freya.", "partner"),
    ("fun fact, adrian and I broke up last month", "Has a partner named Adrian.", "partner"),
    ("Me and Clara aren't together anymore.", "Has a partner named Clara.", "partner"),
    ("We broke up last month.", "Has a partner.", "partner"),
    # a plan called off, named by its place or act
    ("I had to cancel Iceland.", "Plans to go to Iceland.", "plan:iceland"),
    ("Had to cancel Istanbul, work stuff.", "Plans to go to Istanbul.", "plan:istanbul"),
    ("We're not going to Hanoi anymore.", "Plans to go to Hanoi.", "plan:hanoi"),
    ("The Athens trip is cancelled :(", "Plans to go to Athens.", "plan:athens"),
    ("the Arctic Monkeys concert got cancelled, so annoying.", "Plans to go to Arctic Monkeys.",
     "plan:arctic monkeys"),
    ("I left Spotify last month, taking some time off.", "Works at Spotify.", "employer"),
    ("I gave my notice at Deloitte.", "Works at Deloitte.", "employer"),
    ("I'm not taking the pottery class after all.", "Plans to take a pottery class.", "plan:pottery class"),
    ("I quit the piano this year.", "Plays the piano.", "activity:piano"),
    ("I'm not doing salsa lessons after all.", "Plans to take salsa lessons.", "plan:salsa lesson"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "content", "subject"), ENDINGS)
def test_endings_are_negated_positive_forms(text: str, content: str, subject: str) -> None:
    (c,) = facts(text)
    assert (c.content, c.subject, c.negated) == (content, subject, True)


@pytest.mark.parametrize(
    ("ending", "positive"),
    [
        ("I don't like jazz anymore.", "I love jazz."),
        ("I no longer work at Google.", "I work at Google."),
        ("I'm not vegetarian anymore.", "I'm a vegetarian."),
        ("I stopped playing tennis.", "I play tennis."),
        ("I quit smoking.", "I'm a smoker."),
        ("I moved out of Berlin.", "I live in Berlin."),
        ("I used to be a nurse.", "I'm a nurse."),
        ("My dog Rex died.", "I have a dog named Rex."),
        ("I gave up the guitar.", "I love playing the guitar."),
        ("I don't play volleyball anymore.", "I love volleyball."),
        ("I'm done with swimming.", "I go swimming every weekend."),
        ("I stopped hiking.", "I love hiking."),
        ("We're not going to Hanoi anymore.", "I'm flying to Hanoi on April 19."),
        ("The Athens trip is cancelled.", "I'm planning a trip to Athens in May."),
        ("I had to cancel Iceland.", "We're going to visit Iceland next summer."),
    ],
)
def test_an_ending_has_the_subject_of_what_it_ends(ending: str, positive: str) -> None:
    (end,), (start,) = facts(ending), facts(positive)
    assert (end.subject, end.exclusive, end.kind) == (start.subject, start.exclusive, start.kind)


def test_a_named_relative_holds_in_any_clause_but_an_ending_does_not() -> None:
    assert said("If my dog Rex dies I'll be sad.") == [("Has a dog named Rex.", "pet:rex")]
    assert said("Should I invite my sister Maria?") == [("Has a sister named Maria.", "sibling:maria")]
    assert said("My sister Maria is vegan and lives in Rome.") == [
        ("Has a sister named Maria.", "sibling:maria")
    ]


def test_plain_dislike_is_not_an_ending() -> None:
    (c,) = facts("I don't like jazz.")
    assert (c.content, c.subject, c.negated) == ("Dislikes jazz.", "dislikes:jazz", False)


@pytest.mark.parametrize(
    ("text", "content", "subject"),
    [
        ("I moved to Porto.", "Lives in Porto.", "home"),
        ("I started a new job at Initech.", "Works at Initech.", "employer"),
        ("I got married last June.", "Is married.", "relationship_status"),
        ("Since moving to Chicago I walk everywhere.", "Lives in Chicago.", "home"),
        ("btw since moving to Madrid, I walk everywhere", "Lives in Madrid.", "home"),
        ("We finally settled into our new flat in Marseille.", "Lives in Marseille.", "home"),
        ("finally settled into our new flat in Barcelona.", "Lives in Barcelona.", "home"),
        ("I left Krakow recently, Barcelona is home now.", "Lives in Barcelona.", "home"),
        ("Lisbon is my home now.", "Lives in Lisbon.", "home"),
        ("I switched jobs, I'm at Ubisoft now.", "Works at Ubisoft.", "employer"),
        ("I joined Maersk last month.", "Works at Maersk.", "employer"),
        ("I've been a pharmacist for 7 years.", "Works as a pharmacist.", "job_title"),
        ("As a 27 year old I feel ancient lol.", "Is 27 years old.", "age"),
        ("Guess who's 44 today, me!", "Is 44 years old.", "age"),
        ("Just turned 57, feeling old.", "Is 57 years old.", "age"),
        ("Omar here!", "Is named Omar.", "name"),
        ("oh, I never introduced myself: I'm Elias :)", "Is named Elias.", "name"),
    ],
)
def test_a_new_value_is_not_an_ending(text: str, content: str, subject: str) -> None:
    (c,) = facts(text)
    assert (c.content, c.subject, c.negated, c.exclusive) == (content, subject, False, True)


def test_leaving_an_employer_for_another_is_the_new_value_only() -> None:
    """The new employer supersedes the old one, which links them; an ending first would not."""
    assert [(c.content, c.negated) for c in facts("I left SAP and joined Maersk last month.")] == [
        ("Works at Maersk.", False)
    ]


def test_giving_up_meat_ends_liking_a_meat_dish_the_user_has() -> None:
    """One negation per liked dish, and only for the ones the user is known to like."""
    for text in ("I'm vegetarian these days.", "I don't eat meat anymore.", "I gave up meat completely."):
        out = extract_facts([turn(text)], known_subjects=["likes:steak", "likes:jazz"])
        assert ("Likes steak.", "likes:steak", True) in [(c.content, c.subject, c.negated) for c in out]
        assert all(c.subject != "likes:jazz" for c in out)
        assert len(out) == 2
    # said earlier in the same turns
    out = extract_facts([turn("I love ribs.", 1), turn("I went vegan in February.", 2)])
    assert [(c.content, c.negated) for c in out] == [
        ("Likes ribs.", False),
        ("Is vegan.", False),
        ("Likes rib.", True),
    ]
    assert said("I'm vegetarian.") == [("Is vegetarian.", "diet")]


def test_a_dropped_i_is_read_back() -> None:
    assert said("Heading to New York on May 16 for a week.") == [
        ("Plans to head to New York for a week on 2027-05-16.", "plan:new york")
    ]
    assert said("oh and my pollen allergy is acting up again ugh.") == [
        ("Is allergic to pollen.", "allergy:pollen")
    ]


def test_moving_from_one_city_to_another_ends_one_and_starts_the_other() -> None:
    out = facts("I moved from Berlin to Porto in 2024.")
    assert [(c.content, c.negated) for c in out] == [("Lives in Berlin.", True), ("Lives in Porto.", False)]
    assert {c.valid_from for c in out} == {datetime(2024, 1, 1, tzinfo=UTC)}


# --- subjects --------------------------------------------------------------------------------

PARAPHRASES = [
    ("home", ["I live in Lisbon.", "We live in Lisbon now.", "I'm based in Lisbon.", "I moved to Porto.",
              "I've been living in Lisbon for two years."]),
    ("employer", ["I work at Google.", "I work for Google.", "I'm a designer at Google.",
                  "I started a new job at Initech.", "I'm working at Google these days."]),
    ("job_title", ["I work as a nurse.", "I'm a nurse.", "I'm a nurse at St Mary's."]),
    ("likes:jazz", ["I like jazz.", "I love jazz!", "I really enjoy jazz.", "I'm a huge jazz fan.",
                    "I'm a big fan of jazz.", "I'm into jazz."]),
    ("likes:cat", ["I like cats.", "I love cats", "I adore cats."]),
    ("likes:beatles", ["I love the Beatles.", "I'm a huge fan of the Beatles."]),
    ("dislikes:cilantro", ["I hate cilantro.", "I don't like cilantro.", "I can't stand cilantro.",
                           "I'm not a fan of cilantro."]),
    ("diet", ["I'm vegetarian.", "I'm a vegetarian.", "I went vegan last year.", "I'm vegan now."]),
    ("sibling:maria", ["I have a sister named Maria.", "My sister Maria is a doctor.", "Maria is my sister.",
                       "My sister's name is Maria.", "my sister, Maria, lives in Rome"]),
    ("allergy:peanut", ["I'm allergic to peanuts.", "I have a peanut allergy.",
                       "I'm severely allergic to peanuts."]),
    ("plan:tokyo", ["I'm going to visit Tokyo next month.", "I plan to visit Tokyo in December.",
                          "I'm visiting Tokyo on Dec 3rd."]),
    ("partner", ["My wife Anna is great.", "I'm married to Anna.", "I have a girlfriend named Ana."]),
]  # fmt: skip


@pytest.mark.parametrize(("subject", "texts"), PARAPHRASES)
def test_paraphrases_share_a_subject(subject: str, texts: list[str]) -> None:
    for text in texts:
        found = [c.subject for c in facts(text)]
        assert subject in found, (text, found)


def test_subject_keys_are_lower_case_and_stable() -> None:
    for text, expected in IDENTITY + LOCATION + RELATIONSHIPS + PREFERENCES + PLANS_AND_EVENTS:
        for c in facts(text):
            assert c.subject == c.subject.lower().strip() and "  " not in c.subject, c.subject
        assert said(text) == expected


# --- dates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "content", "valid_from"),
    [
        ("I ran a marathon last Sunday.", "Ran a marathon on 2026-11-15.", date(2026, 11, 15)),
        ("I moved to Porto last month.", "Lives in Porto.", date(2026, 10, 1)),
        ("I turned 35 yesterday.", "Is 35 years old.", date(2026, 11, 19)),
        ("I got a new job at Spotify last week.", "Works at Spotify.", date(2026, 11, 9)),
        ("Yesterday I adopted a cat.", "Has a cat.", date(2026, 11, 19)),
        ("I got laid off from Meta last week.", "Works at Meta.", date(2026, 11, 9)),
        ("I'm flying to Tokyo next Friday.", "Plans to fly to Tokyo on 2026-11-27.", date(2026, 11, 20)),
        ("Next Friday I'm flying to Tokyo.", "Plans to fly to Tokyo on 2026-11-27.", date(2026, 11, 20)),
        (
            "I'm having surgery next week.",
            "Plans to have surgery in the week of 2026-11-23.",
            date(2026, 11, 20),
        ),
        ("I live in Lisbon.", "Lives in Lisbon.", date(2026, 11, 20)),
    ],
)
def test_relative_dates_become_absolute(text: str, content: str, valid_from: date) -> None:
    (c,) = facts(text)
    assert c.content == content and c.valid_from.date() == valid_from and c.valid_from.tzinfo is not None


def test_valid_from_defaults_to_the_message_time() -> None:
    (c,) = facts("I live in Lisbon.")
    assert c.valid_from == AT


def test_tense_contradicting_dates_are_not_used() -> None:
    assert facts("I ran a marathon next Sunday.") == []  # a past event needs a past date
    assert said("I'm going to run a marathon last year.") == []


def test_stated_dates() -> None:
    def days(text: str, tense: Tense = "future") -> list[tuple[str, str]]:
        return [(text[d.start : d.end], d.render()) for d in find_stated_dates(text, AT, tense)]

    assert days("on December 3") == [("on December 3", "on 2026-12-03")]
    assert days("on 3rd of March 2027 and 2026-12-24") == [("on 3rd of March 2027", "on 2027-03-03"),
                                                          ("2026-12-24", "on 2026-12-24")]  # fmt: skip
    assert days("in March") == [("in March", "in March 2027")]
    assert days("in March", "past") == [("in March", "in March 2026")]
    assert days("on Friday") == [("on Friday", "on 2026-11-27")]
    assert days("on Friday", "past") == [("on Friday", "on 2026-11-13")]
    assert days("next Friday") == [("next Friday", "on 2026-11-27")]
    assert days("in 2027") == [("in 2027", "in 2027")]
    assert days("I may go") == []  # "may", the verb
    assert days("on February 30") == []


# --- what must give nothing ------------------------------------------------------------------

NOTHING = [
    # questions
    "Do you like jazz?", "Are you vegetarian?", "What do you think about Lisbon?", "Where do you live?",
    "Can you help me find a job at Google?", "Would you recommend living in Berlin?",
    "Could you call me Bob?",
    "I live in Lisbon, don't I?",
    # hypotheticals, wishes, uncertainty
    "If I lived in Paris, I'd be happy.", "If I were a doctor I would work at a hospital.",
    "I wish I had a dog.",
    "I wish I lived in Paris.", "Imagine I'm a pilot.", "Let's say I live in Tokyo.",
    "Suppose I'm vegan, what should I eat?", "Maybe I'll move to Berlin.", "I might be allergic to peanuts.",
    "I think I'm allergic to peanuts.", "I'm probably going to quit my job.",
    "I'm thinking about moving to Berlin.",
    "I hope to visit Japan next year.", "I'd like a coffee.", "I would love to visit Japan.",
    "When I'm stressed I like to bake.", "I'm going to Tokyo next month if the visa comes through.",
    "I live in Lisbon, I think.",
    # other people, reported speech, quotes
    "My sister lives in Rome.", "My brother works at Google.", "My wife is vegetarian.",
    "My dad is a doctor.",
    "My mom loves jazz.", "My colleague lives in Berlin.", "She said I'm a great cook.",
    "He told me I live in a bubble.",
    "You said I'm a nurse.", "She thinks I'm a nurse.", "My friend thinks I should move to Berlin.",
    '"I love jazz," my husband said.', '"I live in Paris," she said.',
    # small talk
    "I think so.", "I'm fine thanks.", "I'm not sure.", "I'm going to bed.", "I'm here.", "I'm sorry.",
    "I'm good.", "I'm ok.", "I'm tired.", "I'm back.", "I'm done.", "I'm in.", "I'm on it.", "I'm listening.",
    "I'm excited!", "I'm just curious.", "I'm so happy for you.", "I'm a bit confused.",
    "I'm a little worried.",
    "I'm at work.", "I'm at home right now.", "I'm in Paris this week.", "I'm on my way.",
    "I'm working on a project.", "I'm looking for a job.", "I'm trying to learn.", "I'm getting tired.",
    "I'm having a great day.", "I'm Fine.", "I'm Back!", "I'M FINE THANKS", "Thanks, I appreciate it.",
    "I see.", "I know.", "I agree.", "I understand.", "I guess.", "I have a question.", "I have no idea.",
    "I have to go.", "I have a problem with my code.", "I have a lot of work.", "I need help.",
    "I have anxiety about tomorrow.", "so tired today", "I'm running late.", "I'm running late today.",
    # things about the conversation
    "I love it!", "I love that.", "I love you.", "I like it.", "I love that idea.", "I like the second one.",
    "I like the first option better.", "I like your answer.", "I like this approach.",
    "I like the way you explained it.", "I hate it when that happens.", "I like that idea a lot.",
    "I prefer the second option.", "I want to know how to cook rice.", "I want to ask you something.",
    "I'll think about it.", "I'll be right back.", "I'll check it out tomorrow.", "I'll do it later.",
    "I'll talk to you tomorrow.", "I'll see you next week.", "I'll try that.", "I'll let you know.",
    "I'm going to try it.", "I'm going to think about it.", "I'm going to go now.", "I'm gonna sleep.",
    "I'm going to try that tomorrow.", "I'm going to bed early tonight.", "I hate to say this but no.",
    # vague or not a fact
    "I work hard.", "I work too much.", "I work from home.", "I live for the weekends.",
    "I live with my parents.",
    "I study hard.", "I'm studying for my exams.", "I play it safe.", "I run the risk of failing.",
    "I run a small business.", "I'm a good cook.", "I'm a big fan.", "I'm the worst.",
    "I'm Italian food lover.",
    "My name is not important.", "Call me tomorrow.", "I've worked at Google.", "I ran a marathon.",
    "I had pizza last night.", "I went to bed early last night.", "I quit my job yesterday.",
    "i moved to tears", "i'm based in reality", "i come from money", "i work for food lol", "I live in fear.",
    "i work at being better", "i live on coffee", "i'm from nowhere", "I'm from work.",
    "i moved to marketing", "I found out my sister is vegan.", "I have a brother, twins actually.",
    "I'm having surgery soon.", "I ran a marathon this summer.",
    # plain negatives end nothing
    "Nope, I'm not vegetarian.", "I don't speak French.", "I'm not a nurse.", "I don't live in Paris.",
    "I don't work at Google.", "I'm not married.", "I speak a little Spanish.",
    # sarcasm and jokes
    "Oh sure, I just LOVE Mondays.", "Oh great, I just LOVE waiting in line.",
    "Yeah right, I'm a millionaire.",
    "I love waiting in line 🙄", "I'm a pilot lol jk", "I love Mondays. Not.", "I love being ignored.",
    "I'm a billionaire /s", "I'm Catholic.", "I'm Jewish.", "We have a meeting tomorrow.",
    "I'm going to cook dinner tonight.", "I'm having a hard time today.", "I'll call my mom tomorrow.",
    "I want to buy a present for my mom.", "I won a free coffee yesterday lol", "I climbed a tree yesterday.",
    "I started a new book yesterday.", "I ran out of milk yesterday.", "I got a cold last week.",
    # other languages, scripts and noise
    "Je m'appelle Marie et j'habite à Paris.", "Ich wohne in Berlin.", "Me llamo Ana y vivo en Madrid.",
    "私は東京に住んでいます。", "أنا أعيش في القاهرة", "Я живу в Москве.", "🙂🙂🙂", "", "   ",
    "\x00\x01\x02",
    "I I I I I", "my my my my", "I'm I'm I'm",
    # endings that are not: pauses, other objects, other people, plain "not"
    "I'm done with cooking for today.", "I gave up on him.", "I'm done with work.",
    "I'm done with the report.",
    "We separated the recycling.", "Tom and I split the bill.", "My parents and I broke up the fight.",
    "Me and Clara aren't together right now, she's travelling.", "My sister and I split up the chores.",
    "My sister's Rome trip got cancelled.", "I'm not going to Hanoi.", "I left Google Maps open.",
    "I left Paris last month.", "I left the party early.", "Had to cancel?", "had to leave early",
    # new values that are not: a gym, a café, someone else's move, a person at home
    "I joined a gym.", "I joined Reddit last week.", "I'm at Starbucks now.", "I'm at the office now.",
    "Since moving to Rome, my sister walks everywhere.", "Tom is home now, I'm glad.",
    "I settled in for the night.", "I've been a fan of jazz for years.",
    # introductions and ages that are not
    "Same here!", "Winter here!", "Nobody here?", "As a 27 year old, my sister feels ancient.",
    "Guess who's 30 today? My sister!", "heading to bed", "Just turned the oven on.",
    # allergies that are not the user's or name no allergen
    "my seasonal allergies are bad", "my worst allergy is acting up", "my son's peanut allergy is bad",
    # "X here", bare answers, "as a ...", "I've been ..." that say nothing about the user
    "it's cold here", "nobody here", "Everything here is expensive.", "a dog called Rex lives next door",
    "Got it, thanks", "I booked a table for dinner.", "I've been with Tom for 5 years.",
    "I've been at Oxford for 3 years.", "I listen to podcasts sometimes.", "the email isn't for me",
    "this isn't for me", "I could eat a horse.", "I've been playing this game for hours.",
    "As a kid, I loved football.", "As a joke, I said it.", "I'd move to Paris if that helps.",
    "so, my brother, you know, is annoying", "thanks, my friend, that helped", "Thanks, my friend!",
    "honestly, my sister, who lives in Rome, called", "a dog called Rex lives next door",
    "I've been listening to a podcast.", "not a fan", "my old job at Google was fun",
    "If my job at Google ends, I'll move.", "Cooking is my native language lol",
    "I'm starting the day with coffee.",
    # not a home, a job or a liking, though shaped like one (round 6's rules)
    "I'm in Rome for the weekend.", "Here in Rome for a conference, any tips?", "I'm in a good place.",
    "Being a fan is exhausting.", "Long week at the beach lol", "First day at the gym today",
    "Things at Google are wild, according to the news.", "I got an offer from Meta but turned it down.",
    "Ugh, being a parent is hard.", "He is my weakness.", "I'm in Paris right now.",
    # a job that ended, a liking of "my" something, a reaction to what was shown
    "Since I lost my job at Acme Foods, money has been tight.", "I love running my own bakery.",
    "Wow, I love the colors!",
]  # fmt: skip


@pytest.mark.parametrize("text", NOTHING)
def test_gives_nothing(text: str) -> None:
    assert said(text) == []


def test_assistant_turns_are_never_sources() -> None:
    turns = [turn("I live in Lisbon and I love jazz.", 1, "assistant"), turn("I'm vegetarian.", 2, "system")]
    assert extract_facts(turns) == []


@pytest.mark.parametrize(
    ("asked", "answer", "expected"),
    [
        ("Are you vegetarian?", "Yes", [("Is vegetarian.", "diet")]),
        ("Quick question: are you married?", "yep!", [("Is married.", "relationship_status")]),
        ("Where do you live?", "Lisbon", [("Lives in Lisbon.", "home")]),
        ("Where are you based?", "In Porto, Portugal.", [("Lives in Porto, Portugal.", "home")]),
        ("Where are you from?", "Brazil", [("Is from Brazil.", "origin")]),
        ("What's your name?", "It's Bob.", [("Is named Bob.", "name")]),
        ("How old are you?", "42", [("Is 42 years old.", "age")]),
        ("Are you vegetarian?", "Yes, but I eat fish.", []),
        ("Are you vegetarian?", "No", []),
        ("Where are you from?", "why do you ask", []),
        ("Do you like jazz? Also, where do you live?", "maybe", []),
        (
            "Where are you based, if I may ask?",
            "Gothenburg, for about ten years now",
            [("Lives in Gothenburg.", "home")],
        ),
        ("Where do you live?", "lisbon", [("Lives in Lisbon.", "home")]),
        ("Where do you live?", "somewhere", []),
        (
            "What do you do for work?",
            "software engineer at Spotify",
            [("Works as a software engineer.", "job_title"), ("Works at Spotify.", "employer")],
        ),
        ("What do you do for a living?", "not much lol", []),
    ],
)
def test_bare_answers_read_with_the_assistants_question(
    asked: str, answer: str, expected: list[tuple[str, str]]
) -> None:
    assert said(answer, asked=asked) == expected


# --- behaviour over turns --------------------------------------------------------------------


def test_order_is_by_seq_then_position_and_deterministic() -> None:
    turns = [
        turn("I'm vegetarian. I live in Lisbon.", 3),
        turn("Nice to meet you!", 2, "assistant"),
        turn("Hi, I'm Sarah and I work as a nurse.", 1),
    ]
    first = extract_facts(turns)
    assert [c.content for c in first] == [
        "Is named Sarah.",
        "Works as a nurse.",
        "Is vegetarian.",
        "Lives in Lisbon.",
    ]
    assert extract_facts(list(reversed(turns))) == first == extract_facts(turns)
    assert first[0].source_message_ids == (turns[2].message_id,)


def test_a_repeated_statement_is_one_candidate_citing_every_message() -> None:
    turns = [turn("I live in Lisbon.", 1), turn("As I said, I live in Lisbon!", 2), turn("I love jazz.", 3)]
    out = extract_facts(turns)
    assert [(c.content, c.source_message_ids) for c in out] == [
        ("Lives in Lisbon.", (turns[0].message_id, turns[1].message_id)),
        ("Likes jazz.", (turns[2].message_id,)),
    ]


def test_a_change_in_between_keeps_the_statements_apart() -> None:
    turns = [turn("I live in Lisbon.", 1), turn("I moved to Porto.", 2), turn("I live in Lisbon again.", 3)]
    assert [c.content for c in extract_facts(turns)] == [
        "Lives in Lisbon.",
        "Lives in Porto.",
        "Lives in Lisbon.",
    ]


def test_a_later_value_and_its_ending_come_in_order() -> None:
    turns = [turn("I love steak.", 1), turn("I don't like steak anymore.", 2)]
    assert [(c.content, c.negated) for c in extract_facts(turns)] == [
        ("Likes steak.", False),
        ("Likes steak.", True),
    ]


async def test_the_extractor_object() -> None:
    extractor = LocalFactExtractor()
    out = await extractor.extract(turns=[turn("I live in Lisbon.")], known_subjects=["home"])
    assert [c.content for c in out] == ["Lives in Lisbon."] and extractor.name
    await extractor.aclose()


# --- robustness ------------------------------------------------------------------------------


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=600))
def test_any_text_never_raises(text: str) -> None:
    for c in extract_facts([turn(text)]):
        assert c.content.endswith(".") and c.subject


_PIECES = st.sampled_from([
    "I", "I'm", "my", "sister", "Maria", "live", "in", "Lisbon", "work", "at", "Google", "as", "a", "nurse",
    "love", "jazz", "don't", "anymore", "not", "vegan", "next", "Friday", "last", "week", "moved", "to",
    "and", ",", ".", "?", "!", "if", "going", "visit", "Tokyo", "on", "December", "3", "have", "two", "kids",
    "named", "allergic", "peanuts", "called", "é", "🙂", "\u200b", "\n", "'", '"', "my name is", "I was born",
    "quit",
])  # fmt: skip


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=40))
def test_sentence_like_noise_never_raises(pieces: list[str]) -> None:
    text = " ".join(pieces)
    first = extract_facts([turn(text)])
    assert first == extract_facts([turn(text)])
    for c in first:
        assert c.content[:1].isupper() and c.content.endswith(".") and 0 < c.importance <= 1


def test_huge_and_hostile_input_is_cheap() -> None:
    hostile = [
        "I live in Lisbon. " + "x" * 2_000_000,
        "I " * 200_000,
        "my sister " * 50_000,
        ("I'm " + "a " * 5_000 + "nurse. ") * 10,
        "I like " + ", ".join(["jazz"] * 20_000),
        "\u202e\u202dI live in Lisbon\u200f\u0000" * 1000,
        "Hi, " * 100_000 + "I'm Sarah.",
        "I" * 1_000_000,
    ]
    for text in hostile:
        started = time.process_time()  # CPU: a loaded machine's waits are not the rules' cost
        extract_facts([turn(text)])
        assert time.process_time() - started < 1.0, text[:40]
    assert said("I live in Lisbon. " + "x" * 2_000_000) == [("Lives in Lisbon.", "home")]
    assert said("x" * (MAX_CHARS + 10) + " I live in Lisbon.") == []  # past what is read


def test_throughput() -> None:
    texts = [t for t, _ in IDENTITY + LOCATION + OCCUPATION + RELATIONSHIPS + PREFERENCES + PLANS_AND_EVENTS]
    texts += NOTHING
    turns = [turn(t, seq) for seq, t in enumerate(texts * 4)]
    # CPU time, not wall time: under a loaded machine's waits (load 25) the wall-clock rate fell
    # to ~220/s while the rules' own cost did not change. Thousands a second of CPU on these
    # cores; this only guards against a collapse (the throughput figures are bench/facts').
    started = time.process_time()
    extract_facts(turns)
    per_cpu_second = len(turns) / (time.process_time() - started)
    assert per_cpu_second > 500, per_cpu_second


def test_a_tail_saying_how_long_is_not_an_object_and_a_number_is_not_an_employer() -> None:
    assert said("i hate mayonnaise, always have") == [("Dislikes mayonnaise.", "dislikes:mayonnaise")]
    assert said("I've been a UX designer for 11 years.") == [("Works as a UX designer.", "job_title")]
    assert said("I work for 3M") == [("Works at 3M.", "employer")]


# --- what a named speaker tells of their life ----------------------------------------------------

SAID_AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def told(text: str, *, role: str = "user", name: str | None = "Priya") -> list[tuple[str, FactKind]]:
    t = TurnRef(1, role, name, text, SAID_AT, uuid.uuid5(uuid.NAMESPACE_URL, text))
    return [(c.content, c.kind) for c in extract_facts([t]) if c.subject is None]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Hey Sam! I went to a chess club meeting yesterday and it was so much fun.",
            [
                (
                    "Went to a chess club meeting yesterday (2023-05-07) and it was so much fun.",
                    FactKind.event,
                )
            ],
        ),
        (
            "Last Friday, I went to a first-aid workshop for new parents.",
            [
                (
                    "Went to a first-aid workshop for new parents last friday (2023-05-05).",
                    FactKind.event,
                )
            ],
        ),
        (
            "I'm setting aside some quiet time each evening for cycling, baking and my cello.",
            [
                (
                    "Is setting aside some quiet time each evening for cycling, baking and Priya's cello.",
                    FactKind.other,
                )
            ],
        ),
        (
            "I'm going to a woodwork class with my nephews next week.",
            [
                (
                    "Is going to a woodwork class with Priya's nephews next week (week of 2023-05-15).",
                    FactKind.plan,
                )
            ],
        ),
        (
            "My nephews love the harbour and the old castle.",
            [("Priya's nephews love the harbour and the old castle.", FactKind.other)],
        ),
    ],
)
def test_a_named_speaker_tells_experiences_in_the_third_person(
    text: str, expected: list[tuple[str, FactKind]]
) -> None:
    assert told(text) == expected
    # The other named person of the talk (sent as `assistant` with a name) is read the same way.
    assert [c for c, _ in told(text, role="assistant", name="Sam")] == [
        c.replace("Priya", "Sam") for c, _ in expected
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Did you go to the support group yesterday?",  # a question
        "I think I'll go to a support group next week.",  # a belief
        "If I went to a support group, I'd feel better.",  # a supposition
        "Maybe I'll visit the museum with the kids.",  # a hedge
        "I'm so glad for you and your crew!",  # a mood, about the listener
        "I really appreciate all the support from my friends.",  # thanks
        "I'm gonna keep pushing and training for my goals.",  # encouragement
        "I made it in cooking class yesterday.",  # "it": what is shown
        "I do remember those swim lessons at the pool.",  # "those": what is shown
        "I agree, resting well is so important.",  # about the talk
        "I went there.",  # too little to stand alone
        "She went to a support group yesterday.",  # someone else
        "I had a great time there last month with my cousins.",  # "there": a place the talk named
        "I first saw it around five years ago with my cousin.",  # "it": a thing the talk named
        "I'm hooked on those, so I made a sign for the shop.",  # "those": what is shown
        "I'm trying to stay calm, but it's hard.",  # a mood
        "I've been keeping busy since our last chat.",  # says nothing
        "I really admire his patience and care for the garden.",  # "his": someone the talk knows
        "I started helping out here about two years ago at the library.",  # "here": where the talk is
        "I'm a big believer in it, that's why I go every week.",  # "it": what the talk named
        "I don't need to worry about it, so I can enjoy my books and puzzles.",  # likewise
    ],
)
def test_what_is_not_a_told_experience(text: str) -> None:
    assert told(text) == []


def test_an_unnamed_speaker_tells_no_experiences() -> None:
    """The fact names its speaker where the sentence did ("Priya's nephews"): without a name there
    is no one to name, and the slot rules alone read the turn."""
    assert told("I went to a chess club meeting yesterday and it was so much fun.", name=None) == []
