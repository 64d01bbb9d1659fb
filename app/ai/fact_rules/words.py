"""Closed word lists the rules read against: nationalities, languages, diets, jobs, relatives, pets,
conditions, places, employers, and the small helpers that build them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.ai.relative_time import MONTHS, WEEKDAYS


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.replace("_", " ").split("|") if "|" in text else text.split())


def word_pairs(text: str) -> dict[str, str]:
    """ "a:b c:d" -> {"a": "b", "c": "d"}; "_" stands for a space inside a word."""
    return {k.replace("_", " "): v.replace("_", " ") for k, v in (p.split(":") for p in text.split())}


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of `words`, longest first, a space matching any run of whitespace."""
    return "|".join(re.escape(w).replace("\\ ", r"\s+") for w in sorted(set(words), key=len, reverse=True))


NATIONALITIES = word_set(
    """afghan albanian algerian american andorran angolan argentine argentinian armenian australian
    austrian azerbaijani bahamian bangladeshi barbadian belarusian belgian belizean bhutanese bolivian
    bosnian brazilian british bulgarian burmese cambodian cameroonian canadian chilean chinese colombian
    congolese croatian cuban cypriot czech danish dominican dutch ecuadorian egyptian emirati english
    eritrean estonian ethiopian fijian filipino finnish french georgian german ghanaian greek guatemalan
    haitian honduran hungarian icelandic indian indonesian iranian iraqi irish israeli italian ivorian
    jamaican japanese jordanian kazakh kenyan korean kosovar kuwaiti lebanese libyan lithuanian latvian
    luxembourgish macedonian malaysian maltese mexican moldovan mongolian montenegrin moroccan
    mozambican namibian nepalese nepali nicaraguan nigerian norwegian pakistani palestinian panamanian
    paraguayan peruvian polish portuguese qatari romanian russian rwandan salvadoran saudi scottish
    senegalese serbian singaporean slovak slovenian somali spanish sudanese swedish swiss syrian
    taiwanese tanzanian thai tunisian turkish ugandan ukrainian uruguayan uzbek venezuelan vietnamese
    welsh yemeni zambian zimbabwean catalan basque"""
) | {"south african", "sri lankan", "new zealander", "puerto rican", "costa rican", "south korean"}


LANGUAGES = word_set(
    """english spanish french german italian portuguese dutch russian chinese mandarin cantonese japanese
    korean arabic hindi urdu bengali punjabi tamil telugu marathi gujarati kannada malayalam persian
    farsi turkish polish ukrainian czech slovak hungarian romanian bulgarian greek hebrew swedish
    norwegian danish finnish icelandic estonian latvian lithuanian serbian croatian bosnian slovenian
    albanian macedonian vietnamese thai indonesian malay tagalog swahili amharic yoruba igbo hausa zulu
    xhosa afrikaans somali catalan basque galician welsh irish gaelic latin esperanto nepali sinhala
    khmer burmese mongolian kazakh uzbek georgian armenian pashto kurdish maori hawaiian yiddish asl bsl"""
) | {"sign language", "american sign language", "british sign language", "brazilian portuguese"}


LANGUAGE_KEYS = {"farsi": "persian", "american sign language": "asl", "british sign language": "bsl"}


# What "I'm X" says: the content of the diet fact.
DIETS = word_pairs(
    """vegetarian:Is_vegetarian vegan:Is_vegan pescatarian:Is_pescatarian pescetarian:Is_pescatarian
    flexitarian:Is_flexitarian lacto-vegetarian:Is_lacto-vegetarian plant-based:Eats_a_plant-based_diet
    plant_based:Eats_a_plant-based_diet keto:Follows_a_keto_diet paleo:Follows_a_paleo_diet"""
)


DIET_PLANS = word_set(
    "keto|ketogenic|paleo|mediterranean|carnivore|whole30|vegan|vegetarian|pescatarian|low-carb|low carb|"
    "gluten-free|gluten free|plant-based|plant based|low-fat|low fat|low-sodium|raw food|intermittent fasting"
)


