"""Text on images: fonts for every script and emoji, measuring, shortening and drawing it.

Player names come from Discord in any script, often with emoji, and the bot's words are translated.
``TextFace`` measures and ``draw_text`` draws a line run by run, each run in the first font that has
it; ``fit`` shortens a name to a width; ``visible`` and ``drawable`` leave out what no font draws.
FreeType's renderings are remembered, so the same names come back cheaply on every board. ``DRAWING``
is the lock every drawing takes, as FreeType faces are shared between threads.
"""

from __future__ import annotations

import logging
import math
import threading
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont, features

from bot.render.theme import RGB

log = logging.getLogger(__name__)

# Boards are drawn in a worker process (bot/render/workers.py), the rarer images (and every image, with
# DRAWING_WORKERS=0) in threads of the bot's. FreeType faces must not be used by two threads at once, and
# the caches of fonts, text and sprites are filled on first use, so drawing takes this lock; PNG and GIF
# encoding, the part that runs longest without the GIL, stays outside it.
DRAWING = threading.RLock()

FONT_DIR = Path(__file__).resolve().parent.parent / "assets" / "fonts"


@lru_cache(maxsize=32)
def face(px: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    # BASIC layout: the same glyph placement whether or not libraqm is installed.
    path = FONT_DIR / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    return ImageFont.truetype(str(path), max(6, px), layout_engine=ImageFont.Layout.BASIC)


# --- text: DejaVu Sans first, then system fonts for the scripts and emoji it lacks ----------------------------
#
# Player names come from Discord in any script, often with emoji, and the bot's words are translated
# (Japanese among them). The bundled DejaVu Sans draws Latin, Greek and Cyrillic; for the rest the text
# falls back, character by character, to Noto Sans CJK (Japanese, Chinese, Korean; Debian's
# fonts-noto-cjk) and then to Noto Color Emoji (fonts-noto-color-emoji), each run of text drawn in the
# first font that has it. Both are system packages that scripts/run, scripts/test and the Dockerfile
# install; where they are missing, what no font draws is left out, as a row of empty boxes reads
# worse than a shorter name.

FONT_SEARCH: tuple[Path, ...] = (
    Path("/usr/share/fonts/opentype/noto"),  # Debian, Ubuntu: fonts-noto-cjk
    Path("/usr/share/fonts/truetype/noto"),  # Debian, Ubuntu: fonts-noto-color-emoji
    Path("/usr/share/fonts/noto-cjk"),  # Arch
    Path("/usr/share/fonts/noto"),  # Arch
    Path("/usr/share/fonts/google-noto-cjk"),  # Fedora
    Path("/usr/share/fonts/google-noto-color-emoji-fonts"),  # Fedora
)
CJK_FILES = {True: "NotoSansCJK-Bold.ttc", False: "NotoSansCJK-Regular.ttc"}
CJK_INDEX = 0  # the collection's Japanese face: the project's CJK language is Japanese
EMOJI_FILE = "NotoColorEmoji.ttf"
EMOJI_STRIKE = 109  # Noto Color Emoji is a bitmap font with this one size; its glyphs are scaled to the text
EMOJI_BOX = (136, 128, 101)  # its glyphs' width, height and ascent at that size

ZWJ = "\u200d"
KEYCAP = "\u20e3"


def _find_font(name: str) -> Path | None:
    for folder in FONT_SEARCH:
        path = folder / name
        if path.is_file():
            return path
    return None


def missing_font_packages() -> list[str]:
    """The Debian packages text in every script still needs here (empty when all is in place):
    what scripts/run and scripts/test install, and the Dockerfile installs always."""
    missing = []
    if _find_font(CJK_FILES[True]) is None or _find_font(CJK_FILES[False]) is None:
        missing.append("fonts-noto-cjk")
    if _find_font(EMOJI_FILE) is None:
        missing.append("fonts-noto-color-emoji")
    if _find_font("NotoSansThai-Bold.ttf") is None or _find_font("NotoSansDevanagari-Regular.ttf") is None:
        missing.append("fonts-noto-core")  # Noto Sans for Thai, the Indic scripts, Ethiopic, Khmer...
    if not features.check_feature("raqm"):
        missing.append("libfribidi0")  # Pillow's Raqm layout loads it; emoji sequences need it
    return missing


def _engine() -> ImageFont.Layout:
    # Raqm joins emoji sequences (families, flags, skin tones) into their single glyphs; without it
    # (no libfribidi) each part is drawn on its own, which still reads.
    return ImageFont.Layout.RAQM if features.check_feature("raqm") else ImageFont.Layout.BASIC


@lru_cache(maxsize=64)
def _cjk(px: int, bold: bool) -> ImageFont.FreeTypeFont | None:
    path = _find_font(CJK_FILES[bold])
    if path is None:
        return None
    try:
        return ImageFont.truetype(str(path), max(6, px), index=CJK_INDEX, layout_engine=ImageFont.Layout.BASIC)
    except OSError:
        log.warning("could not load %s; Japanese, Chinese and Korean text is left out of images", path)
        return None


@lru_cache(maxsize=1)
def _emoji() -> ImageFont.FreeTypeFont | None:
    path = _find_font(EMOJI_FILE)
    if path is None:
        return None
    try:
        return ImageFont.truetype(str(path), EMOJI_STRIKE, layout_engine=_engine())
    except OSError:
        log.warning("could not load %s; emoji are left out of images", path)
        return None


@lru_cache(maxsize=128)
def _script(name: str, px: int, bold: bool) -> ImageFont.FreeTypeFont | None:
    """Noto Sans for one script (Debian's fonts-noto-core: NotoSansThai-Bold.ttf and the like), laid
    out with Raqm where there is one, as such scripts join and reorder their letters."""
    path = _find_font(f"NotoSans{name}-{'Bold' if bold else 'Regular'}.ttf")
    if path is None:
        return None
    try:
        return ImageFont.truetype(str(path), max(6, px), layout_engine=_engine())
    except OSError:
        log.warning("could not load %s", path)
        return None


@lru_cache(maxsize=1024)
def _script_of(char: str) -> tuple[str, ...]:
    """Candidate script names for a character, from its Unicode name ("THAI CHARACTER KO KAI" → Thai)."""
    words = unicodedata.name(char, "").split()
    if not words:
        return ()
    return tuple(dict.fromkeys(("".join(w.title() for w in words[:2]), words[0].title())))


@lru_cache(maxsize=128)
def _shaped(which: str, px: int, bold: bool) -> ImageFont.FreeTypeFont | None:
    """DejaVu (``text``) or Noto Sans CJK (``cjk``) laid out with Raqm, for runs that need shaping:
    right-to-left scripts and letters with combining marks. Other runs keep the basic layout the
    boards have always been drawn with."""
    if which == "text":
        path: Path | None = FONT_DIR / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
        index = 0
    else:
        path, index = _find_font(CJK_FILES[bold]), CJK_INDEX
    if path is None:
        return None
    return ImageFont.truetype(str(path), max(6, px), index=index, layout_engine=_engine())


def _is_extender(ch: str) -> bool:
    """A character that belongs to the one before it: marks, joiners, variation selectors, skin tones, tags."""
    o = ord(ch)
    return (
        ch in (ZWJ, KEYCAP)
        or 0xFE00 <= o <= 0xFE0F
        or 0x1F3FB <= o <= 0x1F3FF
        or 0xE0020 <= o <= 0xE007F
        or unicodedata.category(ch) in ("Mn", "Me")
    )


def _regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def _emoji_mark(ch: str) -> bool:
    """A character that makes the one before it an emoji: the emoji selector, a joiner, a skin tone, a keycap, tags."""
    o = ord(ch)
    return ch in ("\ufe0f", ZWJ, KEYCAP) or 0x1F3FB <= o <= 0x1F3FF or 0xE0020 <= o <= 0xE007F


def clusters(text: str) -> list[str]:
    """The text cut into what a reader sees as one character: an emoji with its skin tone, a flag, a
    family joined by ZWJ, a letter with its accents. Shortening and font choice work on these."""
    out: list[str] = []
    for ch in text:
        if out and (
            _is_extender(ch) or out[-1].endswith(ZWJ) or (_regional(ch) and len(out[-1]) == 1 and _regional(out[-1]))
        ):
            out[-1] += ch
        else:
            out.append(ch)
    return out


@lru_cache(maxsize=8192)
def _in_font(which: str, char: str, bold: bool) -> bool:
    """Whether font ``which`` (``text``, ``cjk``, ``emoji``, ``script:Thai``...) draws ``char`` as a glyph."""
    if which == "emoji":
        emoji = _emoji()
        return emoji is not None and emoji.getmask2(char, mode="RGBA")[0].getbbox() is not None
    font = face(24, bold) if which == "text" else _cjk(24, bold) if which == "cjk" else _script(which[7:], 24, bold)
    if font is None:
        return False
    mask = font.getmask(char)
    if mask.size[0] == 0:
        return False  # zero-width: variation selectors, joiners
    notdef = font.getmask("\U0010fffd")
    return not (mask.size == notdef.size and bytes(mask) == bytes(notdef))


def _font_for(cluster: str, bold: bool) -> str | None:
    """The first font that draws this cluster: an emoji sequence in the emoji font, else by its first character."""
    base = cluster[0]
    if base.isspace():
        return "text"
    # Pictographs from U+1F000 on are emoji to a Discord reader (DejaVu has some of them in black and white)
    emoji_like = ord(base) >= 0x1F000 or any(_emoji_mark(c) for c in cluster[1:])
    scripts = tuple(f"script:{name}" for name in _script_of(base))
    if emoji_like and "\ufe0e" not in cluster:
        order = ("emoji", "text", "cjk", *scripts)
    else:
        order = ("text", "cjk", *scripts, "emoji")
    for which in order:
        if _in_font(which, base, bold):
            if which in ("text", "cjk") and any(_needs_shaping(c) for c in cluster):
                return which + "+"
            return which
    return None


def _needs_shaping(char: str) -> bool:
    """Right-to-left letters (Hebrew, Arabic) and combining marks are laid out by Raqm, not one by one."""
    return unicodedata.bidirectional(char) in ("R", "AL") or unicodedata.category(char) == "Mn"


@dataclass(frozen=True)
class TextFace:
    """Text of one pixel size and weight that draws any script it can find a font for.

    Use it where text may hold names or translated words: ``getlength`` measures as drawn (so
    ``fit`` shortens correctly) and ``draw_text`` draws it. Figures and coordinates, which DejaVu
    always has, can keep using ``face``.
    """

    px: int
    bold: bool = True

    @property
    def primary(self) -> ImageFont.FreeTypeFont:
        return face(self.px, self.bold)

    def runs(self, text: str) -> tuple[tuple[str, str], ...]:
        """(font, text) runs: ``text`` (DejaVu), ``cjk`` or ``emoji`` (one run per emoji); what no font
        draws is left out."""
        return _runs(text, self.bold)

    def getlength(self, text: str) -> float:
        return _measure(text, self.px, self.bold)


@lru_cache(maxsize=8192)
def _measure(text: str, px: int, bold: bool) -> float:
    return sum(_run_length(which, run, px, bold) for which, run in _runs(text, bold))


@lru_cache(maxsize=4096)
def _runs(text: str, bold: bool) -> tuple[tuple[str, str], ...]:
    runs: list[tuple[str, str]] = []
    with DRAWING:
        for cluster in clusters(text):
            which = _font_for(cluster, bold)
            if which is None:
                continue  # no font draws it: left out rather than a box
            if which == "emoji":
                runs.append((which, cluster))  # one sprite per emoji
            elif runs and (runs[-1][0] == which or (cluster.isspace() and runs[-1][0] != "emoji")):
                # a space stays in the run before it, so two right-to-left words are one run Raqm orders
                runs[-1] = (runs[-1][0], runs[-1][1] + cluster)
            else:
                runs.append((which, cluster))
    out: list[tuple[str, str]] = []
    for which, run in runs:
        kept = run.rstrip() if which != "text" else run
        # trailing spaces go on their own, or Raqm would put them on the left of a right-to-left run
        for kind, part in ((which, kept), ("text", run[len(kept) :])):
            if out and kind == "text" and out[-1][0] == "text":
                out[-1] = ("text", out[-1][1] + part)
            elif part:
                out.append((kind, part))
    return tuple(out)


def _font(which: str, px: int, bold: bool) -> ImageFont.FreeTypeFont:
    """The font of a run kind (runs of a kind exist only when its font was found)."""
    font: ImageFont.FreeTypeFont | None
    if which == "text":
        return face(px, bold)
    if which == "cjk":
        font = _cjk(px, bold)
    elif which.endswith("+"):
        font = _shaped(which[:-1], px, bold)
    else:
        font = _script(which[7:], px, bold)
    assert font is not None
    return font


def _emoji_scale(px: int) -> float:
    return max(6, px) / EMOJI_STRIKE


@lru_cache(maxsize=8192)
def _run_length(which: str, run: str, px: int, bold: bool) -> float:
    if which == "emoji":
        return round(EMOJI_BOX[0] * _emoji_scale(px))
    return _font(which, px, bold).getlength(run)


@lru_cache(maxsize=512)
def emoji_sprite(cluster: str, px: int) -> Image.Image:
    """One emoji (or emoji sequence) in colour, scaled from the font's only size to text of ``px`` pixels."""
    emoji = _emoji()
    assert emoji is not None
    w, h, _ascent = EMOJI_BOX
    big = Image.new("RGBA", (max(w, round(emoji.getlength(cluster))), h), (0, 0, 0, 0))
    ImageDraw.Draw(big).text((0, 0), cluster, font=emoji, embedded_color=True)
    big = big.crop((0, 0, w, h))
    scale = _emoji_scale(px)
    return big.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS)


