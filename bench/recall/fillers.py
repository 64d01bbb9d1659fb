"""Filler episodes: the everyday traffic around the planted facts.

Each filler is a function `(rng, who) -> [user, assistant, user, assistant, ...]` where `who` gives
a few names of the persona (so small talk can mention them without stating anything new about the
user). Three families: small talk, generic assistant tasks (recipes, emails, explanations, code,
planning) and topical distractors: the same subjects as the planted facts (pets, jobs, moves,
health, travel, gifts) but about other people or in general, so that a question's words and topic
also match turns that are not its evidence.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bench.recall.lexicon import (
    CUISINES,
    FEMALE_NAMES,
    HOME_CITIES,
    JOBS,
    MALE_NAMES,
    PET_NAMES,
    PETS,
    TRIP_DESTINATIONS,
)

Filler = Callable[[random.Random, Any], list[str]]
FILLERS: list[Filler] = []
MAX_USES: dict[Filler, int] = {}  # per user: distractors 2, the rest 15 (see generate.py)


def filler(fn: Filler) -> Filler:
    FILLERS.append(fn)
    return fn


def distractor(fn: Filler) -> Filler:
    FILLERS.append(fn)
    MAX_USES[fn] = 2
    return fn


def _other(rng: random.Random, who: Any) -> tuple[str, str]:
    """Someone else: a name not used by the persona, and the pronoun for them."""
    taken = set(who.taken_names)
    name = rng.choice([n for n in FEMALE_NAMES + MALE_NAMES if n not in taken])
    return name, "her" if name in FEMALE_NAMES else "him"


def _an(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


class _Coupled:
    """Picks that stay paired: lists of the same length get the same index within one episode, so a
    reply always answers its question. Lists of another length draw independently."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.index: dict[int, int] = {}

    def __call__(self, *options: str) -> str:
        n = len(options)
        if n not in self.index:
            self.index[n] = self.rng.randrange(n)
        return options[self.index[n]]


# --- small talk ---------------------------------------------------------------------------------


@filler
def greeting(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "Morning! Rough night, I barely slept.",
            "Hey, are you there?",
            "Hi again. Long day.",
            "Good evening! Quick one before bed.",
            "Hello hello. Coffee in hand, ready to get things done.",
        ),
        pick(
            "Good morning! Sorry to hear the night was rough. What can I help with?",
            "Always. What's on your mind?",
            "Hi! Sorry it's been a long one. What do you need?",
            "Good evening! Sure, what is it?",
            "Love the energy. What are we working on?",
        ),
    ]


@filler
def thanks(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "Perfect, thank you!",
            "That's exactly what I needed.",
            "Great, thanks a lot.",
            "Super helpful.",
        ),
        pick(
            "Glad it helped! Let me know if anything else comes up.",
            "Anytime. Good luck with it!",
            "You're welcome. Ping me if you want to tweak anything.",
        ),
    ]


@filler
def weather(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "It's pouring again. Third day in a row. Is it normal to get this grumpy about weather?",
            "It's so hot today that I don't want to move. Any tips for staying cool without AC?",
            "First snow of the season! Everything is quiet and pretty outside.",
            "The wind last night was wild, a branch came down on the neighbour's fence.",
        ),
        pick(
            "Completely normal: grey days lower energy for a lot of people. A short walk in daylight, even "
            "cloudy daylight, and a bright lamp in the morning can help.",
            "Close the blinds on the sunny side early, run fans across a bowl of ice, drink more water "
            "than you think you need and keep cooking to a minimum.",
            "That sounds lovely. Enjoy it while it's fresh, and maybe check the walkway before it ices.",
            "Glad nobody was hurt. It's worth taking photos of the damage in case insurance gets involved.",
        ),
    ]


@filler
def tired(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "I feel like I've been running on empty all week. How do people stay productive?",
            "I keep getting distracted by my phone when I should be working. Ideas?",
            "I procrastinated all afternoon and now I'm annoyed with myself.",
        ),
        pick(
            "Be gentle with yourself first. Pick the one task that matters most tomorrow, do it before "
            "checking messages, and protect your sleep tonight.",
            "Try putting the phone in another room for 25-minute blocks, with a short break after each. "
            "Turning off non-essential notifications also helps a lot.",
            "It happens to everyone. Write down the very next small step of the task; starting is usually "
            "the hardest part.",
        ),
    ]


