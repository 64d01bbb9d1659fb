"""The `local` fact extractor: rules and patterns over the user's own words. Deterministic, no model.

Precise rather than broad. Only user turns are sources; only English first-person statements
match; a clause that asks, supposes, hedges, quotes someone or jokes yields nothing. A message is
read up to its first MAX_CHARS characters, so any input, in any language or script, costs little
and never raises. Proper nouns (places, names, employers) need their capitals; where the writer
uses none beyond "I" ("i live in porto"), only a built-in list of countries, major cities and
well-known employers is taken.

What it claims, kind by kind (precision is measured on these): the phrasing -> the content
[subject, * = exclusive]. "I'm" stands for I'm / I am / Im; "we" counts for homes, moves, pets,
children, marriages, plans and events.

identity: "My name is Sarah", "call me Sarah", "I go by Sam", "Hi, I'm Sarah (, 34, living in
  Lisbon)", "Sarah here!" -> "Is named Sarah." [name*] | "I'm 34 (years old)", "I turned 35
  (yesterday)", "As a 34 year old I ...", "Guess who's 35 today, me!" -> "Is 34 years old."
  [age*] | "My birthday is (on) March 3 / next Friday" -> "Has a birthday on March 3."
  [birthday*] | "I was born on 3 March 1990 / in March 1990 / in 1990" -> "Was born on
  1990-03-03." [birthday*] / "Was born in 1990." [birth_year*] | "I'm Italian", "I'm a Brazilian
  citizen", "I have a Portuguese passport" -> "Is Italian." [nationality:italian] | "I speak
  Spanish (and French)", "I'm fluent in X", "I grew up speaking X" -> "Speaks Spanish."
  [language:spanish]; "I'm a native X
  speaker", "my native language is X", "X is my native language" ->
  "Is a native X speaker." (never "a little / some X")
location: "I live in Lisbon", "I'm living / based in X", "I've lived in X for 5 years", "I live in a
  flat in Camden", "I call X home" -> "Lives in Lisbon." [home*] | "I (just) moved / relocated to
  Porto (last month)", "Since moving to Porto I ...", "we settled into our new flat in Porto",
  "Porto is (my) home now" (a known city, or a move in the sentence: not "Tom is home now") ->
  "Lives in Porto." [home*] | "I'm (originally) from X", "I come from X" ->
  "Is from X." [origin*] | "I grew up in X", "I was raised in X" -> "Grew up in X." [grew_up*] |
  "I was born in Lisbon" -> "Was born in Lisbon." [birthplace*]
occupation: "I work as a nurse", "I'm a nurse" (the last word a known job, no opinion word: not "a
  good cook"), "I'm a designer at Google", "I'm the CEO of Acme" -> "Works as a nurse." [job_title*]
  (+ "Works at Google." [employer*]) | "I work at / for Google", "I'm working at X", "I've been
  working at X for 3 years", "I('ve) started working at X", "I've been at Google for 3 years" (a
  well-known employer: not "I've been with Tom for years"), "I (just) started / got a new job (as a
  designer) at Initech", "my (new) job at Initech ...", "I joined Initech" and "I'm at Initech
  now" (a well-known employer or a job word in the sentence: not "I joined a gym", "I'm at
  Starbucks now") -> "Works at Initech." [employer*]; "I've been a nurse for 5 years" -> "Works as
  a nurse." [job_title*]; "I work for myself", "I'm
  self-employed" -> "Is self-employed." [employer*] | "I'm retired / unemployed / a retired
  teacher / a stay-at-home dad", "I (just) retired" -> "Is retired." [job_title*] | "I work in
  marketing" (known fields) -> "Works in marketing." [industry*] | "I study law (at Oxford)", "I'm
  studying X", "I'm a law / PhD student (at X)", "I'm doing a PhD in X" -> "Studies law." / "Is a
  PhD student." / "Is doing a PhD in X." [studies*], "Studies at Oxford." [school*] | "I graduated
  from X" -> "Graduated from X." [alma_mater:x]
relationship: "my sister Maria", "my sister, Maria,", "my sister's name is Maria", "my dog is
  called Rex", "Maria is my sister", "Maria, my sister, ...", "Rex (my beagle)", "I have a sister
  named Maria", "I've got two kids, Sam and Leo", "we adopted a kitten called Mochi" -> "Has a
  sister named Maria." [sibling:maria] (also
  parent:, child:, grandparent:, grandchild:, family: (aunts, cousins, in-laws), friend:,
  pet:rex "Has a dog named Rex."; partners -> "Has a wife named Anna." [partner*]). A named relative
  is read in any clause, even a question: "my sister Maria lives in Rome" gives only that, never a
  home. | "I have a sister / two kids / a dog", "I'm a mom of two" -> "Has a sister." / "Has two
  kids." [has:sister* / has:child* / has:dog*] | "I'm married to Anna", "I got engaged to Tom",
  "I'm dating Sam", "I married Anna" -> "Is married to Anna." [partner*] | "I'm married / single /
  engaged / divorced / in a relationship", "we got married (last June)" -> "Is married."
  [relationship_status*]
preference: "I'm vegetarian / vegan / pescatarian", "I went vegan", "I've been vegetarian for
  years", "As a vegan, I / what can I ..." -> "Is vegan." [diet*]; "I'm on a keto diet" ->
  "Follows a keto diet." [diet*]; "I keep kosher" [observes:kosher]; "I don't eat pork", "I never
  drink alcohol" -> "Does not eat pork."
  [avoids:pork] | "I like / love / enjoy / adore jazz (and blues)", "I love to cook", "I'm a big fan
  of X", "I'm into X", "I'm a huge jazz fan" -> "Likes jazz." [likes:jazz]; an activity (a gerund
  of a habit verb, a game, an instrument, a sport: "I love playing the guitar", "I love hiking")
  takes the activity's subject -> "Likes playing the guitar." [activity:guitar]; "I
  prefer tea (to coffee)" -> "Prefers tea." [likes:tea] | "I hate / dislike / can't stand X", "I
  don't like X", "I'm not a fan of X" -> "Dislikes X." [dislikes:x] | "My favourite colour is
  blue", "Sushi is my favourite food" -> "Favourite colour is blue." [favorite:color*] | "I play
  tennis / the piano", "I run every morning", "I go to the gym three times a week", "I do yoga on
  Sundays", "I usually cook dinner", "I do some gardening twice a week", "I've been cycling for
  years", "I'm a smoker" -> "Plays tennis." / "Runs every morning."
  [activity:tennis / activity:running]: liking an activity and doing it share the subject, so
  that its ending ends both
other (health): "I'm allergic to peanuts (and shellfish)", "I have a peanut allergy" -> "Is
  allergic to peanuts." [allergy:peanut] | "I'm lactose intolerant" [intolerance:lactose] | "I
  have asthma", "I'm diabetic" (known conditions) -> "Has asthma." [condition:asthma] | "my pollen
  allergy ..." -> "Is allergic to pollen." [allergy:pollen]
plan (valid from the message; dates absolute: "on 2026-12-03", "in the week of ...", "on the
  weekend of ...", "in December 2026", "in 2027"): "I'm planning to / I plan to / I've decided to /
  my plan is to <verb> ..." -> "Plans to learn Spanish." [plan:learn spanish] | "I'm going to /
  gonna / I'll / I want to <verb> ...", "I'm flying to Tokyo next Friday", "I'm moving to Berlin"
  when the verb and its object make a plan (visit a place or family, travel / fly / move to a
  place, learn, buy a house or car, adopt a pet, run a race, start a job or course, open a
  business, ...; some only with a date: "have surgery next week", "take a trip in May") -> "Plans to
  fly to Tokyo on 2026-11-27." [plan:tokyo: a plan to go somewhere or see someone is keyed by the
  proper noun in it, else by its verb phrase: plan:learn spanish] | "I'm planning a trip to Japan
  in April" -> "Plans a trip to Japan in April 2027." [plan:japan] | "I have a dentist appointment
  tomorrow", "my exam is on Monday" (with a date) -> "Has a dentist appointment on 2026-11-21."
  [plan:dentist appointment]
event (with a stated past date only, valid from that day): "I ran a marathon last Sunday", "we
  bought a house last month", "I got promoted yesterday", "I graduated in May", "I broke my leg",
  "I had a baby", "I passed my driving test", "I visited Rome", "I went to Tokyo", ... (each verb
  with the objects that make a life event: not "I had pizza", "I ran out of milk") -> "Ran a
  marathon on 2026-11-15." [event:ran marathon]

Endings: negated=True, the content in the positive form of what stopped, the subject the positive
statement would have. Plain "not" / "don't" ends something only with "any more" after it.
  "I no longer / don't ... anymore / used to live in X", "I moved out of / away from X" -> "Lives
  in X." [home] | "I no longer work at X", "I quit / left my job at X", "I quit X", "I got laid
  off / fired from X", "I retired from X", "I used to work for X" -> "Works at X." [employer] |
  "I'm no longer a nurse", "I used to be a nurse", "I'm a former nurse", "I quit my job as a
  nurse" -> "Works as a nurse." [job_title] | "I'm not vegetarian anymore", "I stopped being /
  used to be vegan" -> "Is vegetarian." [diet] | "I don't eat meat any more", "I gave up meat",
  "I stopped eating X", "I stopped drinking" -> "Eats meat." [eats:meat] / "Drinks alcohol."
  [drinks:alcohol] | "I don't like jazz anymore", "I no longer enjoy X", "I used to love X", "I
  stopped liking X", "I'm not into X anymore" -> "Likes jazz." [likes:jazz]; "I no longer hate
  X" -> "Dislikes X." | "I stopped playing tennis", "I quit smoking", "I don't run anymore", "I
  used to play X", "I gave up / quit / dropped tennis", "I'm done with tennis" (not "for today")
  -> "Plays tennis." [activity:tennis], which ends liking it too | "I broke up with my
  girlfriend", "my boyfriend and I split up" -> "Has a girlfriend." [partner]; "Freya and I broke
  up / separated", "me and Freya aren't together anymore", "we broke up" -> "Has a partner named
  Freya." [partner] | "I (had to) cancel(led) Iceland / our trip to Iceland", "we're not going to
  Hanoi anymore", "the Athens trip / the Muse concert is cancelled / off" -> "Plans to go to
  Athens." [plan:athens] | "I left Spotify" (a well-known employer) -> "Works at Spotify."
  [employer] ("I left SAP and joined Maersk" is the new value alone, which supersedes the old) |
  "I'm vegetarian / vegan", "I don't eat meat anymore", "I gave up meat" also end a liked meat dish
  -> "Likes steak." [likes:steak], only for the subjects the user has (`known_subjects`) or stated
  in the same turns | "I'm not married anymore" ->
  "Is married." [relationship_status] | "my dog Rex died / passed away" -> "Has a dog named Rex."
  [pet:rex] | "I'm no longer allergic to X" -> "Is allergic to X." [allergy:x]
A new value in an exclusive slot ("I moved to Porto", "I started a new job at Initech") is a plain
candidate; "I moved from Berlin to Porto" is both the ending and the new value.

Chat drops the "I" before a few verbs only the writer can mean; it is read back at the start of a
sentence: "Had to cancel X", "Just turned 35", "Heading / flying to X on May 16", "Finally settled
into our new flat in X", "Moved to X last year", "Got a new tattoo on May 3", "Booked a trip to X",
"Starting a pottery class on June 9", "Born and raised in X", "(Not a) big fan of X", "Been
listening to a lot of X" ("I've been listening to a lot of jazz" -> "Likes jazz.").

Also read as the statement they stand for: "<name / job / diet / fan> here" ("Lena here, 36, based
in Chicago", "Pescatarian here", "nurse here", "huge jazz fan here") -> "I'm Lena / a pescatarian /
a nurse / a huge jazz fan"; "As a nurse, I ..." -> "Works as a nurse."; a bare "yep, a rabbit
called Biscuit" -> "I have a rabbit called Biscuit"; "I listen to X all day / a lot", "I could eat
X every day" -> "Likes X."; "X (just) isn't for me / my thing" (a bare noun or gerund) -> "Dislikes
X."; "I booked a trip / flights to Peru in April" -> "Plans a trip to Peru in April 2027."
[plan:peru]. A courtesy ("..., if that helps (for the recommendation)") is no condition, and a
smiley ends a sentence. "ive" is read as "I've".

Said in passing, without "I" or of one's life around it (issue 12, round 6): "X is home for me",
"the rent here in X is ...", "Here in X it's been raining" (no trip, visit or weekend in it), "I'm
in X" with nothing after the place -> "Lives in X." | "Long / busy / first week at X", "Things at X
are hectic, we have a big launch at work" (the sentence speaks of work) -> "Works at X." | "Being a
nurse is exhausting" -> "Works as a nurse." | "I got an offer from X and took it", "I accepted an
offer from X" -> "Works at X." | "I'm seeing someone (new), Julia" / "her name is Julia" -> "Is
dating Julia." [partner] | "It was my birthday this week, 33 now" -> "Is 33 years old." | "Hiking
is my favourite way to unwind", "ribs are my weakness / guilty pleasure" -> "Likes hiking." | "Got
back from hiking, I try to go every Sunday" (how often, said) -> "Hikes." | "Got tickets for Bjork
in May", "Arctic Monkeys concert in April", "I'm going to see Bjork live in May" -> "Plans to see
Bjork ..." [plan:bjork] | "I signed up for a welding course, the first session is on May 3" (dated)
-> "Plans to take a welding course on ..." | "Steak is my favourite food" is a liking of steak
[likes:steak], which going vegetarian ends. Endings: "I handed in my notice at X" -> "Works at X."
[employer]; "I'm not doing the pottery class after all", "I dropped out of the course" -> "Plans to
take a pottery class." [plan:pottery class], which ends every plan whose key has those words.
Not read: "my job at X" after "lost / quit / left / since", a liking of "my" something ("I love
running my own bakery") or of "the / that / your" one thing (a reaction to what was just shown:
"I love the colors"; the beach, the mountains, the piano and the like excepted). Since session 9:
"the" reaches over the whole list ("I love the tall pines and blue lake" gives nothing); a list
ends at a clause ("I love blues records, they're a real comfort") and after an item with a
preposition ("podcasts about cooking and travel" -> "podcasts about
cooking"); a name ends at its possessive ("my daughter Sara's birthday" -> "Sara"); and a
named speaker's name is known, so another read as theirs ("Looky here, ...", an interjection)
is dropped. Since session 10 a named speaker's slot fact names whose where the rules wrote the
speaker's "my" as "their" ("my goal is to improve my running pace" -> "Plans to improve Theo's
running pace.").

A bare answer to the assistant's last question counts as the statement it stands for: "Are you
vegetarian / married ...?" + "yes"; "Where do you live / are you from?" (a short courtesy may
follow: ", if you don't mind me asking?") + "Lisbon" / "Boston, for about 6 years now" / a listed
place in lower case; "What's your name?" + "Sam"; "How old are you?" + "42"; "What do you do for a
living / for work?" + "accountant at IKEA" -> "I'm an accountant at IKEA.".

Deliberately skipped: questions (a "?" or a leading question word; a statement before a closing
question is kept: "I'm vegetarian, any ideas?"); conditionals, wishes and hedges ("if", "would",
"I wish", "maybe", "I think", "when I'm stressed"); reported speech and quotes ("she said I ...",
"my doctor told me I'm ..."); sarcasm and jokes ("/s", "yeah right", "jk", an eye-roll, a "Not."
after it, "I just LOVE waiting"); other people ("my sister lives in Rome", "my wife is vegan");
plain negatives that end nothing ("I'm not vegetarian", "I don't speak French", "I don't work at
Google"); vague or conversational objects ("I like it", "I love that idea", "I like the second
one", "I'll try that"); small talk ("I'm fine", "I'm here", "I'm going to bed"); everyday plans
("I'm cooking dinner tonight", "I'll call my mom tomorrow"); past events without a date ("I ran a
marathon"); "I quit my job" with no employer named; other languages.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime, time

import structlog

from app.ai.fact_extractor import FactCandidate, FactKind, TurnRef, speaker_of
from app.ai.fact_rules import RULES, Draft, Rule, Sentence, title_case
from app.ai.fact_rules.experiences import experience
from app.ai.fact_rules.phrases import article, singular
from app.ai.fact_rules.relationships import PET_ALT
from app.ai.fact_rules.words import DIETS, JOB_NOUNS, word_set
from app.ai.local_summarizer import sentence_spans
from app.ai.offload import Offload, in_thread

_log = structlog.get_logger("engram.facts")

MAX_CHARS = 4000  # read per message: facts about the user come early, and the work stays bounded
MAX_SENTENCES = 64
MAX_SENTENCE_CHARS = 400  # a longer "sentence" (a run-on paste) is read up to a clause break before this

_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069"
    "\ufeff\ufff9-\ufffb\ud800-\udfff]"
)
_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u02bc": "'",
        "\u00b4": "'",
        "`": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\t": " ",
    }
)
_TOKEN = re.compile(r"[a-z0-9%]+")
_LETTERS = re.compile(r"[^\W\d_]+")
_FIRST_PERSON = frozenset(("i", "im", "my", "me", "we"))  # every rule's trigger has one of these
# Chat drops the "I" before a few verbs that only the writer can mean ("Just turned 57", "Had to
# cancel Iceland", "Heading to New York on May 16"): the subject is put back, at the sentence's start.
_DROPPED_I = re.compile(
    r"^(?P<lead>\W*(?:(?:ok(?:ay)?|so|anyway|btw|oh|well|also|and|yeah|yep|yup|big\s+news|update|"
    r"fun\s+fact)\W+){0,3})"
    r"(?=(?:(?:just|finally|recently|sadly|also)\s+)?(?:(?P<be>heading\s+to|flying\s+to|off\s+to|starting|"
    r"(?:not\s+)?(?:a\s+)?(?:big|huge)?\s*fan\s+of)\s|turned\s+[0-9]|had\s+to\s+cancel\b|settled\s+in|"
    r"moved\s+(?:to|into|back)\s|got\s+(?:a|an|my|the)\s|booked\s|(?P<was>born\s+and\s+raised)\s|"
    r"(?P<have>been\s+listening\s+to)\s))",
    re.IGNORECASE,
)
# "Omar here!", "hey, Lena here, 36, based in Chicago", "Pescatarian here, so ...": an introduction
# without "I", restated as "I'm Omar" / "I'm a pescatarian", which the rules then check.
_HERE = re.compile(
    r"^(?P<lead>\W*(?:(?i:hi|hey|hello|hiya|ok(?:ay)?|so|btw|anyway|oh|and|also|yep|yeah|well)\W+){0,3})"
    r"(?P<x>[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*){0,3})\s+here\b(?=\s*(?:$|[!.,:;)]|(?i:tbh|lol|haha)\b))"
)
# "yep, a tabby cat called Toast": a bare answer about a pet.
_PET_ANSWER = re.compile(
    rf"^(?P<lead>\W*(?:(?i:yes|yep|yeah|yup|ok(?:ay)?|so|anyway|btw|fun\s+fact|oh|and)\W+){{0,3}})"
    rf"(?=(?i:an?|one|two|three)\s+(?:[\w-]+\s+){{0,2}}?(?i:{PET_ALT})s?\s*,?\s+(?i:called|named)\s+[\w'-]+"
    rf"\s*(?:$|[!.,:;)]|(?i:tbh|lol|haha)\b))"
)
# "..., if that helps": a courtesy, not a condition.
_COURTESY = re.compile(
    r",?\s*\bif\s+(?:that|it)\s+(?:helps|matters)(?:\s+for\s+(?:the|your|a)\s+\w+)?\b|,?\s*\bif\s+you\s+(?:need|want)\s+to\s+know\b",
    re.IGNORECASE,
)
# "ive been cycling for years": chat's "I've" without its apostrophe (no other word is spelt so).
_IVE = re.compile(r"\b[Ii]ve\b")
# Smileys read as the end of the sentence they close ("I'm Elias :)").
_SMILEY = re.compile(r"\s+(?:[:=]-?[)(D]|<3)+(?=\s|$)")
_NOT_HERE = word_set(
    "look looky lookie lookee see come over right hear out same me everyone everybody nobody someone all "
    "winter summer spring autumn fall snow rain sun sunny "
    "cold hot morning evening night noon midnight lunchtime dinner breakfast lunch it its it's that this "
    "there is was not no so still just you we they he she i nothing everything anyone"
)
# A trip or show called off needs no "I" to be the writer's: "The Athens trip is cancelled :(".
_CALLED_OFF = re.compile(
    r"^\W*(?:\w+\W+){0,3}?(?:the|our)\s+[^,.;!?]{1,40}?\b(?:trip|vacation|holiday|concert|gig|flight|show|"
    r"tour)\s+(?:is|was|got|has\s+been|'s)\s+(?:\w+\s+)?(?:cancel|called\s+off|off\b)",
    re.IGNORECASE,
)
# Chat also leaves out the "I" of a few openings only the writer's life fits: "Here in Oslo it's been
# raining all week", "The rent here in Lyon is insane", "Long week at Cisco", "Being a nurse is
# exhausting", "Arctic Monkeys concert in April, can't wait", "Got tickets for Bjork in May".
_IMPLIED_SELF = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:here\s+in\s|the\s+rent\s+here\s+in\s|"
    r"(?:long|busy|hard|rough|crazy|tough|hectic|first)\s+(?:week|day|shift|month)\s+at\s|being\s+an?\s|"
    r"(?:just\s+)?got\s+(?:tickets|back\s+from)\s)|"
    r"^\W*(?-i:[A-Z])[\w'&.-]*(?:\s+(?-i:[A-Z])[\w'&.-]*){0,3}\s+(?:concert|gig|show)\s+"
    r"(?:on|in|next|this|tomorrow)\b",
    re.IGNORECASE,
)

_ASKING = (
    r"(?:do|does|did|are|is|am|was|were|can|could|would|should|will|shall|may|might|have|has|had|what|"
    r"what's|whats|where|where's|when|why|who|who's|whom|whose|which|how|how's|isn't|aren't|don't|doesn't|"
    r"didn't|won't|wouldn't|shouldn't|couldn't|can't|haven't|hasn't|wasn't|weren't|wanna|any|anyone|anybody)"
)
_QUESTION_START = re.compile(rf"^\W*{_ASKING}\b", re.IGNORECASE)
_QUESTION_END = re.compile(r"\?[\W_]*$")
# "I'm vegetarian, any recipe ideas?": the statement before the question still counts.
_QUESTION_CLAUSE = re.compile(
    r"[,;:]\s+(?:what|what's|how|where|when|why|who|which|any|anything|thoughts|ideas|suggestions|tips|"
    r"recommendations|(?:can|could|would|will|do|should)\s+(?:you|u)|is\s+(?:it|there|that)|are\s+there)\b"
    r"[^,;:]*$",
    re.IGNORECASE,
)
_SARCASM = re.compile(
    r"(?:/s\b|\byeah,?\s+right\b|\bnot!|\b(?:jk|j/k|just\s+kidding|kidding|joking|sarcasm|sarcastic(?:ally)?|"
    r"lol\s+no)\b|\boh\s+(?:great|joy|wonderful|sure|yay|goody)\b|\bjust\s+what\s+i\s+needed\b|"
    "[\U0001f644\U0001f643\U0001f612\U0001f60f])",
    re.IGNORECASE,
)
_SARCASM_AFTER = re.compile(
    r"^\W*(?:not|jk|j/k|just\s+kidding|kidding|lol\s+jk|/s|sike|psych|yeah\s+right)\W*$", re.IGNORECASE
)
# Before a trigger anywhere in its sentence: the trigger is a hypothesis, a wish, a belief or
# someone else's words, not what the user states.
_NOT_STATED_BEFORE = re.compile(
    r"\b(?:if|unless|whether|suppose|supposing|imagine|imagining|pretend|pretending|hypothetically|"
    r"hypothetical|wish|wished|wishing|someday|one\s+day|some\s+day|maybe|perhaps|probably|possibly|might|"
    r"would|could|should|i'd|dream|dreaming|dreamed|dreamt|what\s+if|let'?s\s+say|in\s+theory|as\s+if|"
    r"in\s+case|assuming|when|whenever|think|thought|believe|believed|believes|guess|assume|hope|hoped|"
    r"hoping|expect|bet|said|says|say|told|tells|tell|asked|asks|ask|wrote|writes|claims|claimed|thinks|"
    r"knows|pretends|according|quote|quoted|mentioned|mentions|insists|insisted|joked|jokes|texted|"
    r"replied|heard|character|story|novel|roleplay|role-?play|role\s+play|fiction|fictional|not\s+sure|"
    r"no\s+idea|doubt|in\s+the\s+game|in\s+this\s+game)\b",
    re.IGNORECASE,
)
# The user quoting themselves ("as I said, ...") is still the user stating it.
_OWN_WORDS = re.compile(
    r"\b(?:as|like)\s+i\s+(?:said|mentioned|told\s+you|wrote)(?:\s+(?:before|earlier))?", re.IGNORECASE
)
# After a trigger, in its clause: what it states is hedged.
_NOT_STATED_AFTER = re.compile(
    r"\b(?:if|unless|as\s+long\s+as|provided|assuming|maybe|perhaps|probably|possibly|i\s+think|i\s+guess|"
    r"i\s+believe|i\s+suppose|i\s+assume|i\s+hope|hopefully|not\s+sure|or\s+not|kind\s+of|sort\s+of|kinda|"
    r"sorta|in\s+my\s+dreams|someday|one\s+day|fingers\s+crossed|god\s+willing|inshallah|we'?ll\s+see|"
    r"not\s+really|i\s+wish|in\s+the\s+game|in\s+my\s+story|or\s+something|supposedly|apparently)\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.;!?]|\bbut\b|\bso\b|\s[-\u2013\u2014]\s", re.IGNORECASE)
# What may open a clause before its trigger: greetings, fillers, connectives, time words.
_LEAD_INS = re.compile(
    r"(?:(?>(?:ok(?:ay)?|so|well|and|but|also|actually|oh|yes|yeah|yep|yup|no|nope|nah|hi|hey|hello|hiya|"
    r"greetings|btw|anyway|anyways|now|currently|honestly|fyi|plus|because|since|as|though|although|cause|"
    r"cuz|fun\s+fact|by\s+the\s+way|just\s+so\s+you\s+know|for\s+context|for\s+the\s+record|for\s+reference|"
    r"in\s+fact|fwiw|tbh|lol|haha|um+|uh+|hmm+|right|sure|personally|these\s+days|nowadays|lately|"
    r"recently|finally|today|tonight|yesterday|tomorrow|good\s+(?:morning|evening|afternoon)|thanks|"
    r"thank\s+you|cool|great|nice|awesome|alright|then|at\s+the\s+moment|at\s+this\s+point|"
    r"still|basically|of\s+course|obviously|there|everyone|all|guys|folks|again|first(?:ly)?|"
    r"second(?:ly)?|ngl|quick\s+update|update|big\s+news|good\s+news|sadly|unfortunately|luckily|"
    r"fortunately|happily|officially|meanwhile|otherwise|besides|in\s+any\s+case|just|(?:it\s+)?turns\s+out|"
    r"i\s+(?:just\s+)?(?:found\s+out|learned|learnt|realized|realised|discovered)(?:\s+that)?)\b)"
    r"[\s,.!:;-]*+)*+",
    re.IGNORECASE,
)
# "I live in Lisbon and work as a nurse": the second verb gets its subject back.
_ELLIPSIS = re.compile(
    r"(\b(?:i|i'm|im)\s+[^,.;!?]{1,60}?\s+and\s+)"
    r"(?=(?:also\s+)?(?:work|live|speak|study|play|like|love|enjoy|joined|"
    r"hate|have|teach)\s)",
    re.IGNORECASE,
)

# An assistant question and the bare answer that makes it a statement of the user's.
_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|i\s+am|correct|that'?s\s+right|indeed|sure\s+am)\b[\s.!,]*"
    r"(?:i\s+am[.!]?)?\s*$",
    re.IGNORECASE,
)
_ASKED = (
    (
        re.compile(
            r"\bare\s+you\s+(?:an?\s+)?(vegetarian|vegan|pescatarian|married|single|engaged|divorced)\s*\?",
            re.IGNORECASE,
        ),
        "yes",
        "I'm {}.",
    ),
    (
        # "..., if you don't mind me asking?": a short courtesy may follow the question.
        re.compile(
            r"\bwhere\s+(?:do\s+you\s+live|are\s+you\s+based)\b(?:\s*,[^,.;!?]{1,40})?\s*\?", re.IGNORECASE
        ),
        "place",
        "I live in {}.",
    ),
    (
        re.compile(
            r"\bwhat\s+do\s+you\s+do\s+(?:for\s+(?:a\s+living|work)|professionally)\b(?:\s*,[^,.;!?]{1,40})?\s*\?",
            re.IGNORECASE,
        ),
        "job",
        "I'm {}.",
    ),
    (re.compile(r"\bwhere\s+are\s+you\s+from\s*\?", re.IGNORECASE), "place", "I'm from {}."),
    (
        re.compile(
            r"\bwhat(?:'s|\s+is)\s+your\s+name\s*\?|\bwhat\s+should\s+i\s+call\s+you\s*\?", re.IGNORECASE
        ),
        "name",
        "My name is {}.",
    ),
    (re.compile(r"\bhow\s+old\s+are\s+you\s*\?", re.IGNORECASE), "age", "I'm {}."),
)
# A place answered in lower case ("brussels!"): the rules then take only a listed place.
_LOWER_PLACE = re.compile(r"^\W*([a-z]+(?:[\s-][a-z]+){0,2})\W*$")
_SHORT_ANSWER = {
    "place": re.compile(
        r"^\W*(?:(?i:in|i\s+live\s+in|i'm\s+from|from)\s+)?((?:[A-Z][^\W\d_'-]+[\s-]?){1,3}"
        r"(?:,\s*[A-Z][^\W\d_]+(?:\s[A-Z][^\W\d_]+)?)?)"
        # how long: "Boston, for about 6 years now"
        r"(?:,?\s*(?i:for\s+(?:about\s+|almost\s+|over\s+)?\w+\s+(?:years?|months?)(?:\s+now)?|since\s+\w+))?\W*$"
    ),
    # "accountant at IKEA", "I'm a nurse, at St Mary's": the title (with its article put back) and where.
    "job": re.compile(
        r"^\W*(?:(?i:i'm|im|i\s+am)\s+)?((?i:an?\s+)?[a-z][\w -]{1,40}?(?:,?\s+at\s+[^.!?]{1,40})?)\W*$"
    ),
    "name": re.compile(
        r"^\W*(?:(?:it's|its|i'm|im|call\s+me)\s+)?([A-Z][^\W\d_'-]+(?:\s[A-Z][^\W\d_'-]+)?)\W*$",
        re.IGNORECASE,
    ),
    "age": re.compile(r"^\W*(?:i'm\s+|im\s+)?([0-9]{1,3})(?:\s+years\s+old)?\W*$", re.IGNORECASE),
}


class LocalFactExtractor:
    name = "local/patterns"

    def __init__(self, *, offload: Offload = in_thread) -> None:
        self._offload = offload

    async def extract(
        self, *, turns: Sequence[TurnRef], known_subjects: Sequence[str]
    ) -> list[FactCandidate]:
        # Pure-Python regexes hold the GIL: the worker offloads them to its child processes (within
        # the item's time budget), so neither its event loop nor the API's (embedded mode) waits.
        return await self._offload(extract_facts, list(turns), list(known_subjects))

    async def aclose(self) -> None:
        """Nothing to release."""


def extract_facts(turns: Sequence[TurnRef], known_subjects: Sequence[str] = ()) -> list[FactCandidate]:
    """Candidate facts from the turns of every human speaker of `turns` (the user, and an
    `assistant` turn that carries a `name`: `speaker_of`), in seq order then position in the
    message; `context` turns are read for what later turns refer to, never as sources. The same
    statement repeated (nothing else said about its slot in between) is one candidate citing every
    message that said it. An inferred ending is kept only for a subject the speaker has
    (`known_subjects`, the subjects of the user's current facts) or that these turns stated.

    A pure function of its arguments (module-level, picklable), so it can run in a child process."""
    out: list[FactCandidate] = []
    last_in_slot: dict[tuple[str | None, str | None], int] = {}
    known: set[tuple[str | None, str | None]] = {(None, s) for s in known_subjects}
    previous: TurnRef | None = None
    said_last: dict[str | None, TurnRef] = {}  # each speaker's previous turn, for "I meant ..."
    for turn in sorted(turns, key=lambda t: t.seq):
        speaker = speaker_of(turn)
        if speaker != "" and not turn.context:
            for draft in _turn_drafts(turn, previous, said_last.get(speaker)):
                key = (speaker, draft.subject)
                if draft.if_known and key not in known:
                    continue
                if not draft.negated:
                    known.add(key)
                k = last_in_slot.get(key)
                if k is not None and (out[k].content, out[k].negated) == (draft.content, draft.negated):
                    if turn.message_id not in out[k].source_message_ids:
                        out[k] = replace(
                            out[k], source_message_ids=(*out[k].source_message_ids, turn.message_id)
                        )
                    continue
                last_in_slot[key] = len(out)
                out.append(_candidate(draft, turn, speaker))
        if speaker != "":
            said_last[speaker] = turn
        previous = turn
    return out


def _candidate(draft: Draft, turn: TurnRef, speaker: str | None) -> FactCandidate:
    valid_from = turn.created_at
    if draft.when is not None:
        valid_from = datetime.combine(draft.when, time.min, tzinfo=turn.created_at.tzinfo)
    return FactCandidate(
        content=draft.content,
        kind=draft.kind,
        subject=draft.subject,
        exclusive=draft.exclusive,
        negated=draft.negated,
        importance=draft.importance,
        topics=draft.topics,
        valid_from=valid_from,
        source_message_ids=(turn.message_id,),
        correction=draft.correction,
        corrects=draft.corrects,
        speaker=speaker,
    )


def normalise(text: str) -> str:
    """Compatibility forms folded (full-width letters, ligatures), invisible and control characters
    dropped, typographic quotes made plain, so the patterns see one spelling of each thing; and
    every run of white space one character (a line break where it held one), so that no pattern
    ever meets a long run of it: each `\\s+` / `\\s*` of the rules then matches at most one
    character, which keeps their work linear in the text."""
    text = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text[:MAX_CHARS]))[: MAX_CHARS * 2]
    text = _INVISIBLE.sub("", text).translate(_QUOTES)
    return _LINE_BREAKS.sub("\n", _BLANKS.sub(" ", text))


_BLANKS = re.compile(r"[^\S\n]+")  # one match per run: linear
_LINE_BREAKS = re.compile(r" ?\n[\n ]*")


def _turn_drafts(turn: TurnRef, previous: TurnRef | None, said_before: TurnRef | None) -> Iterator[Draft]:
    text = normalise(turn.content or "")
    answered = _answer(text, turn, previous)
    if answered is not None:
        text = answered
    if re.search(r"/s\b", text):  # a sarcasm tag covers the whole message
        return
    meant = _MEANT_VALUE.match(text)
    if meant and said_before is not None:  # "I meant Paris": the previous statement, corrected
        yield from _corrected(said_before, meant.group("value"), meant.group("wrong"))
        return
    spans = sentence_spans(text)[:MAX_SENTENCES]
    sentences = [text[a:b] for a, b in spans]
    name = " ".join((turn.name or "").split())
    for i, raw in enumerate(sentences):
        if i + 1 < len(sentences) and _SARCASM_AFTER.match(sentences[i + 1]):
            continue
        drafts = _sentence_drafts(raw, turn.created_at)
        if name:  # a named speaker's own name is known: another one read as theirs is a misreading
            drafts = [_named(d, name) for d in drafts if d.subject != "name" or _own_name(d.content, name)]
        # A liking read from a sentence that tells more ("I'm passionate about sailing and it gives
        # me so much peace") keeps the rest as told too; any other slot fact is the sentence's fact.
        if name and all(d.kind is FactKind.preference and not d.negated for d in drafts):
            drafts = [*drafts, *_told(raw, name, turn.created_at)]
        yield from drafts


def _named(draft: Draft, name: str) -> Draft:
    """A slot fact of a named speaker says whose by name: the rules write the speaker's "my" as
    "their" ("my goal is to improve my running pace" -> "Plans to improve their running pace."),
    which beside a name reads as someone else's."""
    if "their" not in draft.content:
        return draft
    return replace(draft, content=_THEIR.sub(f"{name}'s", draft.content))


_THEIR = re.compile(r"\btheir\b")


def _own_name(content: str, name: str) -> bool:
    """Whether "Is named X." names the speaker called `name` ("Looky here, I found this map" is no
    introduction from someone named Theo; "call me Sam" from Samuel is)."""
    said = content.removeprefix("Is named ").rstrip(".").casefold().split()
    known = name.casefold().split()
    return bool(said) and any(k.startswith(w) or w.startswith(k) for w in said[:1] for k in known)


def _told(raw: str, name: str, at: datetime) -> list[Draft]:
    """What a named speaker tells of their life in a sentence no slot rule read, if it is plainly
    stated: not asked, supposed, hedged, quoted or joked (the whole sentence is held to it)."""
    text, asking = _statement(_SMILEY.sub(".", _COURTESY.sub("", _bounded(raw))))
    if asking or not text or _SARCASM.search(text):
        return []
    # Masks keep every position of `plain` that of `text`: a hedge found in one is cut in the other.
    plain = _TITLE.sub(_masked, text)  # a quoted title ("Treasure Island" by Stevenson) is no quote
    if '"' in plain:
        return []
    # A past "when" dates, it supposes nothing ("when I was a kid"); "my dream" is had, not dreamt.
    plain = _PAST_WHEN.sub(_blank, _HAD_DREAM.sub(_blank, plain))
    hedges = [h.start() for h in (_NOT_STATED_BEFORE.search(plain), _NOT_STATED_AFTER.search(plain)) if h]
    if hedges:
        text = text[: _before_hedge(plain, min(hedges))]
        if not text.strip():
            return []
    told = experience(text.strip(), name, at)
    return [told] if told is not None else []


_TITLE = re.compile(r'"(?=[A-Z0-9])[^"\n]{1,40}"')
# Where a clause ends that a hedge in the next one leaves standing: "I'm currently reading "Atomic
# Habits" and hoping it'll help me sleep" (what is hoped is the second clause's), "I used to race
# in time trials - my best memory was when my club won".
_HEDGE_OPENERS = frozenset(("i", "we", "and", "but", "so", "or", "just", "really", "also", "well", "though"))
_PARTICIPLE = re.compile(r"[a-z]+ing\b", re.IGNORECASE)
# "and" between two clauses, not inside a list ("the letters and poems I wrote").
_HEDGE_BREAK = re.compile(
    r";|\s[-\u2013\u2014]+\s|,\s|\sbut\s|\sand\s(?=(?:i|i'm|it|it's|they|he|she|we|maybe|perhaps|probably|[a-z]+ing)\b)",
    re.IGNORECASE,
)


def _before_hedge(plain: str, at: int) -> int:
    """Where the clauses of `plain` before the one holding the hedge at `at` end, or 0 when the
    hedge is the sentence's: it opens its clause, its subject aside ("..., I think", "... and maybe
    Berlin", "..., if that's ok"), or no clause comes before it. A participle that opens its
    clause ("and hoping it'll ...") is that clause's verb, not a hedge of the one before."""
    cut = None
    for m in _HEDGE_BREAK.finditer(plain):  # not bounded at `at`: the "and" looks ahead
        if m.start() >= at:
            break
        cut = m
    if cut is None:
        return 0
    gap = [w for w in plain[cut.end() : at].lower().split() if w not in _HEDGE_OPENERS]
    if not gap and not _PARTICIPLE.match(plain, at):
        return 0
    return cut.start()


def _masked(m: re.Match[str]) -> str:
    return "T" * len(m.group())


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group())


