"""Tournament images in the board themes: standings, a bracket, the podium.

Plain functions: engine values (``bot.tournaments``) and display names in, PNG bytes out, nothing of
Discord. They are made to be read on a phone, where Discord shows an image about 400 px wide:
standings and the podium are 800 px wide (standings wider only past five short tie-break labels),
a bracket 600 px with everything in proportion, so names read at 13 to 14 px there and the smallest
words at 10 px. A bigger field makes an image taller, never wider, so Discord never shrinks it
further. Names and words may be in any script, emoji included (see ``text``).

The few fixed words come from ``TournamentWords`` (English by default), so a caller can pass
another language's.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from PIL import Image, ImageChops, ImageDraw

from bot.render.palette import png
from bot.render.text import DRAWING, TextFace, draw_text, fit, font_generation, visible
from bot.render.theme import RGB, Theme, mix, theme_named
from bot.tournaments.elimination import BYE, BracketState, MatchState, Occupant, Source
from bot.tournaments.standings import Standing

__all__ = [
    "BRACKET_WIDTH",
    "MAX_STANDINGS_ROWS",
    "WIDTH",
    "TournamentWords",
    "bracket_png",
    "podium_png",
    "score",
    "standings_png",
]

WIDTH = 800
PAD = 28
MAX_STANDINGS_ROWS = 100
"""Rows one standings image holds; a longer field is paged by the caller."""


@dataclass(frozen=True)
class TournamentWords:
    """Every fixed word the tournament images show. ``{n}``, ``{match}`` are filled in."""

    rank: str = "#"
    player: str = "Player"
    points: str = "Points"
    withdrawn: str = "withdrawn"
    round: str = "Round {n}"
    final: str = "Final"
    semifinals: str = "Semi-finals"
    quarterfinals: str = "Quarter-finals"
    winners_bracket: str = "Winners' bracket"
    losers_bracket: str = "Losers' bracket"
    losers_final: str = "Losers' final"
    grand_final: str = "Grand final"
    reset: str = "Grand final, second match"
    winner_of: str = "winner of {match}"
    loser_of: str = "loser of {match}"
    bye: str = "bye"
    crosstable_bye: str = "bye"  # a crosstable's bye of any worth: "+ bye", "½ bye", "0 bye"
    walkover: str = "walkover"
    not_needed: str = "not needed"
    best_of: str = "best of {n}"
    champion: str = "Champion: "  # the label before the champion's name, its separator included
    places: tuple[str, str, str] = ("1st", "2nd", "3rd")
    more: str = "+{n} more"


ENGLISH = TournamentWords()


# --- shared look --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Look:
    theme: Theme
    band: RGB  # the title band and column headings
    stripe: RGB  # every other row
    card: RGB  # a match
    mine: RGB  # a highlighted row
    gold: RGB
    silver: RGB
    bronze: RGB
    on_gold: RGB
    rule: RGB
    figures: RGB  # tie-break values: quieter than the points

    def palette(self) -> Image.Image:
        return _palette(self)


@lru_cache(maxsize=8)
def _look(name: str) -> _Look:
    t = theme_named(name)
    dark = sum(t.background) < 384
    return _Look(
        theme=t,
        band=mix(t.background, t.text, 0.08),
        stripe=mix(t.background, t.text, 0.045),
        card=mix(t.background, t.text, 0.07 if dark else 0.05),
        mine=mix(t.background, t.accent, 0.26 if dark else 0.2),
        gold=t.move,
        silver=mix(t.background, t.text, 0.28 if dark else 0.2),
        bronze=mix(t.background, t.shooter, 0.55),
        on_gold=(20, 20, 24),
        rule=mix(t.background, t.muted, 0.55),
        figures=mix(t.text, t.muted, 0.35),
    )


FRACTIONS = {0.25: "¼", 0.5: "½", 0.75: "¾"}


def score(value: float) -> str:
    """A score as printed: halves and quarters as ½ ¼ ¾ (``3½``, ``½``), whole numbers plain."""
    whole = int(value // 1) if value >= 0 else -int(-value // 1)
    part = round(abs(value - whole), 4)
    sign = "\u2212" if value < 0 else ""
    if part == 0:
        return f"{sign}{abs(whole)}"
    if part in FRACTIONS:
        return f"{sign}{abs(whole) if whole else ''}{FRACTIONS[part]}"
    return f"{value:.2f}".rstrip("0").replace("-", "\u2212")


@lru_cache(maxsize=8)
def _palette(look: _Look) -> Image.Image:
    """A fixed 256-colour palette per theme: its flat colours exactly, four steps of anti-aliasing
    between every ink and every ground it is drawn on, and a 5×5×5 cube for the colours of emoji.

    Every piece of text is mapped onto it once (see ``_Sheet``), and a palette image encodes several
    times faster and smaller than RGB, which matters for a 6800-px bracket.
    """
    t = look.theme
    grounds = [t.background, look.band, look.stripe, look.card, look.mine, look.silver, look.bronze]
    inks = [t.text, t.muted, t.accent, look.figures]
    flat = [*grounds, look.gold, look.rule, look.on_gold, *inks]
    ramps = [mix(g, ink, k / 5) for g in grounds for ink in inks for k in range(1, 5)]
    ramps += [mix(look.gold, look.on_gold, k / 5) for k in range(1, 5)]
    levels = (0, 64, 128, 192, 255)
    cube = [(r, g, b) for r in levels for g in levels for b in levels]
    entries = list(dict.fromkeys(flat + ramps + cube))[:256]
    entries += [t.background] * (256 - len(entries))
    pal = Image.new("P", (1, 1))
    pal.putpalette([c for rgb in entries for c in rgb])
    return pal


class _Sheet:
    """A palette image drawn on directly: shapes by palette index, text from sprites made over the
    colour they sit on (their ground) and mapped onto the palette once, then cached.

    The images repeat the same names and figures render after render, so after the first a sheet is
    mostly pastes, and the tall image is never mapped onto the palette as a whole.
    """

    def __init__(self, look: _Look, size: tuple[int, int]) -> None:
        self.look = look
        self.index = _indices(look)
        self.im = Image.new("P", size, self.index[look.theme.background])
        self.im.putpalette(look.palette().getpalette() or [])
        self.draw = ImageDraw.Draw(self.im)

    def rect(self, box: tuple[float, float, float, float], colour: RGB) -> None:
        self.draw.rectangle(box, fill=self.index[colour])

    def rounded(self, box: tuple[float, float, float, float], radius: float, colour: RGB) -> None:
        self.draw.rounded_rectangle(box, radius=radius, fill=self.index[colour])

    def polygon(self, points: Sequence[tuple[float, float]], colour: RGB) -> None:
        self.draw.polygon(list(points), fill=self.index[colour])

    def text(
        self, xy: tuple[float, float], text: str, font: TextFace, fill: RGB, ground: RGB, anchor: str = "la"
    ) -> float:
        """Draw ``text`` as ``text.draw_text`` would, on a spot of colour ``ground``; returns its width."""
        sprite = _sprite(self.look, text, font, fill, ground, anchor, font_generation())
        if sprite is not None:
            image, mask, dx, dy = sprite
            self.im.paste(image, (round(xy[0]) + dx, round(xy[1]) + dy), mask)
        return font.getlength(text)

    def png(self) -> bytes:
        return png(self.im)  # a palette image: written as the boards are


@lru_cache(maxsize=8)
def _indices(look: _Look) -> dict[RGB, int]:
    entries = look.palette().getpalette() or []
    out: dict[RGB, int] = {}
    for i in range(len(entries) // 3):
        out.setdefault((entries[3 * i], entries[3 * i + 1], entries[3 * i + 2]), i)
    return out


@lru_cache(maxsize=2048)  # a 64-player bracket uses about 600; each is a name's size, a few KB
def _sprite(
    look: _Look, text: str, font: TextFace, fill: RGB, ground: RGB, anchor: str, generation: int
) -> tuple[Image.Image, Image.Image, int, int] | None:
    """Text drawn over its ground and mapped onto the palette, cropped to its ink: (image, mask, dx, dy),
    (dx, dy) leading from the anchor point to the top-left corner; None when nothing is drawn."""
    margin = font.px
    w, h = int(font.getlength(text)) + 2 * margin, 3 * font.px
    ox = {"l": margin, "m": w // 2, "r": w - margin}[anchor[0]]
    oy = h // 2
    rgb = Image.new("RGB", (w, h), ground)
    draw_text(rgb, (ox, oy), text, font, fill, anchor)
    mask = ImageChops.difference(rgb, Image.new("RGB", (w, h), ground)).convert("L").point([0] + [255] * 255)
    box = mask.getbbox()
    if box is None:
        return None
    image = rgb.crop(box).quantize(palette=look.palette(), dither=Image.Dither.NONE)
    return image, mask.crop(box), box[0] - ox, box[1] - oy


def _title(sheet: _Sheet, title: str, height: int, width: int, scale: float = 1.0) -> None:
    look = sheet.look
    sheet.rect((0, 0, width, height), look.band)
    sheet.rect((0, height - round(4 * scale), width, height), look.theme.accent)
    big, pad = TextFace(round(34 * scale)), round(PAD * scale)
    sheet.text((pad, height / 2 - 2 * scale), fit(title, big, width - 2 * pad), big, look.theme.text, look.band, "lm")


def _name(names: Mapping[int, str], player: int) -> str:
    """A player's display name as it can be drawn here (``#id`` when none is left)."""
    return visible(names.get(player, "")) or f"#{player}"


