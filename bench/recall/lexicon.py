"""Word pools for the recall benchmark's conversation generator: people, places, jobs, pets, ...

Everything here is plain data. Entries carry both the words a speaker would use when stating a fact
and the different words a later question would use, so questions paraphrase their evidence.
"""

from __future__ import annotations

FEMALE_NAMES = [
    "Maya", "Priya", "Elena", "Sofia", "Hannah", "Aisha", "Chloe", "Ingrid", "Naomi", "Lucia",
    "Keiko", "Fatima", "Grace", "Olivia", "Zara", "Marta", "Nadia", "Rosa", "Leah", "Imogen",
    "Amara", "Beatriz", "Clara", "Daniela", "Erin", "Freya", "Gemma", "Hana", "Isla", "Jasmine",
    "Kira", "Lena", "Mei", "Nora", "Paula", "Rania", "Sienna", "Tara", "Vera", "Yara",
]  # fmt: skip
MALE_NAMES = [
    "Marco", "Daniel", "Tomas", "Omar", "Ethan", "Kenji", "Lucas", "Rafael", "Samuel", "Victor",
    "Andre", "Ben", "Caleb", "Dev", "Elias", "Felix", "Gabriel", "Hugo", "Ivan", "Jonah",
    "Kwame", "Leo", "Mateo", "Nikhil", "Oscar", "Pablo", "Quinn", "Ravi", "Stefan", "Theo",
    "Umar", "Wes", "Xavier", "Yusuf", "Zane", "Arjun", "Bruno", "Cyrus", "Diego", "Emil",
]  # fmt: skip

# (city, region) where people live; the region lets a question name the place differently.
HOME_CITIES = [
    ("Austin", "Texas"), ("Denver", "Colorado"), ("Portland", "Oregon"), ("Seattle", "Washington"),
    ("Minneapolis", "Minnesota"), ("Pittsburgh", "Pennsylvania"), ("Raleigh", "North Carolina"),
    ("Sacramento", "California"), ("Madison", "Wisconsin"), ("Tucson", "Arizona"),
    ("Boise", "Idaho"), ("Richmond", "Virginia"), ("Columbus", "Ohio"), ("Nashville", "Tennessee"),
    ("Albuquerque", "New Mexico"), ("Salt Lake City", "Utah"), ("Savannah", "Georgia"),
    ("Burlington", "Vermont"), ("Asheville", "North Carolina"), ("Ann Arbor", "Michigan"),
    ("Toronto", "Ontario"), ("Vancouver", "British Columbia"), ("Edinburgh", "Scotland"),
    ("Manchester", "England"), ("Dublin", "Ireland"), ("Melbourne", "Australia"),
]  # fmt: skip
NEIGHBOURHOOD_BITS = [
    "a few blocks from the river", "near the old train station", "right by the university",
    "on the east side, close to the big park", "just off the main market street",
    "up the hill near the hospital", "in a quiet cul-de-sac near the lake",
]  # fmt: skip

# (city, country, something a traveller would mention)
TRIP_DESTINATIONS = [
    ("Lisbon", "Portugal", "the custard tarts alone were worth the flight"),
    ("Kyoto", "Japan", "we saw about forty temples and my feet still hurt"),
    ("Mexico City", "Mexico", "I ate tacos al pastor every single night"),
    ("Reykjavik", "Iceland", "we finally saw the northern lights on the last night"),
    ("Marrakech", "Morocco", "I got hopelessly lost in the souks more than once"),
    ("Barcelona", "Spain", "the Gaudi buildings are even stranger in person"),
    ("Hanoi", "Vietnam", "crossing the street on a scooter-packed road is an extreme sport"),
    ("Cape Town", "South Africa", "hiking Table Mountain at sunrise was unreal"),
    ("Buenos Aires", "Argentina", "the steak dinners ran until midnight"),
    ("Prague", "the Czech Republic", "the old town looks like a movie set"),
    ("Istanbul", "Turkey", "the ferry across the Bosphorus was my favourite part"),
    ("Copenhagen", "Denmark", "everyone really does bike everywhere"),
    ("Lima", "Peru", "the ceviche ruined all other ceviche for me"),
    ("Seoul", "South Korea", "the night markets were incredible"),
    ("Athens", "Greece", "climbing up to the Acropolis in the heat nearly killed me"),
    ("Vienna", "Austria", "I had cake and coffee twice a day, no regrets"),
]  # fmt: skip

