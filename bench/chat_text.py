"""Realistic chat messages and search queries for the indexing and search-at-scale benchmarks.

Templates of what people tell an assistant (appointments, moves, family, food, work, travel),
the assistant's multi-sentence answers and tools' JSON outputs, with slots filled from a few
hundred names, places and things. Lengths vary from 20 to 400 characters (users short,
assistants long), so tokenisation and padding cost what real traffic costs; the model sees
30-100 tokens per message on average, not a fixed sentence.
"""

from __future__ import annotations

import json
import random
from typing import Any

NAMES = (  # noqa: SIM905 - a sentence is easier to edit than a list
    "Ada Bruno Chloé Dmitri Eun-ji Farah Gustavo Hiro Inès Jonas Kofi Lena Mateo Nadia Omar Priya "
    "Quentin Rosa Sven Tariq Uma Viktor Wen Ximena Yusuf Zoe Amara Bjørn Carmen Diego Elif Fatima "
    "Goran Hana Ivan Jamal Keiko Liam Maya Noah Olga Pavel Rania Sofia Tomás Ulla Valentina Will"
).split()
RELATIVES = ["sister", "brother", "mother", "father", "partner", "cousin", "aunt", "son", "daughter"]
CITIES = (  # noqa: SIM905
    "Lisbon Porto Berlin Kraków Osaka Nairobi Montréal Zürich Madrid Seoul Lima Oslo Dublin Accra "
    "Hanoi Austin Denver Lyon Turin Bergen Cork Leeds Quito Tbilisi Valencia Sapporo Kyoto Boston"
).split()
PLACES = [
    "the Italian place on Rua Augusta",
    "that ramen bar near the station",
    "Café Central",
    "the climbing gym",
    "the farmers market",
    "the new bakery",
    "the co-working space on 5th",
    "the dentist on Elm Street",
    "the hotel by the river",
    "the vegan bistro",
    "the bookshop downtown",
    "the community pool",
]
APPTS = [
    "dentist appointment",
    "haircut",
    "physio session",
    "call",
    "1:1",
    "job interview",
    "vet visit",
    "parent-teacher meeting",
    "eye exam",
    "car service",
    "flat viewing",
    "tax advisor meeting",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "tomorrow"]
WHEN = [
    "last week",
    "two weeks ago",
    "in March",
    "last summer",
    "a couple of days ago",
    "yesterday",
    "this morning",
    "back in 2023",
    "last month",
]
ACTIVITIES = [
    "running",
    "bouldering",
    "piano",
    "Spanish lessons",
    "pottery",
    "chess",
    "sourdough baking",
    "cycling",
    "yoga",
    "swimming",
    "guitar",
    "Japanese",
    "woodworking",
    "photography",
    "tennis",
    "gardening",
]
FOODS = [
    "peanuts",
    "shellfish",
    "gluten",
    "lactose",
    "sesame",
    "eggs",
    "mushrooms",
    "cilantro",
    "spicy food",
    "red meat",
]
ITEMS = [
    "oat milk",
    "coffee beans",
    "batteries",
    "a birthday card",
    "dish soap",
    "tomatoes",
    "printer paper",
    "cat food",
    "sunscreen",
    "rice",
    "olive oil",
    "a phone charger",
]
PROJECTS = [
    "Q3 report",
    "website redesign",
    "migration to Postgres",
    "grant proposal",
    "onboarding docs",
    "mobile release",
    "budget review",
    "customer survey",
    "data pipeline",
    "kitchen renovation",
]
TOOLS = ["Excel", "Google Sheets", "git", "Figma", "Notion", "VS Code", "Lightroom", "Jira", "Slack"]
TASKS = [
    "merge two columns",
    "undo the last commit",
    "export a PDF",
    "share a folder",
    "set up a recurring reminder",
    "change the default font",
    "make a pivot table",
    "mute a channel",
]
PREFS = [
    "window seats",
    "early mornings",
    "tea",
    "coffee",
    "trains",
    "short emails",
    "dark mode",
    "aisle seats",
    "remote work",
    "quiet hotels",
    "spicy food",
    "paper books",
]
PETS = ["cat", "dog", "rabbit", "parrot", "hamster", "two cats", "old dog", "puppy"]
WEATHER = ["sunny", "rainy", "windy", "cloudy", "stormy", "mild", "hot", "freezing"]
CHORES = [
    "call the landlord",
    "renew my passport",
    "pay the electricity bill",
    "water the plants",
    "book the car service",
    "send the invoice",
    "back up my laptop",
    "return the library books",
]
TIMES = ["8:30", "9:00", "10:15", "11:45", "12:30", "14:00", "15:30", "17:00", "18:45", "20:00"]

