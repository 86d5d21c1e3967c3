"""Tournament images: standings, brackets and the podium, in every theme, checked by their pixels."""

from __future__ import annotations

import io
from collections.abc import Mapping

import pytest
from PIL import Image

from bot.render import THEMES
from bot.render import tournament as tr
from bot.render.tournament import TournamentWords, bracket_png, podium_png, score, standings_png
from bot.tournaments import Player, double_elimination, resolve, single_elimination
from bot.tournaments.elimination import BracketState
from bot.tournaments.standings import Standing

RGB = tuple[int, int, int]
THEME_NAMES = sorted(THEMES)
LABELS = ["BH-1", "BH", "SB"]


def decode(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(data)).convert("RGB")


def near(a: RGB, b: RGB, within: int = 24) -> bool:
    return max(abs(x - y) for x, y in zip(a, b, strict=True)) <= within


def count(im: Image.Image, colour: RGB, within: int = 24) -> int:
    found = im.getcolors(maxcolors=im.width * im.height) or []
    return sum(n for n, c in found if near(c, colour, within))


def ink(im: Image.Image, background: RGB) -> int:
    found = im.getcolors(maxcolors=im.width * im.height) or []
    return sum(n for n, c in found if not near(c, background, 30))


def names(n: int) -> dict[int, str]:
    return {i: f"Player {i}" for i in range(1, n + 1)}


def table(n: int, ranks: list[int] | None = None) -> list[Standing]:
    ranks = ranks or list(range(1, n + 1))
    return [Standing(ranks[i], i + 1, float(n - i) / 2, (10.5 - i, 12.0, 30.25)) for i in range(n)]


def row_box(i: int, width: int = tr.WIDTH) -> tuple[int, int, int, int]:
    top = tr.TITLE_H + tr.HEAD_H + i * tr.ROW_H
    return (0, top, width, top + tr.ROW_H)


def standings(rows: list[Standing], **kw: object) -> Image.Image:
    args: dict[str, object] = {"title": "Spring Swiss", "tiebreak_labels": LABELS}
    args.update(kw)
    return decode(standings_png(rows, names(len(rows)), **args))  # type: ignore[arg-type]


# --- standings ----------------------------------------------------------------------------------------------


def test_scores_print_halves_and_quarters_as_fractions() -> None:
    assert [score(v) for v in (0.0, 0.5, 3.5, 4.0, 12.25, 7.75, 1.2)] == ["0", "½", "3½", "4", "12¼", "7¾", "1.2"]


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_standings_render_in_every_theme_and_grow_with_their_rows(theme: str) -> None:
    look = THEMES[theme]
    sizes = [standings(table(n), theme=theme).size for n in (1, 10, 64)]
    assert [w for w, _ in sizes] == [tr.WIDTH] * 3
    assert sizes[0][1] < sizes[1][1] < sizes[2][1]
    assert sizes[2][1] - sizes[1][1] == 54 * tr.ROW_H
    im = standings(table(10), theme=theme)
    assert im.getpixel((2, im.height - 4)) == look.background
    for i in range(10):
        assert ink(im.crop(row_box(i)), look.background) > 300, i  # every row has its text


def test_a_highlighted_row_is_tinted_with_an_accent_bar() -> None:
    look = THEMES["dark"]
    plain = standings(table(6))
    marked = standings(table(6), highlight={4})
    for i in range(6):
        same = plain.crop(row_box(i)).tobytes() == marked.crop(row_box(i)).tobytes()
        assert same == (i != 3), i
    assert near(marked.getpixel((3, row_box(3)[1] + 5)), look.accent, 4)  # type: ignore[arg-type]
    assert count(marked.crop(row_box(3)), look.accent, 4) >= 7 * (tr.ROW_H - 1)
    assert count(plain.crop(row_box(3)), look.accent, 4) == 0


def test_a_shared_rank_is_printed_once_on_the_first_of_its_rows() -> None:
    look = THEMES["dark"]
    rank_cell = (tr.PAD, 0, tr.PAD + 40, tr.ROW_H)

    def cell(im: Image.Image, i: int) -> Image.Image:
        top = row_box(i)[1]
        return im.crop((rank_cell[0], top, rank_cell[2], top + tr.ROW_H))

    apart = standings(table(5, [1, 2, 3, 4, 5]))
    shared = standings(table(5, [1, 2, 3, 3, 3]))
    digit = (0, 0, 40, tr.ROW_H - 10)  # above the line that starts under the shared number
    assert cell(shared, 2).crop(digit).tobytes() == cell(apart, 2).crop(digit).tobytes()  # "3" on the first
    for i in (3, 4):
        assert count(cell(shared, i), look.text, 30) == 0 < count(cell(apart, i), look.text, 30), i
        assert count(cell(shared, i), look.muted, 6) > 0  # the line down from the shared rank
    assert cell(shared, 1).tobytes() == cell(apart, 1).tobytes()


