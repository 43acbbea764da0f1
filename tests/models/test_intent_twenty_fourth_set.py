"""Prohibitions by form, twenty-fourth set, in en/pl/ru (issue 11, point 10): the forms heldout44 (a school and a
college) showed, in phrasings of my own.

- what is kept private ("keep it under your hat", "niech to zostanie między nami", "это строго между нами") no one
  else is to have: neither sent nor published, unless the message withholds a letter from its addressee; a
  discourse marker opening its clause ("Between you and me: …") confides and keeps nothing;
- a cc: "don't cc the parents", "form tutors don't get copied in";
- a thing deferred as the subject of "wait": "the upgrade itself can wait", "the patches themselves wait";
- a device's state cleared or acknowledged ("don't reset anything on the alarm panel"), or a device not to be gone
  near ("don't go near the gas valve");
- a place arrived at, fronted before the verb ("Na grupę klasy to nie trafia", "В общий чат это попасть не должно");
  kept off a shared drive or calendar; put up on a screen where a group passes;
- what the speaker asks to be reminded of is theirs to do, not a condition on the agent.

Measured against the code before these rules: 18 of the 25 cases fail there; the 7 that pass are guards that must
stay as they were (a letter kept private, a discourse marker, the Russian reminder, "на пульте ничего не квитируй",
which the embedding fallback already read, and three commands that forbid nothing).
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, F, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # kept private: neither sent nor published
        ("Summarise the inspection notes and keep it under your hat until Monday.", [X, P]),
        ("Zestaw oceny z próbnej matury, ale niech to zostanie między nami.", [X, P]),
        ("Сделай сводку по пропускам. Это пока строго между нами, завуч ещё не видела.", [X, P]),
        ("Przygotuj porównanie ofert na autokar. To ma zostać między nami.", [X, P]),
        # ... but a letter kept private is only not sent
        ("Draft the reply to the parents and keep it to yourself for now.", [X]),
        # a discourse marker confides what follows
        ("Between you and me: the inspector must not get the draft.", [X]),
        # a cc
        ("Don't cc the parents on this.", [X]),
        ("The heads of year don't get copied in.", [X]),
        ("The tutors shouldn't be cc'd on the list.", [X]),
        # deferred as the subject of "wait"
        ("List the lab PCs on the old build. The patches themselves wait until the exams are over.", [INST]),
        ("The patch itself waits for the holidays.", [INST]),
        # a device left alone
        ("Go through the fire log, but don't acknowledge anything on the panel.", [F]),
        ("Na centrali nic nie kasuj.", [F]),
        ("На пульте ничего не квитируй.", [F]),
        ("Don't go near the stopcock yourself, the plumber is coming.", [F]),
        # a place arrived at, fronted; kept off a shared place; put up on a screen
        ("Na grupę klasy na Messengerze to nie trafia.", [P]),
        ("В общий чат класса это попасть не должно.", [P]),
        ("It stays off the shared drive until the head signs it.", [P]),
        ("Keep the exam timetable off the shared calendar for now.", [P]),
        ("Nothing goes up on the corridor screen until I've checked it.", [P]),
        # the speaker's own errand
        ("Book the hall for Friday, and remind me to email the parents once it's confirmed.", []),
        ("Напомни мне отправить список родителям, когда директор подпишет.", []),
        # negatives of the new words
        ("Reset the panel layout in the timetable app, please.", []),
        ("Copy in the files from the USB stick.", []),
        ("Share your screen with me during the call.", []),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects
