"""A trip planned over two steps of 20 turns each (written for these tests): the cases of issue 12
(compression, a later statement overriding an earlier one, constraints that must survive, and a
second step that folds the first step's summary in)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.ai.summarizer import Turn

START = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)

STEP_1 = [
    ("user", "Hi! Can you help me plan a trip to Japan?"),
    (
        "assistant",
        "Of course, I would love to help you plan your trip to Japan! When are you going, and for how long?",
    ),
    ("user", "We fly out on April 10 and the trip is 12 days long."),
    (
        "assistant",
        "Great, twelve days is a good length for a first visit to Japan. Who is travelling with you?",
    ),
    ("user", "My partner Sam is coming with me. Sam has a severe shellfish allergy."),
    (
        "assistant",
        "Thanks for telling me, I will keep the shellfish allergy in mind when I suggest restaurants.",
    ),
    ("user", "Our budget is about $4,000 for the two of us, flights excluded."),
    (
        "assistant",
        "That works well for two weeks. Tokyo, Kyoto and Osaka are the classic route for a first trip.",
    ),
    ("user", "Maybe Osaka too, I'm not sure yet."),
    ("assistant", "Osaka is great for street food, and it is only fifteen minutes from Kyoto by train."),
    ("user", "We land in Tokyo and want four nights there first."),
    ("assistant", "Four nights in Tokyo is a good start, and then you can take the shinkansen to Kyoto."),
    ("user", "Then five nights in Kyoto, staying near Gion."),
    ("assistant", "That sounds lovely, Gion is beautiful in the evening."),
    ("user", "Actually, let's skip Osaka, we'd rather do a day trip to Nara from Kyoto."),
    ("assistant", "Good idea, Nara is an easy day trip from Kyoto and the deer park is wonderful."),
    ("user", "Do we need visas? We both have US passports."),
    ("assistant", "No, US passport holders need no visa for tourist stays of up to 90 days in Japan."),
    ("user", "Ok thanks!"),
    ("assistant", "You're welcome, enjoy the planning!"),
]

STEP_2 = [
    ("user", "Hello again!"),
    ("assistant", "Welcome back! How is the planning going?"),
    ("user", "What should we pack for April?"),
    ("assistant", "Pack layers and a light rain jacket: April is mild, around 15 degrees."),
    ("user", "Got it, layers and a rain jacket."),
    ("assistant", "Comfortable walking shoes too."),
    ("user", "We booked the Hotel Gracery in Shinjuku for the Tokyo nights."),
    ("assistant", "Nice choice, it's close to the station."),
    ("user", "Sam wants to see a sumo practice in Tokyo."),
    ("assistant", "Morning practice at a stable can be booked through a tour."),
    ("user", "Cool."),
    ("assistant", "Anything else?"),
    ("user", "Should we get a JR Pass?"),
    ("assistant", "For Tokyo to Kyoto and back a JR Pass barely pays off; buy single tickets."),
    ("user", "Ok, single tickets then."),
    ("assistant", "Great."),
    ("user", "The last two nights we'll be back in Tokyo near Haneda for the flight home on April 22."),
    ("assistant", "Noted, two nights near Haneda before the flight on April 22."),
    ("user", "Thanks, that's all for now."),
    ("assistant", "Have a wonderful trip!"),
]


def as_turns(items: list[tuple[str, str]], *, first_seq: int = 1, day: int = 0) -> list[Turn]:
    at = START + timedelta(days=day)
    return [
        Turn(first_seq + i, role, None, text, at + timedelta(minutes=i))
        for i, (role, text) in enumerate(items)
    ]