JOB_NOUNS = word_set(
    """accountant actor actress administrator analyst animator architect archivist artist assistant
    astronaut astronomer attorney auditor author baker banker barber barista bartender biologist blogger
    bookkeeper builder butcher carpenter cashier ceo cto cfo coo cio chef chemist chiropractor cleaner
    clerk coach consultant contractor copywriter counselor counsellor courier curator dancer dentist
    designer detective developer dev dietitian director doctor driver economist editor educator
    electrician engineer entrepreneur farmer firefighter founder co-founder cofounder freelancer
    gardener geologist hairdresser historian illustrator instructor interpreter investor janitor
    journalist judge lawyer lecturer librarian lifeguard linguist manager marketer mathematician
    mechanic midwife musician nanny nurse nutritionist officer optometrist painter paralegal paramedic
    pharmacist photographer physician physicist physiotherapist pilot plumber poet politician producer
    professor programmer psychiatrist psychologist publisher realtor receptionist recruiter reporter
    researcher salesperson scientist secretary singer soldier statistician strategist surgeon surveyor
    tailor teacher technician therapist translator tutor veterinarian vet waiter waitress welder writer
    youtuber streamer coder sysadmin caregiver carer housekeeper advisor adviser specialist coordinator
    supervisor executive representative broker trader sailor fisherman miner pastor priest rabbi imam
    comedian composer dj drummer guitarist pianist violinist filmmaker sculptor potter jeweler florist
    cook server guard cop intern trainee apprentice postdoc principal headteacher dean academic
    student technologist hygienist radiologist anesthesiologist cardiologist dermatologist
    pediatrician podcaster influencer vp president owner agent clinician machinist operator planner
    inspector underwriter actuary dispatcher landscaper roofer"""
)


# Before a job noun they make an opinion or a wish, not a job: "a good cook", "an aspiring actor".
NOT_TITLES = word_set(
    """good great bad terrible awful decent amazing excellent fantastic horrible lousy poor better best
    worse worst big huge total complete natural born wannabe aspiring would-be future former ex amateur
    hobby frustrated failed proud lucky happy little bit very really such pretty fan person people mess"""
)


STUDENT_DEGREES = word_set(
    """phd ph.d doctoral grad graduate undergrad undergraduate college university uni masters master's
    mba med medical exchange international mature part-time full-time first-year second-year third-year
    final-year freshman sophomore junior senior high-school"""
)


FIELDS = word_set(
    "marketing|sales|finance|tech|technology|it|healthcare|health care|education|hr|human resources|retail|"
    "hospitality|construction|insurance|banking|consulting|advertising|publishing|journalism|media|law|"
    "accounting|engineering|software|research|academia|government|politics|logistics|manufacturing|"
    "pharma|biotech|fashion|film|design|operations|security|cybersecurity|recruiting|recruitment|nursing|"
    "medicine|television|tv|radio|gaming|aviation|agriculture|energy|telecoms|e-commerce|ecommerce|"
    "real estate|customer service|customer support|public relations|data science|social work|nonprofit|"
    "non-profit|policy|philanthropy"
)


# A relative's word -> (the subject's prefix, the word a fact uses).
FAMILY = {
    k: (v.split("/")[0], v.split("/")[1])
    for k, v in word_pairs(
        """sister:sibling/sister brother:sibling/brother sibling:sibling/sibling twin:sibling/twin
        stepsister:sibling/stepsister stepbrother:sibling/stepbrother half-sister:sibling/half-sister
        half-brother:sibling/half-brother mother:parent/mother mom:parent/mother mum:parent/mother
        mommy:parent/mother mama:parent/mother father:parent/father dad:parent/father daddy:parent/father
        papa:parent/father stepmother:parent/stepmother stepfather:parent/stepfather stepmom:parent/stepmom
        stepdad:parent/stepdad son:child/son daughter:child/daughter stepson:child/stepson
        stepdaughter:child/stepdaughter child:child/child kid:child/child grandmother:grandparent/grandmother
        grandma:grandparent/grandmother granny:grandparent/grandmother nana:grandparent/grandmother
        grandfather:grandparent/grandfather grandpa:grandparent/grandfather granddad:grandparent/grandfather
        grandson:grandchild/grandson granddaughter:grandchild/granddaughter grandchild:grandchild/grandchild
        aunt:family/aunt auntie:family/aunt uncle:family/uncle cousin:family/cousin niece:family/niece
        nephew:family/nephew mother-in-law:family/mother-in-law father-in-law:family/father-in-law
        sister-in-law:family/sister-in-law brother-in-law:family/brother-in-law wife:partner/wife
        husband:partner/husband partner:partner/partner boyfriend:partner/boyfriend
        girlfriend:partner/girlfriend spouse:partner/spouse fiance:partner/fiancé fiancé:partner/fiancé
        fiancee:partner/fiancée fiancée:partner/fiancée friend:friend/friend best_friend:friend/best_friend
        bff:friend/best_friend roommate:friend/roommate flatmate:friend/flatmate housemate:friend/housemate"""
    ).items()
}


