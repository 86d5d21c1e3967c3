"""The looks a board can be drawn in: each theme's colours and shapes, and colour arithmetic.

Every sprite, palette and layer is keyed by a ``Theme``; the bot stores each player's choice by its name.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]


@dataclass(frozen=True)
class Theme:
    """Colours and shapes of one look; the bot stores each player's choice by ``name``."""

    name: str
    label: str  # what a player picking a theme reads
    background: RGB
    text: RGB
    muted: RGB
    accent: RGB
    light: RGB
    dark: RGB
    frame: RGB
    shooter: RGB
    shooter_rim: RGB
    black: RGB
    black_rim: RGB
    white: RGB
    white_rim: RGB
    move: RGB  # tint of the squares a move left and reached, and of setup placements
    move_line: RGB
    shot: RGB  # tint of the square just shot
    shot_line: RGB
    claim: RGB  # ring around shooters claimed by the last move
    hint: RGBA  # destination dots and target rings
    hatch: RGBA  # stripes on squares where no shooter may be placed
    shadow: int = 0  # alpha of the soft shadow under pieces, 0 for none
    tint: float = 0.5  # how strongly a highlight tint covers a square
    shaded: bool = True  # pieces lit from the upper left; flat in the contrast theme
    square_shooters: bool = False  # shooters as rounded squares, so they differ from stones by shape too
    marked_claims: bool = False  # a claimed shooter's cap carries a dot of the other colour

    # Every sprite cache is keyed by the theme: hashing its 27 fields once, not on each lookup.
    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in fields(self)))


DEFAULT_THEME = "light"
"""The theme of boards for players who never chose one."""

THEMES: dict[str, Theme] = {
    theme.name: theme
    for theme in (
        Theme(
            name="light",
            label="Light: a warm wooden board",
            background=(246, 241, 232),
            text=(43, 36, 28),
            muted=(110, 96, 78),
            accent=(176, 44, 30),
            light=(238, 219, 178),
            dark=(214, 180, 128),
            frame=(120, 88, 50),
            shooter=(214, 52, 40),
            shooter_rim=(128, 24, 16),
            black=(30, 30, 34),
            black_rim=(0, 0, 0),
            white=(252, 252, 250),
            white_rim=(96, 90, 82),
            move=(255, 214, 64),
            move_line=(214, 150, 20),
            shot=(96, 170, 255),
            shot_line=(36, 110, 210),
            claim=(255, 196, 0),
            hint=(40, 30, 20, 110),
            hatch=(90, 60, 30, 70),
            shadow=70,
            tint=0.55,
        ),
        Theme(
            name="dark",
            label="Dark: slate, made for Discord's dark mode",
            background=(49, 51, 56),
            text=(235, 236, 240),
            muted=(160, 165, 175),
            accent=(255, 120, 100),
            light=(104, 112, 128),
            dark=(82, 89, 104),
            frame=(30, 31, 34),
            shooter=(236, 72, 58),
            shooter_rim=(120, 22, 14),
            black=(18, 18, 22),
            black_rim=(190, 196, 206),
            white=(246, 246, 246),
            white_rim=(30, 31, 34),
            move=(240, 196, 64),
            move_line=(250, 204, 60),
            shot=(70, 150, 250),
            shot_line=(110, 180, 255),
            claim=(255, 204, 0),
            hint=(245, 245, 255, 120),
            hatch=(10, 10, 16, 120),
            shadow=0,
            tint=0.6,
        ),
        Theme(
            # Okabe–Ito colours and luminance carry the meaning; shapes and marks back them up,
            # so nothing depends on telling red from green.
            name="contrast",
            label="Contrast: colour-blind safe, shooters square and claims marked",
            background=(255, 255, 255),
            text=(0, 0, 0),
            muted=(60, 60, 60),
            accent=(0, 90, 170),
            light=(236, 236, 236),
            dark=(200, 200, 200),
            frame=(0, 0, 0),
            shooter=(230, 159, 0),
            shooter_rim=(0, 0, 0),
            black=(0, 0, 0),
            black_rim=(0, 0, 0),
            white=(255, 255, 255),
            white_rim=(0, 0, 0),
            move=(240, 228, 66),
            move_line=(0, 0, 0),
            shot=(86, 180, 233),
            shot_line=(0, 114, 178),
            claim=(0, 114, 178),
            hint=(0, 0, 0, 150),
            hatch=(0, 0, 0, 80),
            shadow=0,
            tint=0.75,
            shaded=False,
            square_shooters=True,
            marked_claims=True,
        ),
    )
}


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def theme_named(name: str) -> Theme:
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}: choose one of {', '.join(THEMES)}") from None