# --- standings ----------------------------------------------------------------------------------------------

TITLE_H = 76
HEAD_H = 58
ROW_H = 50
NAME = TextFace(28)
NUMBER = TextFace(28)
SMALL = TextFace(24, bold=False)
LABEL = TextFace(20, bold=False)
NAME_MIN = 200  # the name column's least width; past it more tie-break columns widen the image


def _edges(start: float, widths: Sequence[float]) -> list[float]:
    """The right edges of columns of ``widths`` laid side by side from ``start``."""
    return list(accumulate(widths, initial=start))[1:]


def _headings(
    sheet: _Sheet, y: float, at: tuple[float, float, float], widths: tuple[float, float], words: TournamentWords
) -> None:
    """A table's rank, player and points headings, muted on the background: ``at`` the rank's right edge, the
    name's left one and the points' right one, ``widths`` the name's and the points' columns."""
    t = sheet.look.theme
    x_rank, x_name, x_points = at
    name_w, points_w = widths
    sheet.text((x_rank, y), words.rank, LABEL, t.muted, t.background, "rm")
    sheet.text((x_name, y), fit(words.player, LABEL, name_w), LABEL, t.muted, t.background, "lm")
    sheet.text((x_points, y), fit(words.points, LABEL, points_w), LABEL, t.muted, t.background, "rm")