# (title, what a question calls that line of work)
JOBS = [
    ("pediatric nurse", "healthcare"), ("software engineer", "tech"),
    ("high school chemistry teacher", "teaching"), ("accountant", "finance"),
    ("graphic designer", "design"), ("paralegal", "law"), ("physical therapist", "healthcare"),
    ("sous chef", "restaurants"), ("data analyst", "analytics"), ("electrician", "the trades"),
    ("architect", "architecture"), ("veterinary technician", "animal care"),
    ("reporter", "journalism"), ("pharmacist", "pharmacy"), ("UX researcher", "tech"),
    ("civil engineer", "engineering"), ("product manager", "tech"), ("dental hygienist", "healthcare"),
    ("social worker", "social services"), ("marketing coordinator", "marketing"),
]  # fmt: skip
COMPANIES = [
    "Brightline Health", "Northwind Logistics", "Kestrel Analytics", "Harbor & Finch", "Tidewater Bank",
    "Bluestem Studio", "Cobalt Robotics", "Meridian Schools", "Redwood Legal Group", "Pinecrest Clinic",
    "Lumen Labs", "Granite Works", "Sparrow Media", "Oakridge Hospital", "Fieldstone Partners",
    "Ironleaf Software", "Copperline Energy", "Willow Street Bistro", "Atlas Freight", "Beacon Insurance",
]  # fmt: skip

# species -> (generic noun used in questions, young/breed words used when stating)
PETS = {
    "dog": ("dog", ["golden retriever puppy", "beagle", "border collie", "dachshund", "corgi puppy",
                    "rescue lab mix", "greyhound", "pug", "husky puppy", "cocker spaniel"]),
    "cat": ("cat", ["tabby kitten", "Maine Coon", "Siamese", "little tuxedo kitten", "ragdoll",
                    "black shelter kitten", "orange tom"]),
    "rabbit": ("rabbit", ["lop-eared bunny", "dwarf bunny"]),
    "bird": ("bird", ["cockatiel", "budgie", "African grey parrot"]),
    "reptile": ("reptile", ["bearded dragon", "leopard gecko"]),
}  # fmt: skip
PET_NAMES = [
    "Biscuit", "Miso", "Pepper", "Juniper", "Waffles", "Olive", "Ziggy", "Mochi", "Pickles", "Clementine",
    "Bruno", "Luna", "Tofu", "Bowie", "Maple", "Nacho", "Pretzel", "Sage", "Rocket", "Fig",
]  # fmt: skip

# (statement variants, the kind of hobby as a question would say it)
HOBBIES = [
    (["I've been going bouldering at the climbing gym three nights a week, my forearms are toast",
      "finally tried bouldering with a friend and now I'm hooked, I bought my own shoes"], "sport"),
    (["I signed up for a wheel-throwing pottery class and made my first lopsided bowl",
      "I've been spending Saturday mornings at a ceramics studio learning to throw pots"], "craft"),
    (["I've been baking sourdough every weekend, my starter is called Doug",
      "my sourdough loaves finally have a decent crumb after two months of practice"], "kitchen project"),
    (["I've gotten really into birdwatching, I saw a pileated woodpecker on Sunday",
      "I bought binoculars and a field guide and now I get up at dawn for warblers"], "outdoor pastime"),
    (["I've been playing chess online every night and my rating just passed 1400",
      "I joined a chess club that meets at the library on Wednesdays"], "game"),
    (["I started Japanese lessons on Tuesday evenings, hiragana is going okay so far",
      "I'm on a 90-day streak studying Japanese before our trip next year"], "language"),
    (["I've been trail running on the weekends, did twelve miles on Saturday",
      "I joined a trail running group that does hill repeats every Thursday"], "sport"),
    (["I've been growing tomatoes and peppers in raised beds in the backyard",
      "the vegetable garden is finally producing, we had our first zucchini this week"], "outdoor pastime"),
    (["I've been building furniture in the garage, just finished a walnut side table",
      "I took a woodworking course and I'm making a bookshelf with dovetail joints"], "craft"),
    (["I've been knitting a sweater for the first time, the sleeves are a nightmare",
      "I picked up knitting again and I'm making scarves for everyone for the holidays"], "craft"),
    (["I've been taking salsa lessons on Friday nights and I'm slowly getting less terrible",
      "the salsa class I joined has a social dance night and I actually went"], "dance"),
    (["I've been learning the ukulele from YouTube videos, I can almost play a full song",
      "I bought a ukulele and I practice for twenty minutes every night"], "instrument"),
    (["I've been doing film photography with my dad's old Pentax",
      "I shoot street photos downtown on weekends and develop my own film"], "creative pastime"),
    (["I've been swimming laps at the rec center before work, up to a mile now",
      "I joined a masters swim team, the 6am practices are brutal"], "sport"),
]  # fmt: skip

