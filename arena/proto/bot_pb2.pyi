from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_FIRST_UPCARD: _ClassVar[Phase]
    PHASE_DRAW: _ClassVar[Phase]
    PHASE_DISCARD: _ClassVar[Phase]
    PHASE_DEFEND: _ClassVar[Phase]
    PHASE_LAST_DISCARD: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]
PHASE_UNSPECIFIED: Phase
PHASE_FIRST_UPCARD: Phase
PHASE_DRAW: Phase
PHASE_DISCARD: Phase
PHASE_DEFEND: Phase
PHASE_LAST_DISCARD: Phase
PHASE_PLAY: Phase
PHASE_OVER: Phase

class HandshakeRequest(_message.Message):
    __slots__ = ("protocol_version", "referee")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    REFEREE_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    referee: str
    def __init__(self, protocol_version: _Optional[int] = ..., referee: _Optional[str] = ...) -> None: ...

class HandshakeReply(_message.Message):
    __slots__ = ("name", "author", "version", "protocol_version", "games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    author: str
    version: str
    protocol_version: int
    games: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., author: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[int] = ..., games: _Optional[_Iterable[str]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("match_start", "game_start", "hand_start", "decision", "hand_end", "game_end", "match_end", "notice")
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    HAND_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    HAND_END_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    match_start: MatchStart
    game_start: GameStart
    hand_start: HandStart
    decision: DecisionRequest
    hand_end: HandEnd
    game_end: GameEnd
    match_end: MatchEnd
    notice: Notice
    def __init__(self, match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., game_start: _Optional[_Union[GameStart, _Mapping]] = ..., hand_start: _Optional[_Union[HandStart, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., hand_end: _Optional[_Union[HandEnd, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., notice: _Optional[_Union[Notice, _Mapping]] = ...) -> None: ...

class BotMessage(_message.Message):
    __slots__ = ("decision",)
    DECISION_FIELD_NUMBER: _ClassVar[int]
    decision: DecisionReply
    def __init__(self, decision: _Optional[_Union[DecisionReply, _Mapping]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("startup_ms", "decision_ms", "bank_ms")
    STARTUP_MS_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    startup_ms: int
    decision_ms: int
    bank_ms: int
    def __init__(self, startup_ms: _Optional[int] = ..., decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game_id", "rules", "seat", "num_seats", "players", "games", "time_control", "hands_only", "seed_commitment")
    class RulesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_SEATS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    HANDS_ONLY_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game_id: str
    rules: _containers.ScalarMap[str, str]
    seat: int
    num_seats: int
    players: _containers.RepeatedScalarFieldContainer[str]
    games: int
    time_control: TimeControl
    hands_only: bool
    seed_commitment: bytes
    def __init__(self, match_id: _Optional[str] = ..., game_id: _Optional[str] = ..., rules: _Optional[_Mapping[str, str]] = ..., seat: _Optional[int] = ..., num_seats: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., games: _Optional[int] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., hands_only: _Optional[bool] = ..., seed_commitment: _Optional[bytes] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("game_number",)
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    game_number: int
    def __init__(self, game_number: _Optional[int] = ...) -> None: ...

class HandStart(_message.Message):
    __slots__ = ("game_number", "hand_number", "dealer", "hand", "scores")
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    game_number: int
    hand_number: int
    dealer: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game_number: _Optional[int] = ..., hand_number: _Optional[int] = ..., dealer: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "observation", "events", "legal_actions", "clock")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    observation: Observation
    events: _containers.RepeatedCompositeFieldContainer[Event]
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    clock: Clock
    def __init__(self, request_id: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("decision_ms", "bank_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class DecisionReply(_message.Message):
    __slots__ = ("request_id", "legal_index", "action", "comment")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    LEGAL_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    legal_index: int
    action: Action
    comment: str
    def __init__(self, request_id: _Optional[int] = ..., legal_index: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., comment: _Optional[str] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("game_id", "seat", "num_seats", "dealer", "phase", "to_act", "game_number", "hand_number", "hand", "discard_pile", "stock_size", "seats", "table", "forbidden_discard", "gin", "rummy")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_SEATS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    FORBIDDEN_DISCARD_FIELD_NUMBER: _ClassVar[int]
    GIN_FIELD_NUMBER: _ClassVar[int]
    RUMMY_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    num_seats: int
    dealer: int
    phase: Phase
    to_act: int
    game_number: int
    hand_number: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    stock_size: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    table: _containers.RepeatedCompositeFieldContainer[Meld]
    forbidden_discard: str
    gin: GinView
    rummy: RummyView
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., num_seats: _Optional[int] = ..., dealer: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., game_number: _Optional[int] = ..., hand_number: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., discard_pile: _Optional[_Iterable[str]] = ..., stock_size: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., table: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., forbidden_discard: _Optional[str] = ..., gin: _Optional[_Union[GinView, _Mapping]] = ..., rummy: _Optional[_Union[RummyView, _Mapping]] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("hand_size", "known_cards", "score", "eliminated")
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    KNOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    hand_size: int
    known_cards: _containers.RepeatedScalarFieldContainer[str]
    score: int
    eliminated: bool
    def __init__(self, hand_size: _Optional[int] = ..., known_cards: _Optional[_Iterable[str]] = ..., score: _Optional[int] = ..., eliminated: _Optional[bool] = ...) -> None: ...

class GinView(_message.Message):
    __slots__ = ("knock_limit", "doubled", "knocker", "knocker_unmatched")
    KNOCK_LIMIT_FIELD_NUMBER: _ClassVar[int]
    DOUBLED_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_UNMATCHED_FIELD_NUMBER: _ClassVar[int]
    knock_limit: int
    doubled: bool
    knocker: int
    knocker_unmatched: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, knock_limit: _Optional[int] = ..., doubled: _Optional[bool] = ..., knocker: _Optional[int] = ..., knocker_unmatched: _Optional[_Iterable[str]] = ...) -> None: ...

class RummyView(_message.Message):
    __slots__ = ("reshuffles", "max_reshuffles", "melded_this_hand")
    RESHUFFLES_FIELD_NUMBER: _ClassVar[int]
    MAX_RESHUFFLES_FIELD_NUMBER: _ClassVar[int]
    MELDED_THIS_HAND_FIELD_NUMBER: _ClassVar[int]
    reshuffles: int
    max_reshuffles: int
    melded_this_hand: bool
    def __init__(self, reshuffles: _Optional[int] = ..., max_reshuffles: _Optional[int] = ..., melded_this_hand: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("draw", "discard", "knock", "defend", "lay_meld", "lay_off", "swap_joker")
    DRAW_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    KNOCK_FIELD_NUMBER: _ClassVar[int]
    DEFEND_FIELD_NUMBER: _ClassVar[int]
    LAY_MELD_FIELD_NUMBER: _ClassVar[int]
    LAY_OFF_FIELD_NUMBER: _ClassVar[int]
    SWAP_JOKER_FIELD_NUMBER: _ClassVar[int]
    draw: Draw
    discard: Discard
    knock: Knock
    defend: Defend
    lay_meld: LayMeld
    lay_off: LayOff
    swap_joker: SwapJoker
    def __init__(self, draw: _Optional[_Union[Draw, _Mapping]] = ..., discard: _Optional[_Union[Discard, _Mapping]] = ..., knock: _Optional[_Union[Knock, _Mapping]] = ..., defend: _Optional[_Union[Defend, _Mapping]] = ..., lay_meld: _Optional[_Union[LayMeld, _Mapping]] = ..., lay_off: _Optional[_Union[LayOff, _Mapping]] = ..., swap_joker: _Optional[_Union[SwapJoker, _Mapping]] = ..., **kwargs) -> None: ...

class Draw(_message.Message):
    __slots__ = ("source",)
    class Source(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SOURCE_UNSPECIFIED: _ClassVar[Draw.Source]
        SOURCE_STOCK: _ClassVar[Draw.Source]
        SOURCE_DISCARD: _ClassVar[Draw.Source]
    SOURCE_UNSPECIFIED: Draw.Source
    SOURCE_STOCK: Draw.Source
    SOURCE_DISCARD: Draw.Source
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    source: Draw.Source
    def __init__(self, source: _Optional[_Union[Draw.Source, str]] = ...) -> None: ...

class Pass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Discard(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class Meld(_message.Message):
    __slots__ = ("cards", "stands_for", "id", "owner")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    stands_for: _containers.RepeatedScalarFieldContainer[str]
    id: int
    owner: int
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., stands_for: _Optional[_Iterable[str]] = ..., id: _Optional[int] = ..., owner: _Optional[int] = ...) -> None: ...

class Layoff(_message.Message):
    __slots__ = ("card", "meld_id", "stands_for")
    CARD_FIELD_NUMBER: _ClassVar[int]
    MELD_ID_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    card: str
    meld_id: int
    stands_for: str
    def __init__(self, card: _Optional[str] = ..., meld_id: _Optional[int] = ..., stands_for: _Optional[str] = ...) -> None: ...

class Knock(_message.Message):
    __slots__ = ("card", "melds")
    CARD_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    card: str
    melds: _containers.RepeatedCompositeFieldContainer[Meld]
    def __init__(self, card: _Optional[str] = ..., melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ...) -> None: ...

class Defend(_message.Message):
    __slots__ = ("melds", "layoffs")
    MELDS_FIELD_NUMBER: _ClassVar[int]
    LAYOFFS_FIELD_NUMBER: _ClassVar[int]
    melds: _containers.RepeatedCompositeFieldContainer[Meld]
    layoffs: _containers.RepeatedCompositeFieldContainer[Layoff]
    def __init__(self, melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., layoffs: _Optional[_Iterable[_Union[Layoff, _Mapping]]] = ...) -> None: ...

class LayMeld(_message.Message):
    __slots__ = ("meld",)
    MELD_FIELD_NUMBER: _ClassVar[int]
    meld: Meld
    def __init__(self, meld: _Optional[_Union[Meld, _Mapping]] = ...) -> None: ...

class LayOff(_message.Message):
    __slots__ = ("layoff",)
    LAYOFF_FIELD_NUMBER: _ClassVar[int]
    layoff: Layoff
    def __init__(self, layoff: _Optional[_Union[Layoff, _Mapping]] = ...) -> None: ...

class SwapJoker(_message.Message):
    __slots__ = ("card", "meld_id")
    CARD_FIELD_NUMBER: _ClassVar[int]
    MELD_ID_FIELD_NUMBER: _ClassVar[int]
    card: str
    meld_id: int
    def __init__(self, card: _Optional[str] = ..., meld_id: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("kind", "seat", "card", "melds", "cards", "layoffs")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[Event.Kind]
        KIND_UPCARD: _ClassVar[Event.Kind]
        KIND_PASS: _ClassVar[Event.Kind]
        KIND_DRAW_STOCK: _ClassVar[Event.Kind]
        KIND_DRAW_DISCARD: _ClassVar[Event.Kind]
        KIND_DISCARD: _ClassVar[Event.Kind]
        KIND_KNOCK: _ClassVar[Event.Kind]
        KIND_DEFEND: _ClassVar[Event.Kind]
        KIND_LAY_MELD: _ClassVar[Event.Kind]
        KIND_LAY_OFF: _ClassVar[Event.Kind]
        KIND_SWAP_JOKER: _ClassVar[Event.Kind]
        KIND_RESHUFFLE: _ClassVar[Event.Kind]
        KIND_HAND_OVER: _ClassVar[Event.Kind]
    KIND_UNSPECIFIED: Event.Kind
    KIND_UPCARD: Event.Kind
    KIND_PASS: Event.Kind
    KIND_DRAW_STOCK: Event.Kind
    KIND_DRAW_DISCARD: Event.Kind
    KIND_DISCARD: Event.Kind
    KIND_KNOCK: Event.Kind
    KIND_DEFEND: Event.Kind
    KIND_LAY_MELD: Event.Kind
    KIND_LAY_OFF: Event.Kind
    KIND_SWAP_JOKER: Event.Kind
    KIND_RESHUFFLE: Event.Kind
    KIND_HAND_OVER: Event.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    LAYOFFS_FIELD_NUMBER: _ClassVar[int]
    kind: Event.Kind
    seat: int
    card: str
    melds: _containers.RepeatedCompositeFieldContainer[Meld]
    cards: _containers.RepeatedScalarFieldContainer[str]
    layoffs: _containers.RepeatedCompositeFieldContainer[Layoff]
    def __init__(self, kind: _Optional[_Union[Event.Kind, str]] = ..., seat: _Optional[int] = ..., card: _Optional[str] = ..., melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., cards: _Optional[_Iterable[str]] = ..., layoffs: _Optional[_Iterable[_Union[Layoff, _Mapping]]] = ...) -> None: ...

class SeatReveal(_message.Message):
    __slots__ = ("hand", "melds", "layoffs", "unmatched", "deadwood", "points")
    HAND_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    LAYOFFS_FIELD_NUMBER: _ClassVar[int]
    UNMATCHED_FIELD_NUMBER: _ClassVar[int]
    DEADWOOD_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    melds: _containers.RepeatedCompositeFieldContainer[Meld]
    layoffs: _containers.RepeatedCompositeFieldContainer[Layoff]
    unmatched: _containers.RepeatedScalarFieldContainer[str]
    deadwood: int
    points: int
    def __init__(self, hand: _Optional[_Iterable[str]] = ..., melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., layoffs: _Optional[_Iterable[_Union[Layoff, _Mapping]]] = ..., unmatched: _Optional[_Iterable[str]] = ..., deadwood: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class HandEnd(_message.Message):
    __slots__ = ("game_number", "hand_number", "termination", "winner", "seats", "scores", "knock_discard")
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    KNOCK_DISCARD_FIELD_NUMBER: _ClassVar[int]
    game_number: int
    hand_number: int
    termination: str
    winner: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatReveal]
    scores: _containers.RepeatedScalarFieldContainer[int]
    knock_discard: str
    def __init__(self, game_number: _Optional[int] = ..., hand_number: _Optional[int] = ..., termination: _Optional[str] = ..., winner: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatReveal, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., knock_discard: _Optional[str] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("game_number", "scores", "ranks", "winner", "reason")
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    game_number: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    reason: str
    def __init__(self, game_number: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("wins", "reason", "seed", "seed_salt")
    WINS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEED_SALT_FIELD_NUMBER: _ClassVar[int]
    wins: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    seed: int
    seed_salt: bytes
    def __init__(self, wins: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., seed: _Optional[int] = ..., seed_salt: _Optional[bytes] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...
