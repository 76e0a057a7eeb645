"""The demo campaign (``humeval serve --demo DIR``): every task type on real-looking text.

Sixteen German sentences in four short documents (a harbour closing, a cake recipe, a customer
service reply, a hiking trail), written for humeval, with a reference and four systems' English
outputs of deliberately different quality: ``Lumen`` (fluent and accurate), ``Kestrel`` (minor
errors: literal word choices), ``Tern`` (major meaning errors: wrong numbers, dropped negations)
and ``Babble`` (word-for-word German order, untranslated words). A good campaign should rank
them in that order.

The campaign shows everything at once: pairwise, 4-way ranking, DA, ESA (contrastive: two outputs
side by side, with ESA^AI spans pre-filled from a made-up "automatic judge" that is right about
most errors and flags one correct phrase), MQM-lite; document context (two segments either side);
DA by document (``document_scores``: one system's document segment by segment, then a score of the
whole document, exported as ``documents``; contrastive ESA stays side by side);
a two-item tutorial; a loud and a silent attention check; degraded outputs and repeats; a quota
of 100 tasks with completion codes; and a stopping rule. (The quota is 100 so that each annotator
scores the documents of two or more systems: DA z-scores are per annotator, and an annotator who
scored one system's document alone has no z-scores to give.) Accounts: annotators ``ann1`` … ``ann3``
and ``organiser``, with the password written in the campaign file (a demo: a real campaign gives
``password_hash``).
"""

from __future__ import annotations

import json
from pathlib import Path

PASSWORD = "demo-password"
FILES = ("campaign.toml", "source.txt", "reference.txt", "documents.txt", "ai_spans.jsonl")