def test_half_points_differ_from_whole_ones() -> None:
    rows = table(3)
    half = standings(rows)
    whole = standings([Standing(r.rank, r.player, float(int(r.points)), r.tiebreaks) for r in rows])
    # row 1 has 1½ points, row 2 has 1: only row 1 differs... in its points column
    assert half.crop(row_box(0)).tobytes() != whole.crop(row_box(0)).tobytes()
    assert half.crop(row_box(1)).tobytes() == whole.crop(row_box(1)).tobytes()


def test_a_withdrawn_player_is_greyed_and_marked_in_the_given_words() -> None:
    look = THEMES["dark"]
    plain = standings(table(4))
    out = standings(table(4), withdrawn={2})
    aus = standings(table(4), withdrawn={2}, words=TournamentWords(withdrawn="retirado"))
    assert out.crop(row_box(1)).tobytes() != plain.crop(row_box(1)).tobytes()
    assert aus.crop(row_box(1)).tobytes() != out.crop(row_box(1)).tobytes()
    assert count(out.crop(row_box(1)), look.text, 4) < count(plain.crop(row_box(1)), look.text, 4) / 4
    assert out.crop(row_box(0)).tobytes() == plain.crop(row_box(0)).tobytes()


def test_tiebreak_columns_follow_the_labels_and_localised_headings() -> None:
    rows = table(5)
    three = standings(rows)
    two = standings(rows, tiebreak_labels=LABELS[:2])
    assert three.size == two.size
    assert three.crop(row_box(0)).tobytes() != two.crop(row_box(0)).tobytes()
    japanese = standings(rows, words=TournamentWords(rank="順位", player="プレイヤー", points="勝点"))
    heading = (0, tr.TITLE_H, tr.WIDTH, tr.TITLE_H + tr.HEAD_H)
    assert japanese.crop(heading).tobytes() != three.crop(heading).tobytes()
    assert ink(japanese.crop(heading), THEMES["dark"].background) > 300
    five = standings(rows, tiebreak_labels=["Buchholz cut 1", "Buchholz", "Sonneborn-Berger", "H2H", "Wins"])
    assert five.width > tr.WIDTH  # more columns widen the image rather than squeeze the names
    assert standings(rows, tiebreak_labels=["BH-1", "BH", "SB", "H2H", "W"]).width == tr.WIDTH
    # long labels wrap onto two lines, after a space or a hyphen
    assert tr._wrap("Sonneborn-Berger", tr.LABEL, 200) == ["Sonneborn-Berger"]
    assert tr._wrap("Sonneborn-Berger", tr.LABEL, 120) == ["Sonneborn-", "Berger"]
    assert tr._wrap("Buchholz cut 1", tr.LABEL, 120) == ["Buchholz", "cut 1"]


def test_a_standings_page_holds_at_most_its_documented_rows() -> None:
    full = standings(table(tr.MAX_STANDINGS_ROWS))
    assert full.height == tr.TITLE_H + tr.HEAD_H + tr.MAX_STANDINGS_ROWS * tr.ROW_H + tr.PAD
    with pytest.raises(ValueError, match="page"):
        standings_png(table(tr.MAX_STANDINGS_ROWS + 1), {}, title="t", tiebreak_labels=LABELS)


def test_a_japanese_or_emoji_name_is_drawn_not_dropped() -> None:
    rows = table(2)
    cat = decode(standings_png(rows, {1: "ネコ", 2: "B"}, title="t", tiebreak_labels=LABELS))
    dog = decode(standings_png(rows, {1: "イヌ", 2: "B"}, title="t", tiebreak_labels=LABELS))
    apple = decode(standings_png(rows, {1: "🍎", 2: "B"}, title="t", tiebreak_labels=LABELS))
    assert cat.crop(row_box(0)).tobytes() != dog.crop(row_box(0)).tobytes()
    found = apple.crop(row_box(0)).getcolors(maxcolors=1 << 16) or []
    assert sum(n for n, c in found if max(c) - min(c) > 90) > 50  # a red apple, in colour


# --- brackets -----------------------------------------------------------------------------------------------


def players(n: int) -> list[Player]:
    return [Player(i, 2000 - i, i) for i in range(1, n + 1)]


def first_card(state: BracketState, champion: bool = False) -> tuple[int, int]:
    """Top-left corner of the first match's card."""
    banner = tr._b(56) if champion else 0
    return tr.B_PAD, tr.B_TITLE_H + banner + tr.B_PAD // 2 + tr.SECTION_H


