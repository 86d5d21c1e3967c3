"""The palette boards are mapped onto, and PNG and GIF encoding.

Images are mapped onto a fixed 256-colour palette made for their theme and game: mapping onto a known
palette is cheap, where choosing a palette per image is not, and a palette image encodes as a PNG
several times faster and smaller than an RGB one. Replays share that palette, so every GIF frame needs
no colour table of its own, and its last entry marks a replay frame's unchanged pixels.
"""

from __future__ import annotations

import io
import itertools
import struct
import zlib
from collections.abc import Iterable, Sequence

from isal import isal_zlib
from PIL import Image, ImageChops

from bot.render.sprites import shooter_light, stone_light
from bot.render.theme import RGB, Theme, mix

# zlib level 3, for images Pillow encodes (not palette ones): as fast as level 1 and some 10% smaller; level 6
# saves a little more for twice the time, level 9 is ten times slower (benchmarks/bench_render.py).
PNG_COMPRESS_LEVEL = 3
# Palette images (boards, tournament sheets) are deflated by ISA-L (the isal package): its level 1 is about
# as small as zlib's level 3 on a board, in a tenth of the time (benchmarks/bench_render.py).
PNG_DEFLATE_LEVEL = 1
GIF_FRAME_MS = 700
GIF_FIRST_MS = 1200
GIF_FINAL_MS = 4000


def build_palette(theme: Theme, images: Iterable[Image.Image], extra: Iterable[RGB] = ()) -> Image.Image:
    """A 256-colour palette: the theme's flat colours (and a game's ``extra`` ones) exactly, the rest spread
    over every colour the catalogue ``images`` of that game show.

    Colours are counted once each rather than by area, so the few pixels of anti-aliased edges
    get as much say as the large flat squares, which keep their exact entries anyway.
    """
    flat: list[RGB] = [theme.background, theme.text, theme.muted, theme.accent, theme.light, theme.dark, theme.frame]
    flat += [theme.shooter, theme.shooter_rim, theme.black, theme.black_rim, theme.white, theme.white_rim]
    flat += [theme.move_line, theme.shot_line, theme.claim]
    for square in (theme.light, theme.dark):
        flat += [mix(square, theme.move, theme.tint), mix(square, theme.shot, theme.tint)]
        flat.append(mix(square, theme.hint[:3], theme.hint[3] / 255))
    flat += list(extra)
    if theme.shaded:
        # the lit discs get evenly spaced steps of their own, or their shading would show bands
        for edge, centre in (
            stone_light(theme, "b"),
            stone_light(theme, "w"),
            (theme.shooter, shooter_light(theme)),
        ):
            flat += [mix(edge, centre, i / 11) for i in range(12)]
    exact = list(dict.fromkeys(flat))
    colours: set[RGB] = set()
    for im in images:
        found = im.getcolors(maxcolors=1 << 22) or []
        colours.update(rgb for _count, rgb in found)  # type: ignore[misc]
    # Pillow maps colours to a palette through a cache of 4×4×4 cells, so an entry a few levels
    # from a flat colour could capture it; nothing that close may stand beside the exact entries.
    spread = sorted(c for c in colours if not any(close(c, e) for e in exact))
    sample = Image.new("RGB", (len(spread), 1))
    sample.putdata(spread)
    free = 255 - len(exact)  # the last entry is kept for replays' transparent pixels
    rest = sample.quantize(colors=free, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    found_palette = rest.getpalette() or []
    rest_colours = [tuple(found_palette[i : i + 3]) for i in range(0, 3 * free, 3)]
    rest_entries = [c for rgb in rest_colours if not any(close(rgb, e) for e in exact) for c in rgb]
    entries = [c for rgb in exact for c in rgb] + rest_entries
    entries += [*exact[0]] * ((765 - len(entries)) // 3)
    entries += [*UNUSED]
    pal = Image.new("P", (1, 1))
    pal.putpalette(entries)
    return pal


# The last palette entry: a colour no theme draws, so no pixel ever maps to it and replays can use
# its index to mean "unchanged since the previous frame".
UNUSED: RGB = (255, 0, 255)
TRANSPARENT = 255


def close(a: Sequence[int], b: Sequence[int], within: int = 6) -> bool:
    return abs(a[0] - b[0]) <= within and abs(a[1] - b[1]) <= within and abs(a[2] - b[2]) <= within


def to_palette(im: Image.Image, palette: Image.Image) -> Image.Image:
    return im.quantize(palette=palette, dither=Image.Dither.NONE)


def png(im: Image.Image) -> bytes:
    """The image as a PNG file. A palette image is written here, its pixels deflated by ISA-L: the same
    pixels and palette Pillow would write, in a tenth of the time. Anything else is Pillow's to encode."""
    if im.mode != "P" or "transparency" in im.info or not im.width or not im.height:
        out = io.BytesIO()
        im.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
        return out.getvalue()
    palette = bytes(im.getpalette() or [])[: 3 * 256].ljust(3 * 256, b"\0")  # an entry for every index
    # Each row of a PNG starts with its filter type: 0 (none; palette indices do not predict well).
    rows = Image.new("P", (im.width + 1, im.height), 0)
    rows.paste(im, (1, 0))
    pixels = isal_zlib.compress(rows.tobytes(), PNG_DEFLATE_LEVEL)
    header = struct.pack(">IIBBBBB", im.width, im.height, 8, 3, 0, 0, 0)  # 8 bits, palette, no interlace
    chunks = [_chunk(b"IHDR", header), _chunk(b"PLTE", palette), _chunk(b"IDAT", pixels), _chunk(b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def gif(frames: Sequence[Image.Image], *, frame_ms: int, final_ms: int) -> bytes:
    """An animated GIF of palette frames that share one palette, holding the last frame ``final_ms``."""
    durations = [GIF_FIRST_MS] + [frame_ms] * (len(frames) - 2) + [final_ms] if len(frames) > 1 else [final_ms]
    # Each later frame keeps only what changed; the rest is transparent and shows the frame before
    # (disposal 1), so a move costs a few squares and a header line rather than a whole board.
    deltas = [frames[0]]
    for before, after in itertools.pairwise(frames):
        unchanged = ImageChops.subtract_modulo(after, before).point([255, *(0,) * 255], "1")
        delta = after.copy()
        delta.paste(TRANSPARENT, mask=unchanged)
        deltas.append(delta)
    out = io.BytesIO()
    deltas[0].save(
        out,
        "GIF",
        save_all=True,
        append_images=deltas[1:],
        duration=durations,
        loop=0,
        disposal=1,
        transparency=TRANSPARENT,
        optimize=False,
    )
    return out.getvalue()