PETS = word_pairs(
    """dog:dog cat:cat rabbit:rabbit hamster:hamster parrot:parrot bird:bird budgie:budgie fish:fish
    goldfish:goldfish turtle:turtle tortoise:tortoise horse:horse pony:pony lizard:lizard gecko:gecko
    snake:snake ferret:ferret rat:rat chinchilla:chinchilla hedgehog:hedgehog iguana:iguana
    guinea_pig:guinea_pig bearded_dragon:bearded_dragon puppy:dog kitten:cat bunny:rabbit beagle:beagle
    labrador:labrador poodle:poodle golden_retriever:golden_retriever retriever:retriever terrier:terrier
    husky:husky dachshund:dachshund corgi:corgi pug:pug bulldog:bulldog spaniel:spaniel collie:collie
    greyhound:greyhound"""
)


# Adjectives allowed between "my" and a relative ("my older sister Maria").
KIN_ADJ = word_set(
    "older younger little big baby twin elder eldest oldest youngest only new late tabby ginger rescue"
)


CONDITIONS = word_pairs(
    """asthma:asthma diabetes:diabetes epilepsy:epilepsy adhd:ADHD autism:autism dyslexia:dyslexia
    ibs:IBS arthritis:arthritis hypertension:hypertension migraines:migraines lupus:lupus eczema:eczema
    psoriasis:psoriasis fibromyalgia:fibromyalgia hypothyroidism:hypothyroidism tinnitus:tinnitus
    pcos:PCOS endometriosis:endometriosis anemia:anemia gerd:GERD scoliosis:scoliosis ocd:OCD
    ptsd:PTSD type_1_diabetes:type_1_diabetes type_2_diabetes:type_2_diabetes
    celiac_disease:celiac_disease coeliac_disease:celiac_disease crohn's_disease:Crohn's_disease
    crohn's:Crohn's_disease ulcerative_colitis:ulcerative_colitis high_blood_pressure:high_blood_pressure
    multiple_sclerosis:multiple_sclerosis sleep_apnea:sleep_apnea a_heart_condition:a_heart_condition
    long_covid:long_covid bipolar_disorder:bipolar_disorder acid_reflux:acid_reflux"""
)


# "I'm diabetic" -> the content, and the condition's key.
CONDITION_ADJECTIVES = {
    "diabetic": ("Has diabetes.", "diabetes"),
    "asthmatic": ("Has asthma.", "asthma"),
    "epileptic": ("Has epilepsy.", "epilepsy"),
    "autistic": ("Is autistic.", "autism"),
    "dyslexic": ("Is dyslexic.", "dyslexia"),
    "celiac": ("Has celiac disease.", "celiac disease"),
    "coeliac": ("Has celiac disease.", "celiac disease"),
}


FOODS_GIVEN_UP = word_set(
    "meat|dairy|sugar|alcohol|coffee|caffeine|gluten|pork|beef|fish|chocolate|soda|carbs|bread|booze|beer|"
    "wine|cheese|eggs|chicken|red meat|junk food|fast food|fizzy drinks|energy drinks"
)


# Meat dishes: liking one ends when the user stops eating meat ("I love steak", later "I'm
# vegetarian now"). A negation carries one subject, so each gets its own.
MEATS = word_set(
    """steak steaks bacon ribs burger burgers hamburger hamburgers sausage sausages ham pork beef lamb chicken
    meat barbecue bbq brisket salami pepperoni chorizo meatballs kebab kebabs schnitzel wings pulled_pork
    pork_belly fried_chicken chicken_wings roast_beef"""
)
DRINKS = word_set("alcohol|coffee|caffeine|soda|beer|wine|booze|tea|milk|energy drinks|fizzy drinks")


PLURAL_ALLERGENS = word_pairs(
    """peanut:peanuts nut:nuts tree_nut:tree_nuts egg:eggs cat:cats dog:dogs strawberry:strawberries
    bee:bees wasp:wasps almond:almonds cashew:cashews walnut:walnuts tomato:tomatoes kiwi:kiwis"""
)


NOT_ALLERGENS = word_set(
    "food seasonal skin bad severe serious mild slight environmental pet drug medication worst terrible "
    "awful own stupid usual annoying new old spring summer autumn winter"
)