@filler
def weekend(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "Any ideas for a cheap weekend activity? I'm bored of the same routine.",
            "What's something fun to do on a rainy Sunday at home?",
            "I have a free Saturday for once. How should I spend it?",
        ),
        pick(
            "A few options: a free museum day, a long walk through a neighbourhood you don't know, a "
            "library haul, or cooking something ambitious you've been putting off.",
            "Board games, a movie marathon with a theme, baking bread, or finally sorting those photos.",
            "Sleep in, then do one thing just for fun and one small chore, so you feel rested and a bit "
            "accomplished.",
        ),
    ]


# --- generic assistant tasks --------------------------------------------------------------------

DISHES = [
    ("shakshuka", "eggs poached in a spiced tomato and pepper sauce, finished with feta and parsley"),
    ("chicken tikka", "yogurt-marinated chicken roasted hot, then simmered in a creamy tomato sauce"),
    ("mushroom risotto", "arborio rice stirred with warm stock, porcini and parmesan"),
    ("black bean tacos", "spiced beans, quick-pickled onions, avocado and lime on warm tortillas"),
    ("lemon garlic salmon", "salmon fillets baked with butter, garlic, lemon and dill"),
    ("vegetable stir-fry", "crisp vegetables with ginger, garlic, soy and a splash of rice vinegar"),
    ("banana bread", "overripe bananas, brown sugar, butter and a pinch of cinnamon"),
    ("minestrone", "beans, pasta and whatever vegetables you have in a tomato broth"),
    ("pad see ew", "wide rice noodles with Chinese broccoli, egg and sweet soy"),
    ("lentil soup", "red lentils, cumin, carrots and a squeeze of lemon"),
    ("chili con carne", "browned beef, beans, tomatoes, cumin and chili, simmered low for an hour"),
    ("pesto pasta", "basil, pine nuts, garlic, parmesan and olive oil blitzed and tossed with hot pasta"),
    ("french toast", "thick bread soaked in egg, milk and cinnamon, fried in butter"),
    ("greek salad", "tomato, cucumber, red onion, olives and feta with oregano and olive oil"),
    ("chicken noodle soup", "poached chicken, carrots, celery and egg noodles in a clear broth"),
    ("fried rice", "day-old rice, egg, peas, scallions and soy sauce in a very hot pan"),
    ("butternut squash soup", "roasted squash blended with onion, stock and a little nutmeg"),
    ("fish tacos", "crispy white fish, cabbage slaw and a lime crema"),
    ("overnight oats", "oats soaked in milk and yogurt with chia seeds and fruit"),
    ("ratatouille", "zucchini, eggplant, peppers and tomato stewed slowly with herbs"),
]  # fmt: skip