# (ingredient, what a question calls it)
DISLIKED_FOODS = [
    ("cilantro", "herb"), ("mushrooms", "ingredient"), ("olives", "ingredient"),
    ("blue cheese", "cheese"), ("eggplant", "vegetable"), ("raw onion", "ingredient"),
    ("coconut", "ingredient"), ("licorice", "flavour"), ("beets", "vegetable"),
]  # fmt: skip
CUISINES = [
    ("Thai", "green curry"), ("Ethiopian", "injera with lentils"), ("Korean", "bibimbap"),
    ("Lebanese", "shawarma and tabbouleh"), ("Mexican", "mole"), ("Indian", "dal makhani"),
    ("Vietnamese", "pho"), ("Japanese", "ramen"), ("Italian", "fresh pasta"), ("Peruvian", "lomo saltado"),
]  # fmt: skip

# (allergen, what a question calls it, how it shows)
ALLERGIES = [
    ("penicillin", "antibiotic", "I broke out in hives all over as a kid"),
    ("peanuts", "food", "I carry an EpiPen everywhere"),
    ("shellfish", "food", "my throat swells up if I eat shrimp"),
    ("latex", "material", "gloves at the doctor's office give me a rash"),
    ("bee stings", "insect", "I ended up in the ER after one at a picnic"),
    ("sulfa drugs", "medication", "I had a terrible reaction a few years ago"),
    ("tree nuts", "food", "even almond milk is a problem for me"),
]  # fmt: skip

# (statement, what a question calls it)
CONDITIONS = [
    ("my doctor says my blood pressure is running high, so I'm supposed to cut way back on salt",
     "cardiovascular"),
    ("I get migraines a couple of times a month, bright screens make them worse", "recurring headaches"),
    ("the physio says I have a partially torn meniscus in my left knee", "joint injury"),
    ("I was diagnosed with asthma last year and now I keep an inhaler in my bag", "breathing"),
    ("my back has been killing me, the doctor thinks it's a herniated disc", "spine"),
    ("I found out I have celiac disease, so gluten is off the table now", "digestive"),
    ("my thyroid is underactive, so I take levothyroxine every morning", "hormone"),
    ("I've had plantar fasciitis in my right foot for months, mornings are the worst", "foot"),
]  # fmt: skip

CARS = [
    "Subaru Outback", "Honda Civic", "Toyota RAV4", "Mazda 3", "Ford F-150", "Volkswagen Golf",
    "Kia Niro hybrid", "Tesla Model 3", "Jeep Wrangler", "Hyundai Ioniq 5", "Volvo XC60", "Mini Cooper",
]  # fmt: skip
CAR_COLOURS = ["dark green", "silver", "bright red", "navy blue", "white", "charcoal grey"]

BANDS = [
    "Fleetwood Mac tribute band", "Arctic Monkeys", "Lizzo", "Radiohead", "Bon Iver", "Phoebe Bridgers",
    "the National", "Vampire Weekend", "Kacey Musgraves", "Khruangbin", "Tame Impala", "Hozier",
]  # fmt: skip

EVENING_COURSES = [
    ("intro to accounting", "Tuesdays and Thursdays"), ("Spanish conversation", "Monday nights"),
    ("creative writing", "Wednesday evenings"), ("welding basics", "Thursday nights"),
    ("Python for beginners", "twice a week after work"), ("art history", "Monday and Wednesday nights"),
    ("nutrition science", "Tuesday evenings"), ("American Sign Language", "Thursday evenings"),
]  # fmt: skip