def side_box(x: int, y: int, k: int) -> tuple[int, int, int, int]:
    """One player's line of a card."""
    card_w = (tr.BRACKET_WIDTH - 2 * tr.B_PAD - tr.CARD_GAP) // 2
    top = y + tr.STRIP_H + k * tr.LINE_H
    return (x, top, x + card_w, top + tr.LINE_H)


def bracket(state: BracketState, who: Mapping[int, str] | None = None, **kw: object) -> Image.Image:
    args: dict[str, object] = {"title": "Cup"}
    args.update(kw)
    return decode(bracket_png(state, who if who is not None else names(64), **args))  # type: ignore[arg-type]


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_the_winner_of_a_match_is_emphasised_and_the_loser_greyed(theme: str) -> None:
    look = THEMES[theme]
    b = single_elimination(players(4))
    top_won = bracket(resolve(b, {"W1-1": 1}), theme=theme)
    bottom_won = bracket(resolve(b, {"W1-1": 4}), theme=theme)
    x, y = first_card(resolve(b, {}))
    bars = [count(top_won.crop(side_box(x, y, k)).crop((0, 0, 8, tr.LINE_H)), look.accent, 4) for k in (0, 1)]
    assert bars[0] > tr.LINE_H and bars[1] == 0
    bars = [count(bottom_won.crop(side_box(x, y, k)).crop((0, 0, 8, tr.LINE_H)), look.accent, 4) for k in (0, 1)]
    assert bars[1] > tr.LINE_H and bars[0] == 0
    # the winner's name in the text colour, the loser's greyed
    assert count(top_won.crop(side_box(x, y, 0)), look.text, 6) > 3 * count(
        top_won.crop(side_box(x, y, 1)), look.text, 6
    )


def test_undecided_slots_say_whose_winner_comes_in_the_given_words() -> None:
    b = single_elimination(players(4))
    state = resolve(b, {"W1-1": 1})
    english = bracket(state)
    spanish = bracket(state, words=TournamentWords(winner_of="ganador de {match}"))
    assert english.size == spanish.size
    assert english.tobytes() != spanish.tobytes()
    # decided matches look the same in both; only the final's slot waiting for W1-2 differs
    x, y = first_card(state)
    assert english.crop(side_box(x, y, 0)).tobytes() == spanish.crop(side_box(x, y, 0)).tobytes()
    full = bracket(resolve(b, {"W1-1": 1, "W1-2": 2, "W2-1": 1}), words=TournamentWords(winner_of="ganador de {match}"))
    assert full.tobytes() == bracket(resolve(b, {"W1-1": 1, "W1-2": 2, "W2-1": 1}), words=TournamentWords()).tobytes()


def test_a_bye_reads_as_a_walkover() -> None:
    b = single_elimination(players(3))  # seed 1 meets nobody in round 1
    state = resolve(b, {})
    assert state.matches[0].winner == 1
    plain = bracket(state)
    renamed = bracket(state, words=TournamentWords(walkover="sin rival", bye="libre"))
    x, y = first_card(state)
    strip = (x, y, x + 200, y + tr.STRIP_H)
    assert plain.crop(strip).tobytes() != renamed.crop(strip).tobytes()
    assert plain.crop(side_box(x, y, 1)).tobytes() != renamed.crop(side_box(x, y, 1)).tobytes()
    look = THEMES["dark"]
    assert count(plain.crop(side_box(x, y, 0)).crop((0, 0, 8, tr.LINE_H)), look.accent, 4) > tr.LINE_H


def test_best_of_scores_are_printed_beside_the_names() -> None:
    b = single_elimination(players(4), best_of=3)
    state = resolve(b, {"W1-1": 1})
    look = THEMES["dark"]
    bare = bracket(state)
    scored = bracket(state, scores={"W1-1": (2, 1)})
    x, y = first_card(state)
    assert bare.crop(side_box(x, y, 0)).tobytes() != scored.crop(side_box(x, y, 0)).tobytes()
    right = side_box(x, y, 0)
    score_area = scored.crop((right[2] - 40, right[1], right[2], right[3]))
    assert count(score_area, look.accent, 30) > 10  # the winner's score in the accent colour


def test_double_elimination_shows_the_reset_final_as_not_needed_when_the_winners_champion_wins() -> None:
    b = double_elimination(players(4))
    wb_champion = {"W1-1": 1, "W1-2": 2, "W2-1": 1, "L1-1": 4, "L2-1": 2, "GF": 1}
    lb_champion = {**wb_champion, "GF": 2}
    said = TournamentWords(not_needed="no hace falta")
    done = resolve(b, wb_champion)
    assert done.champion == 1
    assert bracket(done).tobytes() != bracket(done, words=said).tobytes()
    pending = resolve(b, lb_champion)
    assert pending.champion is None
    assert bracket(pending).tobytes() == bracket(pending, words=said).tobytes()