@filler
def recipe(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    dish, desc = rng.choice(DISHES)
    minutes = rng.choice([20, 30, 45])
    return [
        pick(
            f"Do you have a good recipe for {dish}? I've got about {minutes} minutes.",
            f"I want to make {dish} tonight. Walk me through it?",
            f"What do I need for {dish}? Going to the store in a bit.",
        ),
        f"Sure. The short version of {dish}: {desc}. Prep everything first, then it comes together "
        f"quickly; it should fit in {minutes} minutes if you keep the heat up.",
        pick(
            "Can I make it ahead?",
            "Any substitutions if I don't have everything?",
            "How many does it serve?",
        ),
        pick(
            f"Yes, {dish} keeps well in the fridge for two or three days and reheats nicely.",
            f"For {dish}, mostly yes: swap herbs freely, use any neutral oil, and canned tomatoes work fine.",
            f"As written the {dish} serves about four, or two with generous leftovers.",
        ),
    ]


EMAIL_TASKS = [
    ("my landlord", "the heating not working properly"),
    ("a client", "pushing our deadline back by a week"),
    ("my kid's teacher", "a doctor's appointment on Thursday"),
    ("the HOA", "a noise complaint from next door"),
    ("a recruiter", "politely declining an interview"),
    ("my manager", "asking for Friday off"),
    ("the airline", "a refund for a cancelled flight"),
    ("the gym", "cancelling my membership"),
    ("my neighbour", "their tree hanging over our driveway"),
    ("my insurance company", "a claim that has been open for a month"),
    ("the school office", "my kid missing the field trip form"),
    ("a contractor", "getting a quote for a new deck"),
    ("my dentist's office", "rescheduling a cleaning"),
    ("the hiring team", "following up after an interview"),
]  # fmt: skip


@filler
def email(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    to, about = rng.choice(EMAIL_TASKS)
    return [
        pick(
            f"Can you help me write an email to {to} about {about}?",
            f"I need to email {to} about {about}. Keep it short and polite.",
        ),
        f"Of course. Draft: 'Hi, I'm writing about {about}. I'd appreciate it if we could sort this out "
        "this week; let me know what works for you. Thanks so much.' Want it more formal or friendlier?",
        pick("A bit friendlier please.", "More formal, it's a bit casual.", "That's good, maybe shorter."),
        pick(
            "Here's a warmer version: 'Hi! Hope you're doing well. Quick note about "
            f"{about}. Could we find a fix this week? Thanks a ton!'",
            f"Formal version: 'Dear Sir or Madam, I am writing regarding {about}. I would be grateful for "
            "your prompt attention to this matter. Kind regards.'",
            f"Shorter: 'Hi, quick note about {about}. Can we sort it this week? Thanks!'",
        ),
    ]


CONCEPTS = [
    ("compound interest", "interest earned on both the original amount and the interest already added, "
     "so growth speeds up over time"),
    ("a Roth IRA", "a retirement account funded with after-tax money, so qualified withdrawals later are "
     "tax-free"),
    ("how vaccines work", "they show the immune system a harmless piece or copy of a germ so it learns to "
     "recognise the real thing quickly"),
    ("why the sky is blue", "air molecules scatter short blue wavelengths of sunlight much more than red "
     "ones"),
    ("noise-cancelling headphones", "microphones hear outside sound and the headphones play the inverted "
     "wave, which cancels much of it"),
    ("inflation", "a general rise in prices, which means each unit of money buys a bit less over time"),
    ("how a heat pump works", "it moves heat instead of making it, pulling warmth from outside air even "
     "when it's cold"),
    ("what a credit score is", "a number summarising how reliably you've repaid debt, used by lenders "
     "to price loans"),
    ("photosynthesis", "plants use light to turn water and carbon dioxide into sugar, releasing oxygen"),
    ("the difference between weather and climate", "weather is day to day, climate is the long-term "
     "average over decades"),
    ("how sourdough rises", "wild yeast and bacteria in the starter ferment the flour and produce gas"),
    ("what an index fund is", "a fund that simply holds everything in a market index, which keeps fees "
     "low"),
    ("how tides work", "the moon's gravity pulls the oceans into bulges, and the earth turns through them"),
    ("what a mortgage rate lock is", "a lender's promise to hold an interest rate for a set period while "
     "the loan closes"),
    ("how a bill becomes a law", "it is drafted, passes committee and both chambers, then is signed or "
     "vetoed"),
    ("what cholesterol actually is", "a waxy substance the body needs, carried by particles that can "
     "build up in arteries"),
    ("how GPS works", "your phone times signals from several satellites and works out where it must be"),
    ("what a recession is", "a broad decline in economic activity that lasts more than a few months"),
    ("why leaves change colour", "the green chlorophyll breaks down in autumn and reveals yellow and red "
     "pigments"),
    ("how compound exercises differ", "they work several joints and muscles at once, like squats and rows"),
    ("what the stock market is", "a marketplace where shares of companies are bought and sold"),
    ("how a refrigerator keeps cold", "a refrigerant absorbs heat inside and releases it through coils "
     "at the back"),
]  # fmt: skip


@filler
def explain(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    concept, gist = rng.choice(CONCEPTS)
    return [
        pick(
            f"Can you explain {concept} like I'm five?",
            f"I never really understood {concept}. Quick explanation?",
            f"My nephew asked me about {concept} and I had no idea what to say.",
        ),
        f"Here's the simple version: {gist}. Happy to go deeper if you'd like an example.",
    ]


CODE_TASKS = [
    ("reverse a list", "Python", "use my_list[::-1] for a reversed copy, or my_list.reverse() in place"),
    ("read a CSV file", "Python", "the csv module's DictReader gives you one dict per row"),
    ("center a div", "CSS", "on the parent, display: flex, then center both justify-content and align-items"),
    ("undo my last commit", "git", "git reset --soft HEAD~1 keeps the changes staged"),
    ("find large files", "the terminal", "du -ah . | sort -rh | head -20 lists the biggest ones"),
    ("remove duplicates from a column", "Excel", "select it, then Data > Remove Duplicates"),
    ("sum a column by category", "Google Sheets", "SUMIF(range, criterion, sum_range) does it"),
    ("rename a branch", "git", "git branch -m old-name new-name"),
    ("sort a dictionary by value", "Python", "sorted(d.items(), key=lambda kv: kv[1])"),
    ("make a bulleted list", "Google Docs", "Format > Bullets & numbering, or Ctrl+Shift+8"),
    ("freeze the top row", "Excel", "View > Freeze Panes > Freeze Top Row"),
    ("count words in a file", "the terminal", "wc -w filename"),
    ("parse a date string", "JavaScript", "new Date('2025-03-01') or a library like date-fns"),
    ("add a column with a default", "SQL", "ALTER TABLE t ADD COLUMN c integer DEFAULT 0"),
    ("make text bold", "Markdown", "wrap it in double asterisks"),
]  # fmt: skip


@filler
def code(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    task, tool, how = rng.choice(CODE_TASKS)
    return [
        pick(f"How do I {task} in {tool}?", f"Quick {tool} question: how do I {task}?"),
        f"Easy one: {how}. Want a full example?",
    ]


@filler
def conversion(rng: random.Random, who: Any) -> list[str]:
    a = rng.choice(
        [
            ("How many grams is a cup of flour?", "About 120 to 125 grams, if it's spooned and levelled."),
            ("What's 180 Celsius in Fahrenheit?", "356°F, so most recipes round it to 350°F."),
            ("How many tablespoons in a quarter cup?", "Four tablespoons."),
            ("How far is a 10k in miles?", "About 6.2 miles."),
            ("What's a good tip on a $64 dinner bill?", "At 18% it's about $11.50; at 20%, $12.80."),
        ]
    )
    return [a[0], a[1]]


@filler
def trivia(rng: random.Random, who: Any) -> list[str]:
    a = rng.choice(
        [
            ("Settle a debate: is a tomato a fruit?", "Botanically yes, it's a fruit; in the kitchen it's "
             "treated as a vegetable. You both win."),
            ("Who painted the ceiling of the Sistine Chapel?", "Michelangelo, between 1508 and 1512."),
            ("How long does light from the sun take to reach us?", "About eight minutes and twenty seconds."),
            ("Why do cats purr?", "Mostly contentment, but also to soothe themselves when stressed or hurt."),
            ("What's the tallest mountain in Africa?", "Kilimanjaro, at about 5,895 metres."),
            ("Do octopuses really have three hearts?", "They do: two pump blood through the gills, one "
             "through the rest of the body."),
        ]
    )  # fmt: skip
    return [a[0], a[1]]


@filler
def movie_night(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "What should we watch tonight? Something light.",
            "Recommend a documentary? I've seen all the obvious ones.",
            "I want a series to binge this weekend, nothing too dark.",
        ),
        pick(
            "For something light: a comfort comedy like 'Schitt's Creek' or a feel-good film like 'Chef'.",
            "Try 'My Octopus Teacher' or 'Free Solo' if you haven't, both are gripping.",
            "'Ted Lasso' or 'Only Murders in the Building' are warm, funny and easy to binge.",
        ),
    ]


@filler
def budgeting(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "I want to start budgeting but I always give up after a week. Any system that sticks?",
            "How much of my paycheck should go to savings?",
        ),
        pick(
            "Keep it simple: automate savings on payday, give yourself one weekly spending number, and "
            "review for ten minutes on Sundays. Fewer categories last longer.",
            "A common rule of thumb is 50/30/20: needs, wants, savings. Start with whatever you can "
            "automate, even 5%, and raise it with each raise.",
        ),
    ]


@filler
def workout_general(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "What's a good 20-minute workout I can do at home without equipment?",
            "How do I stop my legs being so sore after squats?",
        ),
        pick(
            "Try three rounds of: 15 squats, 10 push-ups, 20 lunges, a 45-second plank and 30 seconds of "
            "jumping jacks, resting a minute between rounds.",
            "Soreness fades as you adapt. Ramp up slowly, walk or cycle lightly the next day, sleep well, "
            "and eat enough protein.",
        ),
    ]


@distractor
def travel_general(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    city, country, _ = rng.choice(TRIP_DESTINATIONS)
    return [
        pick(
            f"A friend is going to {city} next month. What shouldn't they miss?",
            f"Is {country} expensive to visit? Asking for my parents.",
            "What's the best way to deal with jet lag?",
        ),
        pick(
            f"In {city}, the old neighbourhoods on foot, a local food market and one good day trip out of "
            "town are usually the highlights.",
            f"It depends on the season and style, but {country} can be very reasonable outside the big "
            "tourist weeks. Booking flights early makes the biggest difference.",
            "Shift your sleep an hour a day before leaving, get morning light when you arrive, and avoid "
            "long naps on day one.",
        ),
    ]


@distractor
def gift_general(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "What do you get a coworker who's leaving? We're pooling money.",
            "Any ideas for a secret Santa gift under $25?",
            "My neighbour watered our plants all summer. Thank-you gift ideas?",
        ),
        pick(
            "A nice notebook and pen set, a gift card to a favourite lunch spot, and a card everyone signs "
            "always goes over well.",
            "Fancy hot sauce set, a good candle, a puzzle or a plant: useful, cheap, hard to get wrong.",
            "A homemade treat with a handwritten card, or a small potted herb garden, would be lovely.",
        ),
    ]


@distractor
def pet_general(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    species = rng.choice(["dog", "cat"])
    return [
        pick(
            f"My neighbour's {species} keeps coming into our yard. Is that a problem?",
            f"How often should a {species} see the vet?",
            f"My friend is thinking of getting a {species}. What should she know first?",
        ),
        pick(
            "Usually not, but a friendly word with the neighbour is the easiest fix if it's bothering you.",
            "A check-up once a year for adults, twice a year for seniors, plus vaccines on schedule.",
            "Time, costs and space: vet bills, food, who cares for it during trips, and daily attention.",
        ),
    ]


@distractor
def other_person_pet(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    friend, _ = _other(rng, who)
    species = rng.choice(list(PETS))
    breed = rng.choice(PETS[species][1])
    pet = rng.choice([n for n in PET_NAMES if n not in who.taken_names])
    return [
        pick(
            f"My coworker {friend} just adopted {_an(breed)} called {pet} and shows us photos all day.",
            f"My friend {friend} got {_an(breed)} named {pet}. Honestly a bit jealous.",
        ),
        pick(
            f"{pet} sounds adorable! New pet owners always have the best photo rolls.",
            f"That's lovely, {friend} must be thrilled. A new animal changes everything, for the better.",
        ),
    ]


@distractor
def other_person_job(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    friend, _ = _other(rng, who)
    title, _ = rng.choice(JOBS)
    return [
        pick(
            f"My friend {friend} just got hired as {_an(title)}. Should I send something to congratulate?",
            f"{friend} from my old team is interviewing for {_an(title)} role and asked me for tips.",
        ),
        pick(
            f"A short note to {friend} is plenty; a coffee or lunch on you is a nice extra.",
            f"Tips for {friend}: research the team, prepare three stories from past work, ask questions.",
        ),
    ]


@distractor
def other_person_move(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    friend, obj = _other(rng, who)
    city, region = rng.choice(HOME_CITIES)
    return [
        pick(
            f"My friend {friend} is moving to {city} and I'm going to miss {obj} so much.",
            f"{friend} from book club is relocating to {region} for work. We're throwing a goodbye party.",
        ),
        pick(
            "That's bittersweet. Planning a visit early gives you both something to look forward to.",
            "A goodbye party is a great idea. A memory book from everyone would make a lovely gift.",
        ),
    ]


@distractor
def other_person_health(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "My mom has been having dizzy spells. Should she be worried?",
            "My dad just got told his cholesterol is high. What can he change in his diet?",
            "A coworker fainted at lunch today. It shook everyone up.",
        ),
        pick(
            "Dizziness has many causes, most minor, but she should mention it to her doctor, especially if "
            "it's new or comes with other symptoms.",
            "More fibre, oats, beans, nuts and fish, fewer fried and processed foods, and regular walks "
            "all help. His doctor may suggest medication too.",
            "That sounds scary. Good that people were around to help; hopefully it was just low blood sugar.",
        ),
    ]


@filler
def work_general(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "My meeting ran two hours over. How do I get people to stick to agendas?",
            "How do I ask for a raise without sounding entitled?",
            "I have a presentation tomorrow and I'm nervous. Any last-minute advice?",
            "My inbox has 400 unread emails. Where do I even start?",
        ),
        pick(
            "Send the agenda ahead, timebox each item, and end with owners and next steps. A visible timer "
            "helps more than you'd think.",
            "Bring evidence: results you delivered, market rates, and a specific number. Frame it as your "
            "growth and the value you add.",
            "Rehearse the opening twice out loud, know your three key points, and breathe slowly before "
            "you start. Nobody notices nerves as much as you do.",
            "Sort by sender, archive everything older than a month that isn't from a person, then answer "
            "the rest in short bursts.",
        ),
    ]


@distractor
def restaurant_general(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    cuisine, dish = rng.choice(CUISINES)
    return [
        pick(
            f"My in-laws want {cuisine} food this weekend. What's good for people who don't like spice?",
            f"What's the difference between regional styles of {cuisine} cooking?",
        ),
        f"{dish.capitalize()} is a safe, delicious start, and most places will adjust the heat if you ask.",
    ]


@filler
def home_chores(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "How do I get a red wine stain out of a carpet?",
            "What's the best way to clean a cast iron pan?",
            "The kitchen sink drains super slowly. Anything before I call a plumber?",
            "How often should I replace my toothbrush?",
        ),
        pick(
            "Blot, don't rub. Then a paste of baking soda and water, or dish soap with hydrogen peroxide "
            "on light carpets, and blot again.",
            "Hot water and a brush, no soaking, dry it on the stove and rub in a thin layer of oil.",
            "Try boiling water, then baking soda followed by vinegar, then a drain snake. Avoid harsh "
            "chemical cleaners if you can.",
            "Every three to four months, or sooner if the bristles fray or after you've been sick.",
        ),
    ]


@filler
def planning_general(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "Help me plan my week? I have too many things going on.",
            "Can you make me a packing list for a three-day work trip?",
            "I need a checklist for hosting eight people for dinner.",
        ),
        pick(
            "Let's list everything, mark what has a hard deadline, then give each day one big task and a "
            "couple of small ones. What's on the list?",
            "Essentials: laptop and charger, two outfits plus one spare, toiletries, ID, a reusable water "
            "bottle and headphones.",
            "Plan a menu you can mostly prep ahead, check for dietary needs, borrow chairs early, and set "
            "the table the night before.",
        ),
    ]


@filler
def news_chat(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "Did you see they're building a new light rail line downtown? Traffic is going to be chaos.",
            "Our town is voting on a new library levy. Seems like a good idea to me.",
            "There was a power outage across half the neighbourhood last night.",
        ),
        pick(
            "Construction is always painful, but transit lines tend to pay off for decades once they open.",
            "Libraries are one of the best-value public services around, so I see why you'd support it.",
            "Outages are annoying. It's worth keeping a flashlight and a charged power bank handy.",
        ),
    ]


@distractor
def partner_smalltalk(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            f"{who.partner} and I can't agree on what to cook tonight. Tie-breaker?",
            f"{who.partner} says I snore. Rude, but possibly true. Any fixes?",
            f"{who.partner} wants to repaint the living room. Neutral or bold colour?",
        ),
        pick(
            "Breakfast for dinner. Nobody ever loses with pancakes.",
            "Sleeping on your side, avoiding alcohol late and a humidifier help many people; if it's loud "
            "and constant, a doctor can check for sleep apnea.",
            "A warm neutral is safe; a bold accent wall gives you colour without committing the whole room.",
        ),
    ]