_PAST_WHEN = re.compile(
    r"\bwhen\s(?:i|we|my\s[a-z]+)\s(?:was|were|[a-z]+ed|went|got|came|saw|met|left|began|first|had|took)\b",
    re.IGNORECASE,
)
_HAD_DREAM = re.compile(r"\b(?:my|a|the|our)\s(?:\w+\s)?dream\b(?!\s(?:of|about)\s(?!mine\b))", re.IGNORECASE)

# "I meant Paris", "sorry, I meant Paris (not Berlin)", "Paris, I meant": a bare value that corrects
# the speaker's previous statement.
_CORRECTION_LEAD = r"(?:(?:sorry|oops|correction|my\s+bad|wait|no|nope|actually|typo)\b[\s,.!:;-]*)*"
_VALUE = r"[A-Z][\w'&-]*(?: [A-Z][\w'&-]*){0,3}"
_MEANT_VALUE = re.compile(
    rf"^\W*(?i:{_CORRECTION_LEAD})(?i:i meant|i mean|meant)(?: to say)? (?P<value>{_VALUE})"
    rf"(?:,? (?i:not) (?P<wrong>{_VALUE}))?[\s.!]*$"
)
# "Actually I moved to Paris, not Berlin", "I work at Initech, not Globex": the value after "not"
# is the one said before by mistake.
_NOT_THAT = re.compile(r"(?:,|\bbut) (?:and )?not (?:in |at |to |for |from |with |an? |the )?"
                       r"(?P<wrong>[\w'&-]+(?: [\w'&-]+){0,2}) ?(?:[.!,;]|$)", re.IGNORECASE)  # fmt: skip
