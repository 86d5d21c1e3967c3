"""How long each free-text option of a command may be, declared to Discord as its ``max_length``.

The Discord client stops typing there, and the command tree (``bot.client``) refuses a longer value
a stale or forged client sends, before any command runs. Each bound fits the option's purpose with
room for the spaces and long forms the notation forgives; none comes near the 6,000 characters a
string option could otherwise carry, or the 2,000 a reply may hold.
"""

from __future__ import annotations

from typing import Final

from bot.rules.veletas import VARIANTS

# A move: "j10-a10/j10" is the longest canonical one (11); spaces and the long form d4/g2 fit too.
MAX_MOVE: Final = 32
# A time control: "48h+12h/96h" or "3 days per move", with spaces.
MAX_TIME: Final = 32
# A square: "j10", with spaces around it.
MAX_SQUARE: Final = 8
# A setup turn's shooters: at most four squares of three characters, any separators.
MAX_SHOOTERS: Final = 64
# A position string on the largest board: every square a piece, the rank slashes, " b", plus spaces.
_LARGEST: Final = max(variant.size for variant in VARIANTS.values())
MAX_POSITION: Final = _LARGEST * _LARGEST + _LARGEST + 1 + 32