DOCUMENTS = ("harbour",) * 4 + ("recipe",) * 4 + ("support",) * 4 + ("hiking",) * 4
SOURCE = (
    "Der alte Hafen der Stadt wird ab Montag für drei Monate geschlossen.",
    "Die Bauarbeiten sollen die Kaimauer vor weiteren Sturmschäden schützen.",
    "Fischer dürfen ihre Boote vorübergehend im Nachbarort anlegen.",
    "Die Bürgermeisterin rechnet mit Kosten von rund zwei Millionen Euro.",
    "Den Backofen auf 180 Grad vorheizen und eine Form einfetten.",
    "Mehl, Zucker und eine Prise Salz in einer Schüssel vermischen.",
    "Die Eier einzeln unterrühren, bis der Teig glatt ist.",
    "Den Kuchen etwa 40 Minuten backen und vor dem Anschneiden abkühlen lassen.",
    "Vielen Dank für Ihre Geduld, wir haben Ihre Bestellung gefunden.",
    "Das Paket wurde leider an eine falsche Adresse geschickt.",
    "Wir senden Ihnen kostenlos einen Ersatz, der morgen ankommen sollte.",
    "Bitte antworten Sie nicht auf diese E-Mail, sondern nutzen Sie das Kontaktformular.",
    "Der Wanderweg beginnt direkt hinter dem Bahnhof.",
    "Nach etwa einer Stunde erreicht man eine kleine Hütte mit Blick auf den See.",
    "Bei Regen ist der Abstieg über die Felsen rutschig und gefährlich.",
    "Festes Schuhwerk und genug Wasser sind unbedingt zu empfehlen.",
)
REFERENCE = (
    "The town's old harbour will be closed for three months from Monday.",
    "The construction work is meant to protect the quay wall from further storm damage.",
    "Fishermen may moor their boats in the neighbouring village for the time being.",
    "The mayor expects costs of around two million euros.",
    "Preheat the oven to 180 degrees and grease a baking tin.",
    "Mix flour, sugar and a pinch of salt in a bowl.",
    "Stir in the eggs one at a time until the batter is smooth.",
    "Bake the cake for about 40 minutes and let it cool before slicing.",
    "Thank you for your patience, we have found your order.",
    "Unfortunately, the parcel was sent to the wrong address.",
    "We will send you a replacement free of charge, which should arrive tomorrow.",
    "Please do not reply to this email; use the contact form instead.",
    "The hiking trail starts right behind the railway station.",
    "After about an hour you reach a small hut overlooking the lake.",
    "When it rains, the descent over the rocks is slippery and dangerous.",
    "Sturdy footwear and enough water are strongly recommended.",
)
SYSTEMS = {
    "Lumen": (
        "The old harbour of the town will be closed for three months starting Monday.",
        "The construction work is intended to protect the quay wall from further storm damage.",
        "Fishermen can temporarily moor their boats in the neighbouring village.",
        "The mayor expects costs of about two million euros.",
        "Preheat the oven to 180 degrees and grease a cake tin.",
        "Mix the flour, sugar and a pinch of salt in a bowl.",
        "Beat in the eggs one by one until the batter is smooth.",
        "Bake the cake for about 40 minutes and let it cool before cutting.",
        "Thank you for your patience; we have located your order.",
        "Unfortunately, the package was sent to a wrong address.",
        "We will send you a free replacement, which should arrive tomorrow.",
        "Please do not reply to this email but use the contact form.",
        "The hiking trail begins directly behind the train station.",
        "After about an hour you reach a small hut with a view of the lake.",
        "In rain, the descent over the rocks is slippery and dangerous.",
        "Sturdy shoes and enough water are highly recommended.",
    ),
    "Kestrel": (
        "The old port of the city is closed from Monday for three months.",
        "The building works should protect the quay wall against more storm damages.",
        "Fishers may dock their boats temporarily in the next village.",
        "The mayoress reckons with costs of around two million euro.",
        "Preheat the oven at 180 degrees and grease a form.",
        "Mix flour, sugar and a pinch salt in a bowl.",
        "Stir the eggs in individually until the dough is smooth.",
        "Bake the cake about 40 minutes and let it cool off before cutting.",
        "Many thanks for your patience, we found your order.",
        "The package was sent unfortunately to a false address.",
        "We send you free of charge a replacement that should arrive tomorrow.",
        "Please don't answer this e-mail, but use the contact form.",
        "The hiking path starts directly behind the station.",
        "After roughly one hour one reaches a small cabin with view on the lake.",
        "With rain the descent over the rocks is slippery and dangerous.",
        "Solid footwear and enough water are absolutely to recommend.",
    ),
    "Tern": (
        "The old harbour of the city will be opened for three weeks from Monday.",
        "The construction should protect the wall from storms.",
        "Fishermen must moor their boats in the neighbouring village forever.",
        "The mayor expects costs of around two billion euros.",
        "Heat the oven to 80 degrees and grease a shape.",
        "Mix flour, salt and a pinch of sugar in a bowl.",
        "Stir the eggs under until the dough is flat.",
        "Bake the cake for 40 hours and let it cool before slicing.",
        "Thank you for your patience, we have lost your order.",
        "The parcel was sent to the right address.",
        "We send you a replacement for a fee, which arrived yesterday.",
        "Please reply to this email and use the contact form.",
        "The hiking trail ends right in front of the station.",
        "After an hour you reach a big house by the sea.",
        "In rain the ascent over the rocks is dry and safe.",
        "Solid shoes and enough beer are recommended.",
    ),
    "Babble": (
        "The old Hafen of the city becomes from Monday for three months closed.",
        "The Bauarbeiten shall the quay wall before further storm damages protect.",
        "Fisher allowed their boats temporary in the neighbour place to put.",
        "The Bürgermeisterin calculates with costs of round two million.",
        "The baking oven on 180 degrees preheat and a form fat in.",
        "Flour, sugar and a Prise salt in a bowl mix.",
        "The eggs single under stir, until the dough smooth is.",
        "The cake about 40 minutes bake and before the cutting cool let.",
        "Many thanks for your patience, we have your order found.",
        "The package became unfortunately to a false address sent.",
        "We send you costless a replacement, the tomorrow arrive should.",
        "Please answer you not on this E-Mail, but use you the contact form.",
        "The hiking way begins directly behind the Bahnhof.",
        "After about an hour reaches one a small hut with look on the lake.",
        "At rain is the descent over the rocks slippery and dangerous.",
        "Firm shoe work and enough water are unconditionally to recommend.",
    ),
}
# the made-up automatic judge's error spans (ESA^AI): (system, segment 1-based, phrase, severity);
# mostly right, one false alarm on Lumen's correct "cake tin" for the annotator to remove
AI_SPANS = (("Tern", 1, "opened", "major"), ("Tern", 1, "three weeks", "major"), ("Tern", 4, "billion", "major"),
            ("Tern", 5, "80 degrees", "major"), ("Tern", 5, "a shape", "minor"), ("Tern", 8, "40 hours", "major"),
            ("Tern", 9, "lost", "major"), ("Tern", 12, "Please reply", "major"), ("Tern", 14, "big house by the sea",
                                                                                     "major"),
            ("Tern", 16, "beer", "major"), ("Kestrel", 1, "city", "minor"), ("Kestrel", 4, "reckons with", "minor"),
            ("Kestrel", 5, "a form", "minor"), ("Kestrel", 10, "false address", "minor"),
            ("Kestrel", 16, "absolutely to recommend", "minor"), ("Babble", 1, "Hafen", "major"),
            ("Babble", 2, "Bauarbeiten", "major"), ("Babble", 4, "Bürgermeisterin", "major"),
            ("Babble", 7, "The eggs single under stir", "major"), ("Babble", 13, "Bahnhof", "major"),
            ("Lumen", 5, "cake tin", "minor"))