def _wrap(label: str, font: TextFace, width: float) -> list[str]:
    """A column label on at most two lines, cut after a space or a hyphen ("Sonneborn-" "Berger"), each
    shortened to the width."""
    pieces = re.findall(r"[^\s-]*-|\S+", label)  # words, a hyphenated word's parts keeping their hyphen
    if font.getlength(label) <= width or len(pieces) < 2:
        return [fit(label, font, width)]

    def joined(part: list[str]) -> str:
        return "".join(p if p.endswith("-") else p + " " for p in part).strip()

    best = [joined(pieces[:1]), joined(pieces[1:])]
    for cut in range(2, len(pieces)):
        first, second = joined(pieces[:cut]), joined(pieces[cut:])
        if font.getlength(first) <= width:
            best = [first, second]
    return [fit(line, font, width) for line in best[:2]]


def standings_png(
    rows: Sequence[Standing],
    names: Mapping[int, str],
    *,
    title: str,
    tiebreak_labels: Sequence[str],
    theme: str = "dark",
    highlight: Collection[int] = (),
    withdrawn: Collection[int] = (),
    words: TournamentWords = ENGLISH,
) -> bytes:
    """A standings table as a PNG: rank, name, points and one column per tie-break label.

    ``rows`` come from ``bot.tournaments.standings`` in order (a page of them); ``names`` maps player
    ids to display names (a missing one shows as ``#id``). One column per entry of
    ``tiebreak_labels``, showing that many of each row's tie-breaks from the first, so a caller may
    show fewer than were computed. A rank shared by equal players is printed once, on the first of
    them, with a line down to the last; points and tie-breaks show halves as ½. ``highlight`` players
    (the reader, say) get a tinted row with a bar; ``withdrawn`` ones are greyed and marked. At most
    ``MAX_STANDINGS_ROWS`` (100) rows per image: page longer fields. 800 px wide with up to five
    short labels ("BH-1", "BH", "SB", "H2H", "W") or three long ones (which wrap onto two lines);
    past that the image widens so names keep 200 px, and a phone shows it smaller. Dark theme by
    default.
    """
    if len(rows) > MAX_STANDINGS_ROWS:
        raise ValueError(f"{len(rows)} rows: one standings image holds at most {MAX_STANDINGS_ROWS}; page them")
    look = _look(theme)
    t = look.theme
    shown = len(tiebreak_labels)
    with DRAWING:
        values = [[score(r.points), *(score(v) for v in r.tiebreaks[:shown])] for r in rows]
        rank_w = max([NUMBER.getlength(str(r.rank)) for r in rows] + [LABEL.getlength(words.rank), 30]) + 8
        points_w = max([NUMBER.getlength(v[0]) for v in values] + [LABEL.getlength(words.points), 50]) + 16
        tb_w = [max([SMALL.getlength(v[1 + i]) for v in values if len(v) > 1 + i] + [44]) + 28 for i in range(shown)]
        tb_w = [max(w, min(LABEL.getlength(label) + 12, 104)) for w, label in zip(tb_w, tiebreak_labels, strict=True)]
        fixed = 2 * PAD + rank_w + 16 + points_w + sum(tb_w)
        width = max(WIDTH, round(fixed + NAME_MIN))
        name_w = width - fixed - 12
        height = TITLE_H + HEAD_H + ROW_H * max(1, len(rows)) + PAD
        sheet = _Sheet(look, (width, height))
        _title(sheet, title, TITLE_H, width)

        # column edges, right-aligned numbers
        x_rank = PAD + rank_w  # right edge
        x_name = x_rank + 16
        x_points = x_name + name_w + points_w  # right edge
        x_tb = _edges(x_points, tb_w)
        head_y = TITLE_H + HEAD_H / 2
        bg = t.background
        _headings(sheet, head_y, (x_rank, x_name, x_points), (name_w, points_w), words)
        for label, right, w in zip(tiebreak_labels, x_tb, tb_w, strict=True):
            lines = _wrap(label, LABEL, w - 8)
            for i, line in enumerate(lines):
                dy = (i - (len(lines) - 1) / 2) * 22
                sheet.text((right, head_y + dy), line, LABEL, t.muted, bg, "rm")
        sheet.rect((PAD, TITLE_H + HEAD_H - 2, width - PAD, TITLE_H + HEAD_H), look.rule)

        top = TITLE_H + HEAD_H
        group_start = 0
        for i, (row, vals) in enumerate(zip(rows, values, strict=True)):
            y0 = top + i * ROW_H
            cy = y0 + ROW_H / 2
            mine = row.player in highlight
            out = row.player in withdrawn
            ground = look.mine if mine else look.stripe if i % 2 else t.background
            if ground != t.background:
                sheet.rect((0, y0, width, y0 + ROW_H - 1), ground)
            if mine:
                sheet.rect((0, y0, 7, y0 + ROW_H - 1), t.accent)
            shared_above = i > 0 and rows[i - 1].rank == row.rank
            if not shared_above:
                group_start = i
                sheet.text((x_rank, cy), str(row.rank), NUMBER, t.text, ground, "rm")
            else:
                # a shared rank: a line down from the number printed on the group's first row
                lx = x_rank - 10
                sheet.rect((lx, top + group_start * ROW_H + ROW_H - 8, lx + 2, y0 + ROW_H / 2), t.muted)
            ink = t.muted if out else t.text
            tag = f"({words.withdrawn})" if out else ""
            tag_w = SMALL.getlength(tag) + 10 if tag else 0
            shown_name = fit(_name(names, row.player), NAME, name_w - tag_w)
            drawn = sheet.text((x_name, cy), shown_name, NAME, ink, ground, "lm")
            if tag:
                sheet.text((x_name + drawn + 10, cy + 1), tag, SMALL, t.muted, ground, "lm")
            sheet.text((x_points, cy), vals[0], NUMBER, ink, ground, "rm")
            for value, right in zip(vals[1:], x_tb, strict=False):
                sheet.text((right, cy), value, SMALL, t.muted if out else look.figures, ground, "rm")
    return sheet.png()