def test_the_champion_is_named_under_the_title() -> None:
    b = single_elimination(players(2))
    open_ = bracket(resolve(b, {}))
    won = bracket(resolve(b, {"W1-1": 2}))
    assert won.height == open_.height + tr._b(56)
    renamed = bracket(resolve(b, {"W1-1": 2}), words=TournamentWords(champion="Campeón"))
    assert won.tobytes() != renamed.tobytes()


def half_played(n: int) -> BracketState:
    b = double_elimination(players(n), best_of=3)
    winners: dict[str, int] = {}
    while len(winners) < len(b.matches) // 2:
        ready = resolve(b, winners).ready()
        m = ready[0]
        assert isinstance(m.a, int) and isinstance(m.b, int)
        winners[m.match.id] = min(m.a, m.b) if len(winners) % 3 else max(m.a, m.b)
    return resolve(b, winners)


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_a_64_player_double_elimination_bracket_stays_narrow_and_within_discord_limits(theme: str) -> None:
    data = bracket_png(half_played(64), names(64), title="Cup", theme=theme)
    im = decode(data)
    assert im.width == tr.BRACKET_WIDTH
    assert 4000 < im.height < 9000
    assert len(data) < 2 * 1024 * 1024
    small = decode(bracket_png(half_played(8), names(8), title="Cup", theme=theme))
    assert small.height < im.height


# --- podium -------------------------------------------------------------------------------------------------


def podium(places: list[tuple[int, int]], **kw: object) -> Image.Image:
    args: dict[str, object] = {"title": "Final standings"}
    args.update(kw)
    return decode(podium_png(places, {1: "Ada", 2: "Bo", 3: "Cy", 4: "Di", 5: "Ed"}, **args))  # type: ignore[arg-type]


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_the_champion_stands_on_the_gold_step_with_a_crown(theme: str) -> None:
    look = THEMES[theme]
    middle = (tr.WIDTH // 2 - 110, tr.TITLE_H + 4, tr.WIDTH // 2 + 110, 600 - 44)
    crowned = podium([(1, 1), (2, 2), (3, 3)], theme=theme).crop(middle)
    headless = podium([(2, 2), (3, 3)], theme=theme).crop(middle)
    assert count(crowned, look.move, 4) > 200 * 100
    assert count(headless, look.move, 4) == 0
    other = podium([(1, 4), (2, 2), (3, 3)], theme=theme).crop(middle)
    assert other.tobytes() != crowned.tobytes()  # the champion's name is on it


def test_shared_places_stand_together() -> None:
    look = THEMES["dark"]
    right = (tr.WIDTH // 2 + 120, tr.TITLE_H + 4, tr.WIDTH - 10, 600 - 40 - 96 - 2)  # above the third step
    one_third = podium([(1, 1), (2, 2), (3, 3)]).crop(right)
    two_thirds = podium([(1, 1), (2, 2), (3, 3), (3, 4)]).crop(right)
    assert ink(two_thirds, look.background) > ink(one_third, look.background) * 1.4
    # places past the third are not on the podium
    assert podium([(1, 1), (2, 2), (3, 3), (5, 5)]).tobytes() == podium([(1, 1), (2, 2), (3, 3)]).tobytes()


def test_podium_words_are_the_callers() -> None:
    places = [(1, 1), (2, 2), (3, 3)]
    assert podium(places).tobytes() != podium(places, words=TournamentWords(places=("1位", "2位", "3位"))).tobytes()


# --- without the system fonts: still drawn, leaving out what DejaVu lacks ---------------------------------


def test_without_the_fonts_names_lose_only_what_dejavu_lacks(without_system_fonts: None) -> None:
    rows = table(3)
    labels = {"tiebreak_labels": LABELS, "title": "t"}
    dropped = standings_png(rows, {1: "ネコ Ann 🎲", 2: "🎲", 3: "Cy"}, **labels)  # type: ignore[arg-type]
    plain = standings_png(rows, {1: "Ann", 3: "Cy"}, **labels)  # type: ignore[arg-type]
    assert dropped == plain  # the emoji-only name falls back to its id, as a missing one does
    state = resolve(single_elimination(players(4)), {"W1-1": 1})
    assert bracket_png(state, {1: "Ann 🍎", 2: "猫"}, title="t") == bracket_png(state, {1: "Ann"}, title="t")
    assert podium_png([(1, 1)], {1: "🍎"}, title="t") == podium_png([(1, 1)], {}, title="t")


def test_the_fonts_are_back_for_the_images_after_the_fixture() -> None:
    rows = table(2)
    with_cat = standings_png(rows, {1: "ネコ Ann", 2: "B"}, title="t", tiebreak_labels=LABELS)
    assert with_cat != standings_png(rows, {1: "Ann", 2: "B"}, title="t", tiebreak_labels=LABELS)
