"""Proper nouns: places, organisations and person names, by their capitals or, when the writer uses
none, from the built-in lists.
"""

from __future__ import annotations

import re

from app.ai.fact_rules.sentences import NAME_WORD, Sentence
from app.ai.fact_rules.words import NAME_STOP, alternation, word_set

# Where capitals say nothing ("i live in porto"), a place or employer must be one of these.
PLACES = word_set(
    "afghanistan|albania|algeria|andorra|angola|argentina|armenia|australia|austria|azerbaijan|bahamas|"
    "bahrain|bangladesh|barbados|belarus|belgium|belize|benin|bhutan|bolivia|bosnia|botswana|brazil|"
    "brunei|bulgaria|cambodia|cameroon|canada|chile|china|colombia|congo|costa rica|croatia|cuba|cyprus|"
    "czechia|czech republic|denmark|dominican republic|ecuador|egypt|el salvador|england|estonia|ethiopia|"
    "fiji|finland|france|georgia|germany|ghana|greece|guatemala|haiti|honduras|hungary|iceland|india|"
    "indonesia|iran|iraq|ireland|israel|italy|jamaica|japan|jordan|kazakhstan|kenya|korea|south korea|"
    "kosovo|kuwait|laos|latvia|lebanon|libya|lithuania|luxembourg|madagascar|malaysia|malta|mexico|"
    "moldova|monaco|mongolia|montenegro|morocco|mozambique|myanmar|namibia|nepal|netherlands|holland|"
    "new zealand|nicaragua|nigeria|north macedonia|norway|oman|pakistan|palestine|panama|paraguay|peru|"
    "philippines|poland|portugal|qatar|romania|russia|rwanda|saudi arabia|scotland|senegal|serbia|"
    "singapore|slovakia|slovenia|somalia|south africa|spain|sri lanka|sudan|sweden|switzerland|syria|"
    "taiwan|tanzania|thailand|tunisia|turkey|uganda|ukraine|uae|united arab emirates|uk|united kingdom|"
    "usa|the us|the uk|the states|"
    "united states|new york city|america|uruguay|uzbekistan|venezuela|vietnam|wales|yemen|zambia|zimbabwe|"
    "europe|asia|africa|scandinavia|california|texas|florida|new york|london|paris|berlin|madrid|rome|"
    "lisbon|porto|barcelona|valencia|seville|milan|naples|turin|florence|venice|bologna|munich|hamburg|"
    "frankfurt|cologne|vienna|zurich|geneva|prague|warsaw|krakow|budapest|bucharest|sofia|athens|"
    "istanbul|dublin|cork|galway|edinburgh|glasgow|manchester|liverpool|birmingham|bristol|leeds|"
    "oxford|cambridge|brighton|amsterdam|rotterdam|brussels|antwerp|ghent|copenhagen|stockholm|oslo|"
    "helsinki|reykjavik|lyon|marseille|nice|toulouse|bordeaux|nantes|tokyo|kyoto|osaka|seoul|beijing|"
    "shanghai|hong kong|bangkok|hanoi|singapore|manila|jakarta|bali|mumbai|delhi|new delhi|bangalore|"
    "chennai|dubai|cairo|marrakech|lagos|nairobi|cape town|johannesburg|sydney|melbourne|brisbane|perth|"
    "auckland|toronto|vancouver|montreal|ottawa|calgary|chicago|boston|seattle|denver|austin|houston|"
    "dallas|miami|atlanta|philadelphia|washington|los angeles|san francisco|san diego|las vegas|portland|"
    "detroit|minneapolis|nashville|new orleans|mexico city|guadalajara|bogota|lima|santiago|buenos aires|"
    "sao paulo|são paulo|rio|rio de janeiro|montevideo|havana|tel aviv|jerusalem|riyadh|doha|tehran|"
    "karachi|lahore|dhaka|kathmandu|taipei|kuala lumpur|ho chi minh city|saigon|st petersburg|moscow|kyiv|"
    "kiev|minsk|vilnius|riga|tallinn|belgrade|zagreb|ljubljana|bratislava|sarajevo|malmo|gothenburg|"
    "bergen|aarhus|leipzig|dresden|stuttgart|dusseldorf|bilbao|malaga|granada|palermo|sicily|sardinia|"
    "crete|the azores|madeira|curitiba|gdansk|wroclaw|poznan|salzburg|innsbruck|basel|bern|lausanne"
)