# A statement that opens with a correction ("sorry, I meant I live in Paris").
_MEANT_STATEMENT = re.compile(
    rf"^\W*(?i:{_CORRECTION_LEAD})(?i:i meant|i mean|what i meant (?:is|was))(?: (?:that|to say))?[\s,:]*"
    r"(?=(?i:i|i'm|im|my|we)\b)"
)


def _corrected(said_before: TurnRef, value: str, wrong: str | None) -> Iterator[Draft]:
    """The speaker's previous statement with its value replaced: the last exclusive fact it gave
    whose content ends with a proper noun (`Lives in Berlin.` -> `Lives in Paris.`)."""
    drafts = [
        d for d in _turn_drafts(said_before, None, None) if d.exclusive and not d.negated and not d.correction
    ]
    for d in reversed(drafts):
        words = d.content.rstrip(".").split(" ")
        n = 0
        while n < len(words) - 1 and words[len(words) - 1 - n][:1].isupper():
            n += 1
        old = " ".join(words[len(words) - n :])
        if n == 0 or (wrong is not None and wrong.casefold() != old.casefold()) or old == value:
            continue
        content = " ".join([*words[: len(words) - n], value]) + "."
        yield replace(d, content=content, correction=True, corrects=old, when=None)
        return


def _answer(text: str, turn: TurnRef, previous: TurnRef | None) -> str | None:
    """A bare answer to the other speaker's question, restated as the sentence it stands for."""
    if previous is None or speaker_of(previous) == speaker_of(turn) or len(text) > 60:
        return None
    asked = normalise(previous.content or "")[-300:]
    for question, expects, template in _ASKED:
        q = question.search(asked)
        if not q or asked[q.end() :].strip():
            continue
        if expects == "yes":
            return template.format(q.group(1)) if _YES.match(text) else None
        m = _SHORT_ANSWER[expects].match(text.strip())
        if not m and expects == "place" and text == text.lower():  # "brussels!": only a listed place
            m = _LOWER_PLACE.match(text.strip())
        if not m:
            return None
        said = m.group(1).strip()
        if expects == "job" and not re.match(r"(?i:an?)\s", said):
            said = f"{article(said)} {said}"
        return template.format(said.replace(", at ", " at "))
    return None