CAMPAIGN = '''name = "demo"
track = "deu-eng"
tasks = ["pairwise", "ranking", "da", "esa", "mqm"]
strategy = "trueskill"
k = 4
contrastive = 2
context = 2
document_scores = true
seed = 1
database = "demo.sqlite"
quota = 100
leaderboard_interval = {leaderboard_interval}
bootstrap = {bootstrap}

[data]
source = "source.txt"
reference = "reference.txt"
documents = "documents.txt"
ai_spans = "ai_spans.jsonl"

[data.systems]
{systems}

[quality]
bad_reference = 0.1
repeat = 0.05
checks = 0.1

[stop]
width = 1.0
p_top = 0.9

[completion]
code = "DEMO-7Q2K"
failed_code = "DEMO-CHECK"
max_failed = 1

[[tutorial]]
type = "pairwise"
source = "Der Hund bellt den Briefträger an."
outputs = ["The dog barks at the postman.", "The cat barks at the postman."]
answer = 1
feedback = "The second translation turns the dog into a cat: a meaning error, so the first is better."

[[tutorial]]
type = "da"
source = "Die Katze schläft auf dem Sofa."
outputs = ["The cat sleeps on the roof."]
answer = [0, 60]
feedback = "\\"Roof\\" should be \\"sofa\\": the meaning is wrong, so the score belongs well below the middle."

[[checks]]
type = "da"
source = "Bitte geben Sie dieser Übersetzung eine Punktzahl unter 10."
outputs = ["Please give this translation a score below 10."]
answer = [0, 9]
feedback = "The text asked for a score below 10."

[[checks]]
type = "pairwise"
source = "Der Zug hat heute zehn Minuten Verspätung."
outputs = ["The train is ten minutes late today.", "Banana window seventeen quickly sings."]
answer = 1
loud = false
'''


def write_demo(folder, leaderboard_interval: float = 5.0, bootstrap: int = 200) -> Path:
    """Write the demo's texts and campaign file under ``folder``; returns the campaign file."""
    folder = Path(folder)
    (folder / "systems").mkdir(parents=True, exist_ok=True)
    for name, lines in (("source.txt", SOURCE), ("reference.txt", REFERENCE), ("documents.txt", DOCUMENTS),
                        *((f"systems/{s}.txt", text) for s, text in SYSTEMS.items())):
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    spans: dict[tuple[str, int], list] = {}
    for system, item, phrase, severity in AI_SPANS:
        start = SYSTEMS[system][item - 1].index(phrase)
        spans.setdefault((system, item), []).append({"start_i": start, "end_i": start + len(phrase),
                                                      "severity": severity})
    (folder / "ai_spans.jsonl").write_text(
        "".join(json.dumps({"system": s, "item": i, "spans": x}, ensure_ascii=False) + "\n"
                for (s, i), x in spans.items()), encoding="utf-8")
    toml = CAMPAIGN.format(leaderboard_interval=leaderboard_interval, bootstrap=bootstrap,
                           systems="\n".join(f'{s} = "systems/{s}.txt"' for s in SYSTEMS))
    for i in range(3):
        toml += f'\n[[accounts]]\nname = "ann{i + 1}"\nrole = "annotator"\npassword = "{PASSWORD}"\n'
    toml += f'\n[[accounts]]\nname = "organiser"\nrole = "organiser"\npassword = "{PASSWORD}"\n'
    path = folder / "campaign.toml"
    path.write_text(toml, encoding="utf-8")
    return path