def overlay(im: Image.Image, sprite: Image.Image, xy: tuple[int, int], fill: RGB | int = 255) -> None:
    """Lay an RGBA sprite over ``im`` through its alpha; on an ``L`` silhouette, put ``fill`` wherever it covers."""
    if im.mode == "L":
        im.paste(fill, (xy[0], xy[1], xy[0] + sprite.width, xy[1] + sprite.height), sprite)
    else:
        im.paste(sprite, xy, sprite)


@lru_cache(maxsize=1024)
def _text_mask(
    font: ImageFont.FreeTypeFont, text: str, mode: str, anchor: str, ink: int, start: tuple[float, float]
) -> tuple[Image.Image, tuple[int, int]]:
    """FreeType's rendering of one line of text, as ``ImageDraw.text`` asks for it: the mask and its offset."""
    mask, offset = font.getmask2(text, mode, None, None, None, 0, anchor, ink, start, stroke_filled=True)
    return Image.Image()._new(mask), (int(offset[0]), int(offset[1]))


def text_line(
    d: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    font: ImageFont.FreeTypeFont,
    fill: RGB | int,
    anchor: str,
) -> None:
    """``d.text(xy, text, font=font, fill=fill, anchor=anchor)`` for one line, pixel for pixel, with FreeType's
    rendering remembered: the same names, scores and status lines come back on every board of a game."""
    if "\n" in text or d.fontmode == "RGBA":
        d.text(xy, text, font=font, fill=fill, anchor=anchor)
        return
    start = (math.modf(xy[0])[0], math.modf(xy[1])[0])
    # Only colour fonts (RGBA, drawn by Pillow itself above) render with the ink: a mask serves every ink.
    mask, offset = _text_mask(font, text, d.fontmode, anchor, 0, start)
    d.bitmap((int(xy[0]) + offset[0], int(xy[1]) + offset[1]), mask, fill=fill)