@distractor
def sibling_smalltalk(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            f"My {who.sibling_rel} {who.sibling} called for an hour last night. We haven't talked like "
            "that in ages.",
            f"{who.sibling} keeps sending me memes at 3am. Siblings are something else.",
        ),
        pick(
            "That sounds really nice. Long catch-ups like that are worth a lot.",
            "The 3am meme is a love language, honestly.",
        ),
    ]


@filler
def shopping(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "Is it worth paying extra for a good mattress?",
            "I need new running shoes. What should I look for?",
            "Should I buy a robot vacuum? Are they any good?",
        ),
        pick(
            "You spend a third of your life on it, so yes, within reason. Look for a long trial period.",
            "Get fitted at a running store if you can; comfort on the first jog matters more than any spec.",
            "For regular light cleaning they're great, especially with pets. No substitute for a deep clean.",
        ),
    ]


@filler
def tech_help(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    return [
        pick(
            "My laptop fan is super loud all of a sudden. What's going on?",
            "How do I stop my phone storage filling up?",
            "Should I use a password manager?",
        ),
        pick(
            "Usually a heavy background process or dust. Check the task manager, then clean the vents.",
            "Photos and videos are the usual culprit; turn on cloud backup and clear old downloads.",
            "Yes, it's one of the best security steps you can take. Pick one and start with your email.",
        ),
    ]


WORDS = [
    ("ubiquitous", "present everywhere at once"), ("ephemeral", "lasting a very short time"),
    ("pragmatic", "dealing with things sensibly and practically"), ("laconic", "using very few words"),
    ("sanguine", "optimistic, especially in a hard situation"), ("obfuscate", "to make something unclear"),
    ("serendipity", "a happy accident"), ("meticulous", "showing great attention to detail"),
    ("juxtapose", "to place side by side for contrast"), ("ambivalent", "having mixed feelings"),
    ("candor", "the quality of being open and honest"), ("esoteric", "understood by only a few people"),
    ("gregarious", "fond of company, sociable"), ("quixotic", "idealistic in an unrealistic way"),
    ("tenuous", "very weak or slight"), ("vicarious", "experienced through someone else"),
]  # fmt: skip


@filler
def definition(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    word, meaning = rng.choice(WORDS)
    return [
        pick(f"What does '{word}' mean?", f"Quick vocab check: '{word}'?", f"Is '{word}' a compliment?"),
        f"'{cap_first(word)}' means {meaning}. It's a bit formal, but handy in writing.",
    ]


PHRASES = [
    "where is the train station", "could I have the bill, please", "I'm allergic to nuts",
    "nice to meet you", "how much does this cost", "I don't understand", "see you tomorrow",
    "a table for two, please", "is this seat taken", "happy birthday", "good luck with your exams",
    "what time does it open",
]  # fmt: skip


@filler
def translate(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    phrase = rng.choice(PHRASES)
    lang = rng.choice(["Spanish", "French", "Italian", "German", "Portuguese"])
    return [
        pick(f"How do you say '{phrase}' in {lang}?", f"Translate '{phrase}' into {lang}?"),
        f"'{cap_first(phrase)}' in {lang} is usually said a bit more politely than in English; I can give "
        "you the phrase with a pronunciation guide if that helps.",
        pick("Yes please, with pronunciation.", "Is there a more casual way?", "Perfect, thanks."),
        pick(
            f"Sure. Say '{phrase}' slowly in {lang}, stressing the second-to-last syllable.",
            f"With friends you can drop the polite part of '{phrase}'; the short version is natural.",
            f"You're welcome! Locals always appreciate an attempt at {lang}.",
        ),
    ]


HISTORY = [
    ("When did the Berlin Wall fall?", "On 9 November 1989."),
    ("Who was the first woman to win a Nobel Prize?", "Marie Curie, in physics in 1903."),
    ("Why did the Roman Empire fall?", "Many reasons at once: overstretched borders, money troubles, "
     "political instability and pressure from migrating peoples."),
    ("When was the printing press invented?", "Gutenberg's press dates from around 1440."),
    ("What started World War I?", "The assassination of Archduke Franz Ferdinand in 1914 set off a web "
     "of alliances."),
    ("Who built Machu Picchu?", "The Inca, in the 15th century, probably as an estate for the emperor "
     "Pachacuti."),
    ("When did humans land on the moon?", "Apollo 11 landed on 20 July 1969."),
    ("What was the Silk Road?", "A network of trade routes linking China with the Mediterranean."),
    ("How old are the pyramids of Giza?", "About 4,500 years old."),
    ("Who wrote the first computer program?", "Ada Lovelace is usually credited, for notes on Babbage's "
     "Analytical Engine in 1843."),
]  # fmt: skip


@filler
def history(rng: random.Random, who: Any) -> list[str]:
    q, a = rng.choice(HISTORY)
    return [q, a]


SENTENCES = [
    "me and him goes to the store every sunday",
    "their going to be late because of the traffic",
    "i could of finished it if I had more time",
    "the data shows that less people are applying this year",
    "irregardless of the outcome we should celebrate",
    "its been a long week for everyone on the team",
    "between you and I, the meeting was pointless",
    "we need to discuss about the budget",
]  # fmt: skip


@filler
def proofread(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    sentence = rng.choice(SENTENCES)
    return [
        pick(f"Can you fix the grammar: '{sentence}'", f"Is this correct? '{sentence}'"),
        f"Almost! '{sentence}' needs a small fix in verb agreement or word choice; here's the corrected "
        "version. Want me to explain the rule behind it?",
        pick("Yes, explain it.", "No, that's fine.", "Just the rule, briefly."),
        pick(
            f"The rule behind '{sentence}': the verb agrees with its subject; use the standard form.",
            "No problem, glad it helps.",
            f"Keep subject and verb in agreement in '{sentence}', and watch commonly confused words.",
        ),
    ]


MATH = [
    ("What's 15% of 80?", "12."), ("What's 7 times 13?", "91."), ("Square root of 196?", "14."),
    ("If I save $150 a month, how much in two years?", "$3,600, before any interest."),
    ("How many minutes are in a week?", "10,080."), ("What's 2 to the power of 10?", "1,024."),
    ("Split a $96 bill four ways with 20% tip?", "$28.80 each."),
    ("How many seconds in a day?", "86,400."),
    ("Average of 12, 15 and 21?", "16."),
]  # fmt: skip


@filler
def math(rng: random.Random, who: Any) -> list[str]:
    q, a = rng.choice(MATH)
    return [q, a]


PROJECTS = [
    "a book club", "a podcast about local history", "our pub quiz team", "a small bakery",
    "a running group", "a neighbourhood newsletter", "a board game night", "a food blog",
]  # fmt: skip


@filler
def brainstorm(rng: random.Random, who: Any) -> list[str]:
    pick = _Coupled(rng)
    project = rng.choice(PROJECTS)
    return [
        pick(f"Help me brainstorm names for {project}?", f"I need a catchy name for {project}."),
        f"For {project}, a few directions: a pun on your town's name, something cosy and simple, or "
        "something bold and funny. Do you want five of each?",
        pick("Give me the funny ones.", "The cosy ones sound right.", "Mix of all three, please."),
        f"Here you go, five names for {project}: short, easy to say out loud, and each works as a hashtag.",
    ]


def cap_first(s: str) -> str:
    return s[:1].upper() + s[1:]