EMPLOYERS = word_set(
    "google|alphabet|amazon|apple|microsoft|meta|facebook|netflix|spotify|ibm|intel|nvidia|amd|oracle|sap|"
    "salesforce|adobe|uber|lyft|airbnb|tesla|twitter|linkedin|paypal|stripe|shopify|zalando|ikea|siemens|"
    "bosch|philips|unilever|nestle|nestlé|deloitte|accenture|kpmg|pwc|ey|mckinsey|bcg|bain|goldman sachs|"
    "jp morgan|jpmorgan|morgan stanley|barclays|hsbc|santander|ing|revolut|klarna|booking|expedia|"
    "vodafone|ericsson|nokia|samsung|sony|toyota|volkswagen|bmw|mercedes|audi|airbus|boeing|nasa|cisco|"
    "dell|hp|walmart|target|costco|starbucks|mcdonald's|mcdonalds|nike|adidas|zara|h&m|lidl|aldi|tesco|"
    "disney|pixar|bbc|cnn|atlassian|canva|slack|zoom|dropbox|github|gitlab|openai|anthropic|deepmind|"
    "novartis|roche|pfizer|bayer|heineken|maersk|danone|ubisoft|decathlon|accenture|capgemini|infosys"
)


_CONNECTORS = word_set("of de da do del di du la le los las upon on am im sur en y van von der den al el")


_ABBREVIATIONS = word_set("st st. mt mt. ft ft.")


# "a small startup", "the local hospital": an employer without a name.
_ORG_NOUNS = word_set(
    """startup start-up bank hospital school firm company agency restaurant cafe café hotel store shop
    factory university college clinic nonprofit non-profit charity studio lab laboratory library museum
    supermarket warehouse bakery bar pharmacy daycare gym newspaper magazine consultancy corporation
    retailer manufacturer airline bookstore hospice church theater theatre brewery winery farm ngo
    ministry council"""
)


_NOT_ORGS = word_set(
    """home night nights weekends weekend moment it this that them you myself free fun living money hours
    while least all best times first last once peace random work office desk computer mine ours"""
)


_NOT_PLACE_ENDINGS = word_set(
    "support team company corp corp. inc inc. ltd ltd. llc customer service sales hr department office "
    "headquarters"
)


def title_case(text: str) -> bool:
    """Most words capitalised ("I Live In Lisbon"): there capitals say nothing about names."""
    words = [m.group() for m in re.finditer(r"[^\W\d_]{2,}", text) if text[: m.start()].strip(" \"'([")]
    return len(words) >= 4 and sum(w[0].isupper() for w in words) * 4 >= len(words) * 3


def _proper_words(text: str) -> tuple[list[str], int]:
    """The capitalised words (and connectors between them) opening `text`, and where they end."""
    out: list[str] = []
    ends: list[int] = []
    end = 0
    tokens = list(re.finditer(r"\S+", text[:200]))
    for i, tok in enumerate(tokens):
        raw = tok.group()
        word = raw if raw.lower() in _ABBREVIATIONS else raw.rstrip(',.;:!?)"')
        low = word.lower()
        if not word or len(out) >= 6:
            break
        if low in _CONNECTORS and out and i + 1 < len(tokens) and tokens[i + 1].group()[:1].isupper():
            word = low
        elif not word[0].isupper() or (low in NAME_STOP and low != "i") or (word.isupper() and len(word) > 4):
            break
        out.append(word)
        end = tok.start() + len(word)
        ends.append(end)
        if raw[len(word) :][:1] in tuple(',;:!?)"'):  # punctuation ends the name
            break
    # "Chicago I walk everywhere": a closing "I" starts the next clause; connectors join nothing.
    while out and (out[-1] in _CONNECTORS or (out[-1] == "I" and len(out) > 1)):
        out.pop()
        ends.pop()
    return out, ends[-1] if ends else end


def _listed(text: str, names: frozenset[str]) -> str | None:
    """The longest entry of `names` (up to four words, maybe after "the") opening `text`, as a
    proper noun."""
    words = re.findall(r"[^\s,.;:!?)\"]+", text[:80])
    for n in range(min(4, len(words)), 0, -1):
        found = " ".join(words[:n]).lower()
        bare = found.removeprefix("the ")
        if found in names or bare in names:
            shown = [
                w.upper() if w in _ACRONYMS else w if w in _CONNECTORS else w.capitalize()
                for w in bare.split()
            ]
            return ("the " if bare != found else "") + " ".join(shown)
    return None


