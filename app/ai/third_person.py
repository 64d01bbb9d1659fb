"""A speaker's first-person sentence restated in the third person, about them by name.

"I went to a chess club yesterday and it made me feel welcome" said by Priya reads, out of
its conversation, as "Priya went to a chess club yesterday and it made Priya feel
welcome". Summaries and facts outlive the chat they come from: a reader (an agent, a person, the
embedding model) should not have to know who "I" was, and "you" said to the other person of a
two-party talk is them ("Your quilt is lovely" -> "Sam's quilt is lovely").

Word by word, in one pass (linear in the sentence): "I" / "me" become the name, "my" / "mine" the
name's, "myself" "themself"; a verb right after a replaced subject (past a few adverbs) agrees with
it ("I am" -> "is", "I have" -> "has", "I love" -> "loves", "I don't" -> "doesn't"); past forms
and modals stay. "we" / "our" stay: who "we" were is not said. English only; a sentence with no
first-person word is returned unchanged, and `restate` says whether it changed anything.
"""

from __future__ import annotations

import re


def word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# A word (letters, digits, inner apostrophes) or any other single character: the text is rebuilt
# from these pieces, so everything that is not a word stays as it was.
_PIECE = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*+|[\s\S]")

_ADVERBS = word_set(
    "just really also always never still finally recently actually usually often sometimes totally "
    "definitely absolutely truly honestly already even only simply mostly rarely currently now "
    "personally seriously literally kinda sorta again too"
)
# A word after a subject that is not its verb ("I, too, ...", "I and my friend ...").
_LY_VERBS = word_set("apply reply rely supply fly multiply imply comply ally bully rally tally")
_NOT_VERBS = word_set(
    "and or but too as of to in on at for with from that who which than if so all both guys two three "
    "here there"
)
_MODALS = word_set("can could will would shall should may might must ought")
# Irregular past forms (and forms that are the same in past and present: left as they are).
_PAST = word_set(
    "went saw got made took had was were did said felt found thought knew gave came ran bought brought "
    "began met left kept lost won heard held told sat stood spent sent built taught caught fought wrote "
    "drove rode ate drank swam sang flew grew drew threw wore chose spoke broke woke forgot became "
    "understood paid laid led fed meant slept dealt learnt burnt dreamt hit cut let set shut quit put "
    "read cost hurt beat bet spread upset forgave overcame gotten been done seen taken given known "
    "shown grown begun swum sung flown thrown worn chosen spoken broken woken forgotten hid bit "
    "stuck struck hung dug lit shot slid spun won't can't couldn't wouldn't shouldn't didn't wasn't "
    "weren't hadn't mustn't mightn't"
)
_THIRD = {
    "am": "is",
    "'m": "is",
    "have": "has",
    "do": "does",
    "go": "goes",
    "don't": "doesn't",
    "haven't": "hasn't",
    "aren't": "isn't",
    "ain't": "isn't",
    "are": "is",
    "were": "was",
    "gonna": "is going to",
    "wanna": "wants to",
    "gotta": "has to",
}
_CONTRACTED = {"m": "is", "ve": "has", "ll": "will", "d": "would", "re": "is"}
_CONSONANT_Y = re.compile(r"[^aeiou]y$")


def third_person_verb(verb: str) -> str:
    """The verb as it follows "she" rather than "I" ("love" -> "loves", "am" -> "is")."""
    low = verb.lower()
    if low in _THIRD:
        return _match_case(_THIRD[low], verb)
    if low in _MODALS or low in _PAST or (low.endswith("ed") and not low.endswith("eed")):
        return verb
    if not low.isalpha() or low.endswith("ing"):
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if _CONSONANT_Y.search(low):
        return verb[:-1] + "ies"
    return verb + "s"


def _match_case(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def restate(sentence: str, speaker: str, *, listener: str | None = None, me: bool = True) -> tuple[str, bool]:
    """`sentence` said by `speaker` (to `listener`, when the talk has exactly one other person)
    with its first-person words (unless not `me`: an unnamed assistant's "I" stays) and, given a
    listener, its second-person ones about them by name; and whether anything changed."""
    pieces = _PIECE.findall(sentence)
    out: list[str] = []
    agree = False  # the next verb follows a replaced singular subject
    changed = False
    for n, piece in enumerate(pieces):
        low = piece.lower().replace("\u2019", "'")
        word = piece[:1].isalnum()
        if not word:
            out.append(piece)
            continue
        who = _person(low, speaker if me else None, listener)
        if who is not None and pieces[n + 1 : n + 2] != ["-"]:  # not "me-time"
            changed = True
            head, _, tail = low.partition("'")
            if head in ("i", "im", "you") and (tail or low == "im"):
                # "I'm" / "you've": the name and the contracted verb, agreed.
                verb = "is" if low == "im" else _CONTRACTED.get(tail, tail)
                if tail == "d" and _next_word(pieces, n) in ("been", "already", "never", "just"):
                    verb = "had"
                out.append(f"{who} {verb}")
                agree = False
            elif head == "i" or (head == "you" and _opens_clause(pieces, n)):
                out.append(who)
                agree = True
            else:
                out.append(who if low not in ("my", "your") else f"{who}'s")
                agree = False
            continue
        if agree:
            if low in _ADVERBS or (low.endswith("ly") and len(low) > 4 and low not in _LY_VERBS):
                out.append(piece)
                continue
            agree = False
            if low not in _NOT_VERBS:
                piece = third_person_verb(piece)
        out.append(piece)
    text = "".join(out)
    return (text[:1].upper() + text[1:], True) if changed else (sentence, False)


_CLAUSE_OPENERS = word_set("and but so because if when that since as while although though")


def _opens_clause(pieces: list[str], n: int) -> bool:
    """Whether the word at `n` opens its clause (so "you" there is a subject, not an object)."""
    for p in reversed(pieces[max(0, n - 6) : n]):
        if p[:1].isalnum():
            return p.lower() in _CLAUSE_OPENERS
        if p in ",.;:!?-(\n":
            return True
    return True


def _next_word(pieces: list[str], n: int) -> str:
    for p in pieces[n + 1 : n + 6]:
        if p[:1].isalnum():
            return p.lower()
    return ""


def _person(low: str, speaker: str | None, listener: str | None) -> str | None:
    """Who a pronoun names ("my" -> the speaker; "mine" -> "<speaker>'s"), or None."""
    head = low.partition("'")[0]
    if speaker is None:
        return _second_person(low, head, listener)
    if head in ("i", "im") or low == "me" or low == "my":
        return speaker
    if low == "mine":
        return f"{speaker}'s"
    if low == "myself":
        return "themself"
    return _second_person(low, head, listener)


def _second_person(low: str, head: str, listener: str | None) -> str | None:
    if listener is None:
        return None
    if head == "you" or low == "your":
        return listener
    if low == "yours":
        return f"{listener}'s"
    if low == "yourself":
        return "themself"
    return None


_PLURAL = re.compile(r"\b(?:we|us|our|ours|ourselves|let's|lets)\b|\bwe['\u2019]", re.IGNORECASE)


def stands_alone(text: str, speaker: str) -> bool:
    """Whether a restated sentence says who it is about without its speaker's label: it names the
    speaker and has no "we" (whose members only the label tells)."""
    return speaker in text and _PLURAL.search(text) is None
