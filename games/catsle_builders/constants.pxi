# CATsle Builders' constants, one source for the compiled code that needs them at compile
# time: the rules core (core.pyx) and the heuristic's estimates
# (policies/heuristics/catsle_estimates.pyx) include this file.

# The game's constants, exported to Python by the core (state.py, layout.py, options.py,
# the heuristic and the views import them from catzoo.games.catsle_builders.core).
cpdef enum:
    NUM_SUITS = 5
    VALUES = 12
    NUM_CARDS = 60
    NUM_ROUNDS = 3          # [S] the full game; "single" plays one
    MIN_PLAYERS = 3
    MAX_PLAYERS = 5
    # phases
    PLAY = 0
    TAKE = 1
    COLUMN = 2
    NUM_PHASES = 3
    # the flat action space
    PLAY_BASE = 0
    TAKE_BASE = 60
    COLUMN_BASE = 120
    NUM_ACTIONS = 125
    MAX_COLUMNS = 5         # 4 limited columns at most, then the 0 column
    # observation blocks (layout.py): a column is suit one-hot, cards / 5, room / 5,
    # limit / 5; a card is suit one-hot then value one-hot; a rating is one-hot
    COLUMN_FEATURES = 8
    BOARD_FEATURES = 40
    CARD_FEATURES = 17
    RANK_FEATURES = 5

# offsets inside the observation's features
cdef enum:
    F_COUNT = NUM_SUITS     # offsets inside a column's features
    F_ROOM = NUM_SUITS + 1
    F_LIMIT = NUM_SUITS + 2
    F_VALUE = NUM_SUITS     # offset of the value one-hot inside a card's features
