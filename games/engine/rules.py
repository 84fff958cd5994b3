"""House-rule profiles: one frozen object, converted to and from the JSON of rules.md section 4."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from .jsontext import shown

EndCondition = Literal["first_out", "last_standing"]
CleanHand = Literal["four_face", "face_and_one_seven"]
ChallengeScoring = Literal["single", "each_challenger"]
DirtyPenalty = Literal["life", "open_hand", "life_and_open_hand"]
Poverty = Literal["off", "stake_two", "stake_two_poor_leads"]
KnockCap = Literal["lives", "none"]
ResponseOrder = Literal["sequential", "simultaneous"]
SuitOrder = Literal["HSDC", "HDSC"]

MAX_SEATS: Final = 8


RulesErrorCode = Literal[
    "object", "unknown", "null", "boolean", "choice", "integer", "range", "needs_pot", "pot_end"
]

MAX_POT_STAKE: Final = 100_000  # cents
MAX_BUY_BACK: Final = 3


class RulesError(ValueError):
    """A house-rule profile that is not valid; `field` names the culprit (None: the whole).

    `code` says what kind of fault it is and `params` holds its values (`value`, `options`,
    `minimum`, `maximum`), so an interface can say it in its own words and language."""

    def __init__(
        self,
        field: str | None,
        message: str,
        code: RulesErrorCode = "object",
        params: dict[str, object] | None = None,
    ) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message
        self.code = code
        self.params = params or {}


@dataclass(frozen=True, slots=True)
class HouseRules:
    """Every house rule of rules.md section 4, defaulting to the classic rules."""

    starting_lives: int = 10
    end_condition: EndCondition = "first_out"
    min_players: int = 3
    exchange: bool = True
    exchange_limit: int = 1
    clean_hand: CleanHand = "four_face"
    challenge_scoring: ChallengeScoring = "single"
    dirty_penalty: DirtyPenalty = "life"
    poverty: Poverty = "off"
    knock_cap: KnockCap = "lives"
    max_knocks_per_player: int | None = None
    response_order: ResponseOrder = "sequential"
    response_seconds: int = 8
    voluntary_fold: bool = False
    folded_card_wins: bool = True
    suit_order: SuitOrder = "HSDC"
    announcements: bool = True
    away_conventions: bool = True
    pot_stake: int = 0
    buy_back: int = 0

    def __post_init__(self) -> None:
        for name, value in dataclasses.asdict(self).items():
            _check_field(name, value)
        # Fields that only hold together (rules.md 3.10): a pot is played to the last one
        # standing, and buying back in is buying into a pot.
        if self.pot_stake and self.end_condition != "last_standing":
            raise RulesError(
                "end_condition", "a rubber with a pot is played last_standing", "pot_end"
            )
        if self.buy_back and not self.pot_stake:
            raise RulesError(
                "buy_back", "buying back in needs a pot (pot_stake above 0)", "needs_pot"
            )

    @property
    def pot(self) -> bool:
        """Whether rubbers under these rules are played for a pot (rules.md 3.10)."""
        return self.pot_stake > 0

    @classmethod
    def from_json(cls, data: object) -> HouseRules:
        """A profile from its JSON object; missing fields take their defaults."""
        if not isinstance(data, Mapping):
            raise RulesError(None, "a house-rule profile must be a JSON object", "object")
        unknown = sorted(str(key) for key in data if key not in FIELDS)
        if unknown:
            raise RulesError(unknown[0], "unknown house rule", "unknown")
        for name, value in data.items():
            _check_field(name, value)
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        """Every field, by its JSON name."""
        return {name: getattr(self, name) for name in FIELDS}

    def changes(self) -> dict[str, Any]:
        """Only the fields that differ from the classic defaults."""
        return {
            name: value for name, value in self.to_json().items() if value != FIELDS[name].default
        }


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """What a field may hold: `choices` for enumerations and booleans, a range for numbers."""

    name: str
    default: object
    choices: tuple[object, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False

    def check(self, value: object) -> None:
        if value is None:
            if self.nullable:
                return
            raise RulesError(self.name, "may not be null", "null")
        if isinstance(self.default, bool):
            if not isinstance(value, bool):
                raise RulesError(self.name, "must be true or false", "boolean", {"value": value})
            return
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                options = ", ".join(str(choice) for choice in self.choices)
                raise RulesError(
                    self.name,
                    f"must be one of {options}, not {shown(value)}",
                    "choice",
                    {"options": self.choices, "value": value},
                )
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(
                self.name,
                f"must be a whole number, not {shown(value)}",
                "integer",
                {"value": value},
            )
        if (
            self.minimum is not None
            and self.maximum is not None
            and not self.minimum <= value <= self.maximum
        ):
            raise RulesError(
                self.name,
                f"must be from {self.minimum} to {self.maximum}, not {shown(value)}",
                "range",
                {"minimum": self.minimum, "maximum": self.maximum, "value": value},
            )


FIELDS: Final[dict[str, FieldSpec]] = {
    spec.name: spec
    for spec in (
        FieldSpec("starting_lives", 10, minimum=1, maximum=30),
        FieldSpec("end_condition", "first_out", ("first_out", "last_standing")),
        FieldSpec("min_players", 3, minimum=2, maximum=3),
        FieldSpec("exchange", True),
        FieldSpec("exchange_limit", 1, minimum=1, maximum=3),
        FieldSpec("clean_hand", "four_face", ("four_face", "face_and_one_seven")),
        FieldSpec("challenge_scoring", "single", ("single", "each_challenger")),
        FieldSpec("dirty_penalty", "life", ("life", "open_hand", "life_and_open_hand")),
        FieldSpec("poverty", "off", ("off", "stake_two", "stake_two_poor_leads")),
        FieldSpec("knock_cap", "lives", ("lives", "none")),
        FieldSpec("max_knocks_per_player", None, minimum=1, maximum=MAX_SEATS, nullable=True),
        FieldSpec("response_order", "sequential", ("sequential", "simultaneous")),
        FieldSpec("response_seconds", 8, minimum=2, maximum=60),
        FieldSpec("voluntary_fold", False),
        FieldSpec("folded_card_wins", True),
        FieldSpec("suit_order", "HSDC", ("HSDC", "HDSC")),
        FieldSpec("announcements", True),
        FieldSpec("away_conventions", True),
        FieldSpec("pot_stake", 0, minimum=0, maximum=MAX_POT_STAKE),
        FieldSpec("buy_back", 0, minimum=0, maximum=MAX_BUY_BACK),
    )
}


def _check_field(name: str, value: object) -> None:
    spec = FIELDS.get(name)
    if spec is None:
        raise RulesError(name, "unknown house rule", "unknown")
    spec.check(value)


CLASSIC: Final = HouseRules()
KROEG: Final = HouseRules(
    starting_lives=15,
    poverty="stake_two_poor_leads",
    response_order="simultaneous",
    challenge_scoring="each_challenger",
)
SIWWESCHROOM: Final = HouseRules(
    starting_lives=7,
    end_condition="last_standing",
    min_players=2,
    announcements=False,
    voluntary_fold=True,
)
TOURNAMENT: Final = HouseRules(
    response_order="sequential", response_seconds=20, away_conventions=False
)

BUILT_IN_PROFILES: Final[dict[str, HouseRules]] = {
    "classic": CLASSIC,
    "kroeg": KROEG,
    "siwweschroom": SIWWESCHROOM,
    "tournament": TOURNAMENT,
}