# --- brackets -----------------------------------------------------------------------------------------------

# A bracket is the tallest image (6800 px for 64 players in double elimination), so it is drawn 600 px
# wide with everything in proportion: on a phone it reads exactly as an 800-px image would, for a
# little over half the pixels to draw, map and encode.
BRACKET_WIDTH = 600
_B = BRACKET_WIDTH / WIDTH


def _b(value: float) -> int:
    return round(value * _B)


B_PAD = _b(PAD)
B_TITLE_H = _b(TITLE_H)
STRIP_H = _b(26)  # the match id, and "walkover" or "not needed"
LINE_H = _b(36)  # one player
CARD_H = STRIP_H + 2 * LINE_H + _b(8)
CARD_GAP = _b(12)
SECTION_H = _b(58)
CARD_NAME = TextFace(_b(25))
CARD_LOSER = TextFace(_b(25), bold=False)
CARD_SMALL = TextFace(_b(20), bold=False)
CARD_SCORE = TextFace(_b(26))
HEADING = TextFace(_b(26))


def _round_titles(state: BracketState, words: TournamentWords) -> dict[tuple[str, int], str]:
    """The heading of every (part, round) of the bracket."""
    last: dict[str, int] = {}
    for m in state.matches:
        last[m.match.part] = max(last.get(m.match.part, 0), m.match.round)
    double = state.bracket.double
    out: dict[tuple[str, int], str] = {}
    for part, rounds in last.items():
        for r in range(1, rounds + 1):
            if part == "final":
                out[part, r] = words.grand_final
            elif part == "reset":
                out[part, r] = words.reset
            elif part == "losers":
                name = words.losers_final if r == rounds else words.round.format(n=r)
                out[part, r] = f"{words.losers_bracket} · {name}"
            elif not double and rounds - r < 3:
                out[part, r] = (words.final, words.semifinals, words.quarterfinals)[rounds - r]
            else:
                name = words.round.format(n=r)
                out[part, r] = f"{words.winners_bracket} · {name}" if double else name
    return out