_ACRONYMS = word_set("us uk usa uae ibm sap bbc cnn hp ey pwc kpmg bcg amd ing")


def place(text: str, s: Sentence) -> str | None:
    """The place opening `text` ("New York", "the UK", "Rio de Janeiro", "Lisbon, Portugal"); in
    "a flat in Camden" and "here in Berlin", the proper noun after "in". Without capitals to go
    by, only a known country or city."""
    lead = re.match(r"\s*(?:here\s+in\s+|(?:a|an|the)\s+(?:[a-z]+\s+){0,3}?in\s+)", text, re.IGNORECASE)
    if lead:
        text = text[lead.end() :]
    text = text.lstrip()
    if s.lower_only:
        return _listed(text, PLACES)
    the = re.match(r"the\s+(?=[A-Z])", text)
    words, end = _proper_words(text[the.end() :] if the else text)
    if not words:
        return None
    name = ("the " if the else "") + " ".join(words)
    after = text[(the.end() if the else 0) + end :]
    region = re.match(r",\s*(?=[A-Z])", after)
    if region:  # "Lisbon, Portugal" but not "Lisbon, Maria lives ..."
        more, more_end = _proper_words(after[region.end() :])
        rest = after[region.end() + more_end :].lstrip()
        if more and len(more) <= 3 and (not rest or rest[0] in ",.;!?"):
            name += ", " + " ".join(more)
    low = name.lower()
    if name.split()[-1].lower() in _NOT_PLACE_ENDINGS or low in NAME_STOP or low in ("here", "there", "home"):
        return None
    return name


def organisation(text: str, s: Sentence) -> str | None:
    """The employer opening `text`: a proper noun ("Acme Corp.", "the BBC", "Johnson & Johnson")
    or "a/the <few words> <kind of organisation>" ("a small startup", "the local hospital")."""
    text = text.lstrip()
    generic = re.match(
        rf"((?:a|an|the)\s+(?:[a-z][\w-]*\s+){{0,2}}?(?:{alternation(_ORG_NOUNS)}))(?![\w-])",
        text,
        re.IGNORECASE,
    )
    if generic:
        return generic.group(1)
    if s.lower_only:
        return _listed(text, EMPLOYERS)
    parts: list[str] = []
    pos = 0
    while pos < len(text) and len(parts) < 6:
        m = re.match(r"\s*(&|and|of|the|de)\s+(?=[A-Z])|\s*([A-Z0-9][\w'&.+-]*)", text[pos:])
        if not m or (m.group(1) and not parts and m.group(1).lower() != "the"):
            break
        word = m.group(1) or m.group(2)
        if m.group(2) and (word.rstrip(".").lower() in NAME_STOP or (parts and word[0].isdigit())):
            break
        parts.append(word)
        pos += m.end()
    while parts and parts[-1].lower() in ("&", "and", "of", "the", "de"):
        parts.pop()
    org = " ".join(parts)
    if org.endswith(".") and not re.search(r"\b(?:Inc|Corp|Co|Ltd|Bros)\.$", org):
        org = org.rstrip(".")
    # "a designer for 11 years": a number alone is a quantity, not an employer ("3M" has letters).
    if not org or org.lower() in _NOT_ORGS or not any(ch.isalpha() for ch in org):
        return None
    return org


def person_name(text: str, *, max_words: int = 2, lower_ok: bool = False) -> str | None:
    """A person's or pet's name opening `text`: capitalised words that are not common words (with
    `lower_ok`, one lower-case word too, capitalised)."""
    out: list[str] = []
    pos = 0
    while len(out) < max_words:
        m = NAME_WORD.match(text, pos)
        if not m:
            break
        word = m.group(1)
        after = text[m.end() : m.end() + 1]
        owner = word.endswith("'s") and len(word) > 3  # "my daughter Sara's birthday": Sara, who owns
        if owner and word.lower() not in NAME_STOP:
            word = word[:-2]
        if (after and (after.isalnum() or after == "_")) or word.lower() in NAME_STOP or len(word) < 2:
            break
        if word[0].isupper() and not (word.isupper() and len(word) > 3):
            out.append(word)
        elif lower_ok and not out:
            out.append(word.capitalize())
        else:
            break
        pos = m.end()
        if owner:  # the possessive ends the name
            break
    return " ".join(out) or None