USER = [
    "Can you remind me what time my {appt} with {name} is on {day}?",
    "I moved to {city} {when}, still getting used to it.",
    "My {rel} {name} is visiting next {day}, any ideas for dinner in {city}?",
    "I've been doing {act} about {n} times a week since {when}.",
    "Please add {item} to my shopping list.",
    "What was the name of {place} we talked about {when}?",
    "I'm allergic to {food}, so keep that in mind for recipes.",
    "Book a table for {k} at {time} on {day} please.",
    "My flight to {city} got delayed by {n} hours 😩",
    "Work is crazy this week, the {project} deadline moved to {day}.",
    "Ok thanks",
    "lol yes exactly",
    "sounds good 👍",
    "Can you summarise the last email from {name} about the {project}?",
    "I prefer {pref} over {pref2} these days.",
    "how do I {task} in {tool}?",
    "Remind me to {chore} on {day}.",
    "My {pet} has been sick since {when}, the vet is on {day}.",
    "Did I tell you {name} got the job at the {project} team?",
    "I want to get better at {act}, any tips for a beginner?",
    "We're thinking of spending a week in {city} in {month}.",
    "Can you find that recipe without {food} I liked {when}?",
    "What's the weather going to be like in {city} on {day}?",
    "Note: my {rel}'s birthday is on the {d}th of {month}.",
    "I stopped drinking {pref2}, it was messing with my sleep.",
]
ASSISTANT = [
    "Sure — your {appt} with {name} is on {day} at {time}.",
    "I've added {item} to your shopping list.",
    "Here are a few options in {city}: {place}, {place2} and a small place near the old town.",
    "Based on what you told me {when}, you prefer {pref} over {pref2}.",
    "That sounds like a lot; would it help to block {n} hours on {day} for the {project}?",
    "Noted: you're allergic to {food}, so I'll leave it out of every suggestion.",
    "To {task} in {tool}, open the menu, pick the option with that name and confirm.",
    "The forecast for {city} on {day} is {weather}, around {temp} degrees.",
    "I couldn't find anything about the {project} in your notes from {when}.",
    "Do you want me to set a reminder for {time} on {day}?",
    "Congratulations to {name}! Should I note the start date somewhere?",
    "For a beginner in {act}, consistency beats intensity: start with {n} short sessions a week.",
    "I'm sorry to hear about your {pet}; I'll remind you about the vet on {day} at {time}.",
    "{city} in {month} is usually {weather}; pack layers and book the hotel early.",
    "Here is the summary: {name} wants the {project} reviewed by {day} and asks about the budget.",
    "Got it, I'll remind you to {chore} on {day} at {time}.",
    "Your {rel} {name} mentioned {city} last time, maybe {place} would work for dinner.",
    "I found it — the recipe you liked {when} uses chickpeas instead of {food}.",
]
MONTHS = ["January", "March", "April", "May", "June", "July", "September", "October", "December"]


def _fill(rng: random.Random, template: str) -> str:
    pref, pref2 = rng.sample(PREFS, 2)
    place, place2 = rng.sample(PLACES, 2)
    return template.format(
        appt=rng.choice(APPTS),
        name=rng.choice(NAMES),
        day=rng.choice(DAYS),
        city=rng.choice(CITIES),
        when=rng.choice(WHEN),
        rel=rng.choice(RELATIVES),
        act=rng.choice(ACTIVITIES),
        n=rng.randint(2, 6),
        k=rng.randint(2, 8),
        item=rng.choice(ITEMS),
        place=place,
        place2=place2,
        food=rng.choice(FOODS),
        time=rng.choice(TIMES),
        project=rng.choice(PROJECTS),
        pref=pref,
        pref2=pref2,
        task=rng.choice(TASKS),
        tool=rng.choice(TOOLS),
        chore=rng.choice(CHORES),
        pet=rng.choice(PETS),
        month=rng.choice(MONTHS),
        d=rng.randint(4, 28),
        weather=rng.choice(WEATHER),
        temp=rng.randint(-5, 34),
    )


def _tool_output(rng: random.Random) -> tuple[str, str]:
    kind = rng.choice(["weather", "calendar", "search"])
    payload: dict[str, Any]
    if kind == "weather":
        payload = {
            "city": rng.choice(CITIES),
            "day": rng.choice(DAYS),
            "conditions": rng.choice(WEATHER),
            "temp_c": rng.randint(-5, 34),
            "wind_kmh": rng.randint(0, 60),
        }
    elif kind == "calendar":
        payload = {
            "events": [
                {"title": rng.choice(APPTS), "day": rng.choice(DAYS), "time": rng.choice(TIMES)}
                for _ in range(rng.randint(1, 4))
            ]
        }
    else:
        payload = {
            "query": f"{rng.choice(PLACES)} {rng.choice(CITIES)}",
            "results": [rng.choice(PLACES) for _ in range(rng.randint(1, 5))],
        }
    return kind, json.dumps(payload, ensure_ascii=False)


def _compose(rng: random.Random, templates: list[str], low: int, high: int) -> str:
    want = rng.randint(low, high)
    text = _fill(rng, rng.choice(templates))
    while len(text) < want:
        text = f"{text} {_fill(rng, rng.choice(templates))}"
    if len(text) > high:
        cut = text.rfind(" ", 20, high)
        text = text[: cut if cut > 0 else high]
    return text


def chat_message(rng: random.Random, turn: int) -> dict[str, Any]:
    """One message of a conversation: role, content (20-400 chars), sometimes name and metadata."""
    msg: dict[str, Any]
    if rng.random() < 0.06:
        kind, out = _tool_output(rng)
        msg = {"role": "tool", "name": kind, "content": out[:400]}
    elif turn % 2 == 0:
        msg = {"role": "user", "content": _compose(rng, USER, 20, 220)}
    else:
        msg = {"role": "assistant", "content": _compose(rng, ASSISTANT, 60, 400)}
    msg["metadata"] = {"channel": rng.choice(["web", "mobile", "slack"]), "turn": turn}
    return msg


def chat_messages(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [chat_message(rng, i) for i in range(n)]


QUERIES = [
    "when is my {appt}",
    "what did I say about moving to {city}",
    "restaurants for dinner in {city}",
    "which foods am I allergic to",
    "how often do I do {act}",
    "what's on my shopping list",
    "flight delayed to {city}",
    "deadline for the {project}",
    "how do I {task} in {tool}",
    "do I prefer {pref} or {pref2}",
    "my {pet} vet appointment",
    "{rel} visiting next week",
    "birthday of my {rel}",
    "weather in {city}",
    "reminder to {chore}",
    "who got the job on the {project} team",
    "recipe without {food}",
    "trip to {city} in {month}",
]


def query_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [_fill(rng, rng.choice(QUERIES)) for _ in range(n)]