def _statement(text: str) -> tuple[str, bool]:
    """The part of a sentence that can state something, and whether the sentence asks instead.
    A question after a statement ("I'm vegetarian, any ideas?") leaves the statement."""
    text = _bounded(text)  # the rewrites before may have lengthened it
    asking = bool(_QUESTION_START.match(text))
    if _QUESTION_END.search(text):
        clause = _QUESTION_CLAUSE.search(text)
        if clause and not asking:
            return text[: clause.start()], False
        return text, True
    return text, asking


def _introduced_here(raw: str) -> str:
    here = _HERE.match(raw)
    if not here:
        return raw
    x = here.group("x")
    words = x.lower().split()
    if words[0] in _NOT_HERE or words[-1] in _NOT_HERE:
        return raw
    described = (
        singular(words[-1]) in JOB_NOUNS
        or words[-1].endswith("ist")
        or words[-1] in ("fan", "lover", "enthusiast")
        or x.lower() in DIETS
    )
    if described:  # before names: "Electrician here" is a job, though capitalised
        x = x.lower() if len(words) == 1 else x
        said = f"I'm {article(x)} {x}"
    elif len(words) == 1 and x[0].isupper():
        said = f"I'm {x}"  # a name: the name rules check it
    else:
        return raw
    return raw[: here.start("x")] + said + raw[here.end() :]