def draw_text(
    im: Image.Image,
    xy: tuple[float, float],
    text: str,
    font: TextFace,
    fill: RGB | int,
    anchor: str = "la",
) -> float:
    """Draw ``text`` at ``xy`` as Pillow's ``ImageDraw.text`` would with ``anchor`` (horizontal l/m/r,
    vertical a/m/s/d), each run in the first font that has it; returns the width drawn.

    On an ``L`` image (a silhouette, see ``header_extent``) give ``fill`` 255: every pixel the text
    touches, emoji included, turns non-zero."""
    runs = font.runs(text)
    d = ImageDraw.Draw(im)
    total = font.getlength(text)
    if len(runs) == 1 and runs[0][0] == "text" and runs[0][1] == text:
        # the usual case: one font, drawn exactly as before fallbacks existed
        text_line(d, xy, text, font.primary, fill, anchor)
        return total
    x, y = xy
    h_anchor, v_anchor = anchor[0], anchor[1]
    x0 = x - (total / 2 if h_anchor == "m" else total if h_anchor == "r" else 0)
    ascent, descent = font.primary.getmetrics()
    baseline = {"a": y + ascent, "m": y + (ascent - descent) / 2, "s": y, "d": y - descent}.get(v_anchor, y + ascent)
    for which, run in runs:
        if which == "emoji":
            sprite = emoji_sprite(run, font.px)
            top = baseline - EMOJI_BOX[2] * _emoji_scale(font.px)
            overlay(im, sprite, (round(x0), round(top)), fill)
        else:
            text_line(d, (x0, baseline), run, _font(which, font.px, font.bold), fill, "ls")
        x0 += _run_length(which, run, font.px, font.bold)
    return total