# Pronouns and conversation words: an object containing one says nothing by itself ("I like it",
# "I love that idea", "I like the second one").
DEICTIC = word_set(
    """it it's its this that that's these those them him her you your yours u ur here there something
    anything everything nothing stuff thing things one ones idea ideas option options suggestion
    suggestions answer answers response responses reply explanation solution approach version list
    advice tip tips question questions point way sound look chat conversation he she they we i me i'm
    im what how why whatever both either neither former latter above below first second third same
    other others another kind kinds sort sorts type types bit lot lots yourself ya someone anyone
    everyone somebody anybody everybody"""
)


BAD_START = word_set(
    """so very much more less most too all any some no not none yes well again when where who if being
    getting my our his their your its with about in on at for from of by as like just even also really
    than then"""
)


# What a sarcastic "I just LOVE ..." is usually about.
GRIPES = word_set(
    "waiting|traffic|queues|lines|delays|mondays|paperwork|taxes|bureaucracy|meetings|commuting|hangovers|"
    "being ignored|being stuck|getting stuck|doing taxes|doing paperwork|waiting in line"
)


# Verbs about the conversation rather than the user's life ("I want to know ...").
META_VERBS = word_set(
    """know ask understand see check make try talk say tell be get have thank share add clarify confirm
    find figure think consider wonder mention note point remind let keep go do help look use answer
    reply respond explain hear admit bother interrupt sleep rest nap continue stop repeat fix test send
    give print copy paste save delete update"""
)


EVENT_NOUNS = word_set(
    """appointment exam interview test flight wedding party surgery operation presentation concert
    match race marathon trip vacation holiday recital audition conference checkup check-up meeting
    deadline shift lesson performance graduation ceremony exhibition tournament competition scan"""
)


HAD_NOUNS = word_set(
    "baby|surgery|operation|accident|wedding|interview|exam|concert|recital|party|procedure|graduation|"
    "stroke|heart attack|car accident|job interview|birthday party"
)


BIG_PURCHASES = word_set("house home car apartment flat condo bike motorcycle boat property place truck van")


BODY_PARTS = word_set("leg arm wrist ankle foot hand finger toe nose collarbone rib ribs hip back elbow knee")


RACES = word_set(
    """marathon half-marathon ultramarathon 10k 5k race triathlon ironman thesis dissertation degree
    course program programme phd"""
)


TRIP_NOUNS = word_set("trip vacation holiday honeymoon cruise hike retreat road-trip safari")


SPORTS = word_set(
    "yoga|pilates|crossfit|karate|judo|taekwondo|jiu-jitsu|kickboxing|boxing|ballet|gymnastics|zumba|"
    "aerobics|martial arts|tai chi|weight training"
)


# Games and instruments one plays: "I love tennis" and "I don't play tennis anymore" are one activity.
GAMES = word_set(
    "tennis|table tennis|volleyball|beach volleyball|football|soccer|basketball|baseball|badminton|squash|"
    "golf|rugby|hockey|ice hockey|cricket|handball|softball|padel|pickleball|ping pong|chess|poker|darts|"
    "pool|snooker|bridge|video games|board games"
)
INSTRUMENTS = word_set(
    "guitar|piano|violin|drums|cello|bass|ukulele|saxophone|sax|trumpet|flute|harp|clarinet|keyboard|banjo"
)

GO_GERUNDS = word_set(
    """running jogging swimming cycling hiking fishing camping climbing bouldering skiing surfing dancing
    bowling skating kayaking sailing hunting snowboarding biking walking diving"""
)


GO_PLACES = word_set(
    "gym|church|yoga|pilates|pool|mass|mosque|temple|synagogue|therapy|dance class|dance classes|the gym|"
    "a gym|the pool|the mosque|the temple|the park"
)


# A capitalised word that is not a name.
NAME_STOP = (
    word_set(
        """i i'm im the a an and but or so is was are were be been who what where when why how this that
        these those he she they we you it his her our their my your me him them us mr mrs ms dr not no
        yes also just lol haha ok okay thanks thank hi hello hey sorry please well here there now then
        today tomorrow yesterday tonight too very really in on at for with from to of by as likes loves
        lives works has had have does did do will would can could should went goes got gets says said
        told always never sometimes usually passed died jr sr christmas easter thanksgiving halloween
        god mom dad mum sis bro babe baby honey dear sir madam everyone everybody someone nobody all
        both each every any some many much more most other another such only own same than either
        neither whether after before since until while because if unless though although"""
    )
    | {m.lower() for m in MONTHS}
    | set(WEEKDAYS)
)