def _sentence_drafts(raw: str, at: datetime) -> list[Draft]:
    raw = _bounded(raw)
    meant = _MEANT_STATEMENT.match(raw)
    if meant:  # "sorry, I meant I live in Paris": the statement, as a correction
        raw = raw[meant.end() :]
    wrong = _NOT_THAT.search(raw)
    drafts = _drafts(raw, at)
    if not (meant or wrong):
        return drafts
    corrects = wrong.group("wrong") if wrong else None
    return [replace(d, correction=True, corrects=corrects) if _corrects(d, corrects) else d for d in drafts]


def _corrects(d: Draft, wrong: str | None) -> bool:
    return d.exclusive and not d.negated and (wrong is None or wrong.casefold() not in d.content.casefold())


def _bounded(text: str) -> str:
    """A run-on "sentence" (a paste) read up to a clause break before MAX_SENTENCE_CHARS: every rule
    then works on a bounded text, whatever the message."""
    if len(text) <= MAX_SENTENCE_CHARS:
        return text
    cut = max(text.rfind(",", 0, MAX_SENTENCE_CHARS), text.rfind(";", 0, MAX_SENTENCE_CHARS))
    return text[: max(cut, 0)]


def _drafts(raw: str, at: datetime) -> list[Draft]:
    raw = _IVE.sub("I've", _SMILEY.sub(".", _COURTESY.sub("", raw)))
    raw = _introduced_here(raw)
    pet = _PET_ANSWER.match(raw)
    if pet:
        raw = raw[: pet.end()] + "I have " + raw[pet.end() :]
    dropped = _DROPPED_I.match(raw)
    if dropped:  # before the question test: "had ..." opens questions too
        subject = (
            "I'm "
            if dropped.group("be")
            else "I was "
            if dropped.group("was")
            else "I've "
            if dropped.group("have")
            else "I "
        )
        raw = raw[: dropped.end()] + subject + raw[dropped.end() :]
    text, asking = _statement(raw)
    if not text or _SARCASM.search(text):
        return []
    # Capitals tell proper nouns apart only if the writer uses them beyond "I" and the first letter.
    lower_only = not any(w[0].isupper() and w not in ("I", "Im") for w in _LETTERS.findall(text)[1:])
    letters = [ch for ch in text if ch.isalpha()]
    if (letters and not any(ch.islower() for ch in letters)) or title_case(text):
        text, lower_only = text.lower(), True
    text = _ELLIPSIS.sub(r"\1I ", text)
    words = frozenset(_TOKEN.findall(text.lower()))
    # The whole sentence counts: "As a pescatarian, what can I make?" keeps only its statement.
    if (
        _FIRST_PERSON.isdisjoint(_TOKEN.findall(raw.lower()))
        and not _CALLED_OFF.match(text)
        and not _IMPLIED_SELF.match(text)
    ):
        return []
    sentence = Sentence(text, at, lower_only)
    found: list[tuple[int, int, int, Draft]] = []
    claimed: list[tuple[int, int]] = []
    for order, rule in enumerate(RULES):
        if rule.keywords.isdisjoint(words) or (asking and not rule.anywhere):
            continue
        for m in rule.pattern.finditer(text):
            if any(a <= m.start() < b for a, b in claimed) or not _stated(m, sentence, rule):
                continue
            try:
                drafts = rule.build(m, sentence)
            except Exception:  # a bug in one rule must not cost the message its other facts
                _log.exception("fact_rule_failed", rule=rule.name)
                continue
            if drafts:
                claimed.append((m.start(), max(m.end(), m.start() + 1)))
                found.extend((m.start(), order, k, d) for k, d in enumerate(drafts))
    found.sort(key=lambda f: f[:3])
    return [f[3] for f in found]


def _stated(m: re.Match[str], s: Sentence, rule: Rule) -> bool:
    """Whether the trigger `m` is the user stating something: not inside quotes, not under a
    hypothesis or someone else's verb, not hedged after, and (for anchored rules) opening its
    clause, after greetings, fillers and time words at most."""
    before = _OWN_WORDS.sub(lambda w: " " * len(w.group()), s.text[: m.start()])
    if before.count('"') % 2:
        return False
    if rule.anywhere:
        return True
    if _NOT_STATED_BEFORE.search(before):
        return False
    end = _CLAUSE_END.search(s.text, m.end())
    if _NOT_STATED_AFTER.search(s.text, m.end(), end.start() if end else len(s.text)):
        return False
    if not rule.anchored:
        return True
    start = s.clause_start(m.start())
    lead = before[start:]
    if _LEAD_INS.fullmatch(lead.strip(" ,.!:;-")):
        return True
    for d in (*s.dates("past"), *s.dates("future")):  # "Last Sunday I ran ...": a date may open it too
        if start <= d.start and d.end <= m.start():
            lead = lead[: d.start - start] + " " * (d.end - d.start) + lead[d.end - start :]
    return bool(_LEAD_INS.fullmatch(lead.strip(" ,.!:;-")))
