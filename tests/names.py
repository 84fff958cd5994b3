"""Display names that would deceive the people at a table, shared by the tests of every form
that takes one (a guest's, a profile's, a seat's)."""

# Names that show nothing: zero-width spaces and joiners, a soft hyphen, a word joiner and a
# byte-order mark, Hangul fillers, the blank Braille pattern, a lone combining mark.
LOOK_BLANK = [
    "\u200b\u200b",
    "\u200c\u200d",
    "\u00ad",
    "\u2060\ufeff",
    "\u3164",
    "\u115f\u1160",
    "\u2800",
    "\u034f",
]
# Names that turn the text after them around: overrides, embeddings, isolates, marks.
TURN_TEXT = [
    "\u202eanna",
    "Bram\u202d",
    "\u202bKees",
    "Femke\u2066",
    "\u2067Gijs\u2069",
    "Lotte\u200f",
    "\u061cNoor",
]
DECEPTIVE = LOOK_BLANK + TURN_TEXT