# (title, author, blurb) -- books the assistant recommends
BOOKS = [
    ("Project Hail Mary", "Andy Weir", "a funny, fast science-fiction story about a stranded astronaut"),
    ("The Remains of the Day", "Kazuo Ishiguro", "a quiet, devastating novel about an English butler"),
    ("Lessons in Chemistry", "Bonnie Garmus", "a sharp, warm story about a chemist turned TV cook"),
    ("The Martian", "Andy Weir", "survival on Mars told with a lot of jokes"),
    ("Educated", "Tara Westover", "a memoir about growing up off the grid and finding school"),
    ("Piranesi", "Susanna Clarke", "a strange, beautiful puzzle of a novel set in an endless house"),
    ("The Thursday Murder Club", "Richard Osman", "a cosy mystery solved by retirees"),
    ("Braiding Sweetgrass", "Robin Wall Kimmerer", "essays on plants, science and Indigenous knowledge"),
    ("Tomorrow, and Tomorrow, and Tomorrow", "Gabrielle Zevin", "a novel about friends who make video games"),
    ("Born a Crime", "Trevor Noah", "a funny and moving memoir about growing up in South Africa"),
]  # fmt: skip
LIKED_BOOKS = [
    "The Martian",
    "Station Eleven",
    "Gone Girl",
    "A Man Called Ove",
    "Dune",
    "Where the Crawdads Sing",
]

# (name, cuisine, detail) -- restaurants the assistant recommends
RESTAURANTS = [
    ("Casa Ondina", "Basque", "small plates and a great wine list, ask for the patio"),
    ("Little Saigon Kitchen", "Vietnamese", "the lemongrass chicken is the thing to order"),
    ("Ember & Vine", "wood-fired", "a tasting menu that changes every week"),
    ("Trattoria Sole", "Italian", "handmade pasta and candlelit tables"),
    ("The Copper Pot", "French bistro", "the steak frites and the chocolate mousse are famous"),
    ("Namu", "Korean", "tabletop barbecue, fun for a group"),
    ("Saffron House", "Persian", "the saffron rice with barberries is unforgettable"),
    ("Blue Heron Oyster Bar", "seafood", "fresh oysters and a view of the water"),
]  # fmt: skip
GIFTS = [
    ("a pour-over coffee set with a bag of single-origin beans", "coffee lover"),
    ("a beginner's watercolour kit and a good sketchbook", "creative"),
    ("a weighted blanket", "someone who sleeps badly"),
    ("a cookbook by Yotam Ottolenghi plus a nice olive oil", "home cook"),
    ("noise-cancelling earbuds", "commuter"),
    ("a National Parks annual pass", "hiker"),
    ("a custom star map of the night you met", "sentimental"),
    ("a cooking class for two", "experience"),
]  # fmt: skip
PODCASTS = [
    ("Hardcore History", "long, gripping episodes about wars and empires"),
    ("Radiolab", "science stories with great sound design"),
    ("99% Invisible", "the hidden design of everyday things"),
    ("Conan O'Brien Needs a Friend", "silly celebrity conversations"),
    ("Planet Money", "economics explained through short stories"),
    ("Serial", "a true-crime investigation told week by week"),
]  # fmt: skip
PLANTS = [
    ("a snake plant", "it survives almost no light and you can forget to water it for weeks"),
    ("a ZZ plant", "it handles dim corners and irregular watering"),
    ("a pothos", "it trails nicely from a shelf and tells you when it's thirsty by drooping"),
    ("a cast-iron plant", "it's nearly impossible to kill, even in a dark hallway"),
]  # fmt: skip
STRETCHES = [
    ("cat-cow stretches and glute bridges", "lower back"),
    ("wall slides and doorway chest stretches", "posture"),
    ("straight-leg raises and terminal knee extensions", "knee"),
    ("calf stretches against the wall and rolling your foot on a frozen water bottle", "foot"),
]  # fmt: skip
MOVIES = [
    ("Paddington 2", "it's charming for every age"), ("The Grand Budapest Hotel", "it's witty and gorgeous"),
    ("Knives Out", "it's a clever whodunit"), ("Everything Everywhere All at Once", "it's wild and moving"),
    ("Spirited Away", "it's a magical animated classic"), ("Arrival", "it's thoughtful science fiction"),
]  # fmt: skip

RELATIVES_FOR_WEDDINGS = [
    "cousin",
    "college roommate",
    "best friend from high school",
    "coworker",
    "neighbour",
]
SCHOOL_GRADES = ["kindergarten", "first grade", "second grade", "third grade", "fifth grade", "middle school"]
MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