# Words that follow "I'm" capitalised for emphasis ("I'm Fine", "I'm Back!"), never names.
NOT_NAMES_AFTER_IM = NAME_STOP | word_set(
    """fine sorry here back done ready tired happy sad good great ok okay sure well busy free home late
    early new glad excited bored hungry sick cold hot lost confused curious serious kidding joking
    going off out in on up down alright awake asleep alive married single retired divorced engaged
    widowed pregnant vegan vegetarian allergic thinking wondering trying looking working living leaving
    coming staying feeling doing getting learning studying interested afraid scared worried nervous
    stressed exhausted starving thirsty fed broke rich poor old young tall short fat thin fit healthy
    ill better worse fantastic amazing awesome blessed grateful thankful lucky hopeful honest right
    wrong correct certain positive unsure stuck finished listening reading watching waiting driving
    still catholic christian muslim hindu buddhist atheist agnostic protestant mormon sikh orthodox
    gay straight bi lesbian trans queer asian european african hispanic latino latina black white
    caucasian native indigenous arab jewish introverted extroverted shy organic local"""
)


TIME_WORDS = word_set("asap later soon back again anytime whenever now tonight tomorrow today")


_TOPICS = {
    "music": """jazz rock pop music classical hip-hop hiphop rap metal blues country reggae techno edm punk
        folk opera k-pop kpop indie soul funk disco trance songs singing guitar piano violin drums
        concerts band bands cello saxophone ukulele""",
    "food": """food pizza sushi pasta cilantro coriander coffee tea chocolate cheese meat fish chicken beef
        pork spicy vegetables fruit salad burgers tacos curry ramen noodles rice bread cake desserts
        wine beer cooking baking seafood mushrooms olives garlic onions avocado tofu peanuts nuts eggs
        dairy milk shellfish gluten sugar cuisine""",
    "sports": """sports football soccer tennis basketball baseball golf running hiking swimming cycling
        yoga climbing skiing surfing boxing gym volleyball hockey rugby cricket marathons pilates""",
    "reading": "reading books novels poetry comics manga",
    "film": "movies films cinema series tv anime documentaries",
    "games": "games gaming chess videogames poker",
    "travel": "travel traveling travelling trips",
    "nature": "nature gardening camping beach mountains outdoors",
    "art": "art painting drawing photography museums",
}


TOPIC_OF = {w: topic for topic, words in _TOPICS.items() for w in words.split()}


COMMON_NOUNS = set(TOPIC_OF) | word_set(
    "red blue green yellow orange purple pink black white grey gray brown"
)


GERUNDS = word_pairs(
    """flying:fly visiting:visit moving:move relocating:relocate starting:start beginning:begin
    running:run taking:take getting:get having:have attending:attend hosting:host throwing:throw
    celebrating:celebrate graduating:graduate retiring:retire leaving:leave heading:head driving:drive
    seeing:see meeting:meet travelling:travel traveling:travel going:go doing:do playing:play
    smoking:smoke vaping:vape jogging:jog swimming:swim cycling:cycle biking:bike hiking:hike
    climbing:climb bouldering:boulder skiing:ski snowboarding:snowboard surfing:surf skating:skate
    dancing:dance singing:sing painting:paint drawing:draw knitting:knit sewing:sew baking:bake
    cooking:cook fishing:fish meditating:meditate training:train working:work lifting:lift boxing:box
    rowing:row gaming:game eating:eat drinking:drink learning:learn studying:study buying:buy
    selling:sell adopting:adopt opening:open launching:launch competing:compete presenting:present
    joining:join marrying:marry quitting:quit applying:apply writing:write reading:read building:build
    renovating:renovate walking:walk exercising:exercise practicing:practice practising:practise
    camping:camp volunteering:volunteer teaching:teach journaling:journal gardening:garden
    praying:pray stretching:stretch proposing:propose emigrating:emigrate performing:perform"""
)


GERUND_OF = {base: g for g, base in GERUNDS.items()} | word_pairs(
    "travel:traveling practise:practicing work_out:working_out"
)


SPELLING = word_pairs(
    """travelling:traveling practising:practicing practise:practice colour:color favourite:favorite
    flavour:flavor theatre:theater centre:center"""
)