def _side(m: MatchState, source: Source, occupant: Occupant, names: Mapping[int, str], words: TournamentWords) -> str:
    if isinstance(occupant, int):
        return _name(names, occupant)
    if occupant == BYE:
        return words.bye
    if source.kind == "winner":
        return words.winner_of.format(match=source.ref)
    if source.kind == "loser":
        return words.loser_of.format(match=source.ref)
    return ""


def bracket_png(
    state: BracketState,
    names: Mapping[int, str],
    *,
    title: str,
    theme: str = "dark",
    scores: Mapping[str, tuple[int, int]] | None = None,
    words: TournamentWords = ENGLISH,
) -> bytes:
    """A whole elimination bracket as one tall PNG: round after round, two matches a row.

    ``state`` is ``resolve(bracket, winners)``; ``names`` maps player ids to display names. Single
    elimination reads Round 1 … Quarter-finals, Semi-finals, Final; double elimination the winners'
    bracket, then the losers' bracket, then the grand final and its second match (marked "not
    needed" when the first final's winner came from the winners' bracket). Each match shows its id
    (which the "winner of W1-3" of a later, undecided slot refers to), the players' seeds and names,
    the winner bold with an accent bar and the loser greyed; a bye reads "bye" and its match
    "walkover". ``scores`` maps a match id to games won by its two sides (best-of-N), printed beside
    the names. The champion, once known, is named under the title. 600 px wide (see ``BRACKET_WIDTH``);
    64 players in double elimination make an image about 6800 px tall (some 250 KB).
    """
    look = _look(theme)
    t = look.theme
    seeds = {p: i + 1 for i, p in enumerate(state.bracket.players)}
    titles = _round_titles(state, words)
    sections: list[tuple[str, list[MatchState]]] = []
    for m in state.matches:
        heading = titles[m.match.part, m.match.round]
        if sections and sections[-1][0] == heading:
            sections[-1][1].append(m)
        else:
            sections.append((heading, [m]))
    order = {"winners": 0, "losers": 1, "final": 2, "reset": 3}
    sections.sort(key=lambda s: (order[s[1][0].match.part], s[1][0].match.round))
    champion = state.champion
    banner = _b(56) if champion is not None else 0
    width, pad = BRACKET_WIDTH, B_PAD
    card_w = (width - 2 * pad - CARD_GAP) // 2
    height = B_TITLE_H + banner + pad // 2
    for _heading, matches in sections:
        height += SECTION_H + ((len(matches) + 1) // 2) * (CARD_H + CARD_GAP)
    height += pad
    with DRAWING:
        sheet = _Sheet(look, (width, height))
        _title(sheet, title, B_TITLE_H, width, scale=_B)
        y = B_TITLE_H
        if champion is not None:
            label = words.champion
            lw = sheet.text((pad, y + banner / 2 + 3), label, CARD_NAME, t.accent, t.background, "lm")
            name = fit(_name(names, champion), CARD_NAME, width - 2 * pad - lw)
            sheet.text((pad + lw, y + banner / 2 + 3), name, CARD_NAME, t.text, t.background, "lm")
            y += banner
        y += pad // 2
        best_of = state.bracket.best_of
        for heading, matches in sections:
            text = heading if best_of == 1 else f"{heading} · {words.best_of.format(n=best_of)}"
            heading_at = (pad, y + SECTION_H / 2 + 4)
            sheet.text(heading_at, fit(text, HEADING, width - 2 * pad), HEADING, t.text, t.background, "lm")
            y += SECTION_H
            for i, m in enumerate(matches):
                x = pad + (i % 2) * (card_w + CARD_GAP)
                cy = y + (i // 2) * (CARD_H + CARD_GAP)
                _card(sheet, m, x, cy, card_w, names, seeds, scores, words)
            y += ((len(matches) + 1) // 2) * (CARD_H + CARD_GAP)
    return sheet.png()


def _card(
    sheet: _Sheet,
    m: MatchState,
    x: int,
    y: int,
    w: int,
    names: Mapping[int, str],
    seeds: Mapping[int, int],
    scores: Mapping[str, tuple[int, int]] | None,
    words: TournamentWords,
) -> None:
    look = sheet.look
    t, card = look.theme, look.card
    not_needed = m.match.part == "reset" and m.winner is not None and not m.played
    walkover = m.winner is not None and not m.played and not not_needed and BYE in (m.a, m.b)
    sheet.rounded((x, y, x + w, y + CARD_H), _b(10), card)
    # the match id and how it ended, in the top strip
    tag = m.match.id
    if not_needed:
        tag += f" · {words.not_needed}"
    elif walkover and not (m.a == BYE and m.b == BYE):
        tag += f" · {words.walkover}"
    inset = _b(14)
    sheet.text((x + inset, y + STRIP_H / 2 + 1), fit(tag, CARD_SMALL, w - 2 * inset), CARD_SMALL, t.muted, card, "lm")
    got = scores.get(m.match.id) if scores else None
    seed_w, score_w = _b(26), (_b(40) if got else 0)
    for k, (source, occupant) in enumerate(((m.match.a, m.a), (m.match.b, m.b))):
        ly = y + STRIP_H + k * LINE_H
        cy = ly + LINE_H / 2
        known = isinstance(occupant, int)
        won = known and m.winner == occupant and not not_needed
        lost = m.winner is not None and not won
        if won:
            sheet.rect((x, ly + _b(4), x + _b(6), ly + LINE_H - _b(4)), t.accent)
        if isinstance(occupant, int):
            sheet.text((x + inset + seed_w, cy), str(seeds.get(occupant, "")), CARD_SMALL, t.muted, card, "rm")
        font = (CARD_NAME if not lost else CARD_LOSER) if known else CARD_SMALL
        ink = t.text if known and not lost else t.muted
        name_x = x + inset + seed_w + _b(10)
        label = fit(_side(m, source, occupant, names, words), font, x + w - inset - score_w - name_x)
        sheet.text((name_x, cy), label, font, ink, card, "lm")
        if got:
            sheet.text((x + w - inset, cy), str(got[k]), CARD_SCORE, t.accent if won else t.muted, card, "rm")


# --- podium -------------------------------------------------------------------------------------------------


def podium_png(
    places: Sequence[tuple[int, int]],
    names: Mapping[int, str],
    *,
    title: str,
    theme: str = "dark",
    words: TournamentWords = ENGLISH,
) -> bytes:
    """The top three on a podium, as a PNG 800 px wide.

    ``places`` are (place, player) pairs, as ``BracketState.placements()`` or the ranks of the
    standings give them; those placed 1st to 3rd stand on it, in groups by place (shared places, such
    as two 3rds of a knockout, stand together; up to three names a step, then "+n more"). The highest
    group takes the tall middle step, the next the left step, the third the right; the steps are gold,
    silver and bronze by place, and 1st place is headed by a crown and "Champion". Each step shows its
    place's word (1st, 2nd, 3rd).
    """
    look = _look(theme)
    t = look.theme
    groups: dict[int, list[int]] = {}
    for place, player in places:
        if 1 <= place <= 3:
            groups.setdefault(place, []).append(player)
    ordered = sorted(groups.items())[:3]
    width, height = WIDTH, 600
    base = height - 40
    step_w = 220
    slots = [  # (centre x, step height) for the highest group, the next, the third
        (width / 2, 200),
        (width / 2 - step_w - 6, 140),
        (width / 2 + step_w + 6, 96),
    ]
    fills = {1: look.gold, 2: look.silver, 3: look.bronze}
    with DRAWING:
        sheet = _Sheet(look, (width, height))
        _title(sheet, title, TITLE_H, width)
        sheet.rect((PAD, base, width - PAD, base + 4), look.rule)
        for (place, players), (cx, step_h) in zip(ordered, slots, strict=False):
            fill = fills[place]
            x0, x1 = cx - step_w / 2, cx + step_w / 2
            top = base - step_h
            sheet.rounded((x0, top, x1, base), 8, fill)
            ordinal = words.places[place - 1]
            ink_on = look.on_gold if fill == look.gold else t.text
            big = TextFace(44 if place == 1 else 36)
            sheet.text((cx, top + 44), fit(ordinal, big, step_w - 16), big, ink_on, fill, "mm")
            champion = place == 1
            face_ = TextFace(34 if champion else 30)
            shown = players[:3] if len(players) <= 3 else players[:2]
            lines = [fit(_name(names, p), face_, step_w + 30) for p in shown]
            if len(players) > len(shown):
                lines.append(words.more.format(n=len(players) - len(shown)))
            line_h = face_.px + 12
            y = top - 16 - line_h * (len(lines) - 1)
            for line in lines:
                sheet.text((cx, y), line, face_, t.text, t.background, "ms")
                y += line_h
            if champion:
                crown_y = top - 16 - line_h * len(lines) - 6
                label = TextFace(24)
                champion_word = fit(words.champion, label, step_w + 30)
                sheet.text((cx, crown_y), champion_word, label, t.accent, t.background, "ms")
                _crown(sheet, cx, crown_y - 36, 30, look.gold)
    return sheet.png()


def _crown(sheet: _Sheet, cx: float, cy: float, size: float, fill: RGB) -> None:
    """A small crown over the champion, drawn with a polygon (no emoji font needed)."""
    w, h = size * 1.4, size
    x0, x1 = cx - w / 2, cx + w / 2
    y0, y1 = cy - h / 2, cy + h / 2
    sheet.polygon(
        [
            (x0, y1),
            (x0, y0 + h * 0.15),
            (x0 + w * 0.27, y0 + h * 0.55),
            (cx, y0 - h * 0.1),
            (x1 - w * 0.27, y0 + h * 0.55),
            (x1, y0 + h * 0.15),
            (x1, y1),
        ],
        fill,
    )