_generation = [0]


def font_generation() -> int:
    """Bumped by every ``reset_fonts``: a cache of drawn text elsewhere keys on it."""
    return _generation[0]


def reset_fonts() -> None:
    """Forget which fonts were found and what they draw (after ``FONT_SEARCH`` changes; tests use it)."""
    _generation[0] += 1
    for cached in (
        _cjk,
        _emoji,
        _script,
        _shaped,
        _in_font,
        _runs,
        _run_length,
        _measure,
        emoji_sprite,
        has_glyph,
        visible,
        _text_mask,
    ):
        cached.cache_clear()


def fit(text: str, font: ImageFont.FreeTypeFont | TextFace, width: float) -> str:
    """The text, shortened with an ellipsis so a long player name cannot run into the score.

    It is cut between whole clusters (an emoji sequence, a letter with its accents), measured as drawn.
    """
    if font.getlength(text) <= width:
        return text
    parts = clusters(text)
    low, high = 0, len(parts) - 1  # the most clusters that fit with the ellipsis: at least low, fewer than high + 1
    while low < high:
        mid = (low + high + 1) // 2
        if font.getlength("".join(parts[:mid]) + "…") <= width:
            low = mid
        else:
            high = mid - 1
    return "".join(parts[:low]).rstrip() + "…"


@lru_cache(maxsize=4096)
def has_glyph(char: str) -> bool:
    """Whether some available font draws ``char`` (DejaVu, else Noto Sans CJK, else Noto Color Emoji)."""
    return char.isspace() or _font_for(char, True) is not None


@lru_cache(maxsize=4096)
def visible(text: str) -> str:
    """The text with what no available font draws left out, and its spaces tidied.

    With the system fonts installed that is almost nothing (emoji and CJK are drawn); without them
    emoji and CJK go, as a row of empty boxes reads worse than a shorter name.
    """
    with DRAWING:
        kept = "".join(c for c in clusters(text) if c.isspace() or _font_for(c, True) is not None)
    return " ".join(kept.split())


def drawable(players: Mapping[str, str] | None) -> dict[str, str]:
    """Player names as ``visible`` leaves them; names left empty are dropped."""
    out: dict[str, str] = {}
    for key, name in (players or {}).items():
        kept = visible(name)
        if kept:
            out[key] = kept
    return out
