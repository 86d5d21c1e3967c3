"""A deliberately plain second implementation of Veletas, for cross-checking the real one in tests.

It shares no code with bot.rules.veletas: a dict board keyed by (file, rank), every square
tried as a destination and as a target, lines checked square by square, exactly as
RULES.md words them. It is slow on purpose: every shortcut the real one takes is absent.
"""

from __future__ import annotations

FILES = "abcdefghijklmnopqrstuvwxyz"
Square = tuple[int, int]
Board = dict[Square, str | None]


def name(sq: Square) -> str:
    return f"{FILES[sq[0]]}{sq[1] + 1}"


def diagram(*rows: str, side: str = "b") -> str:
    """Position string from a picture: rows top to bottom, '.' for empty, else the piece letter."""
    ranks = []
    for row in rows:
        out = ""
        empty = 0
        for ch in row:
            if ch == ".":
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += ch
        if empty:
            out += str(empty)
        ranks.append(out)
    return "/".join(ranks) + " " + side


def parse(text: str) -> tuple[Board, int, str]:
    """(board, size, side to move) from a position string."""
    ranks_text, side = text.split()
    ranks = ranks_text.split("/")
    size = len(ranks)
    board: Board = {}
    for i, rank_text in enumerate(ranks):
        rank = size - 1 - i
        file = 0
        digits = ""
        for ch in rank_text + "|":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                for _ in range(int(digits)):
                    board[(file, rank)] = None
                    file += 1
                digits = ""
            if ch != "|":
                board[(file, rank)] = ch
                file += 1
    return board, size, side


def unparse(board: Board, size: int, side: str) -> str:
    rows = []
    for rank in range(size - 1, -1, -1):
        rows.append("".join(board[(f, rank)] or "." for f in range(size)))
    return diagram(*rows, side=side)


def blocks(piece: str | None, classic: bool) -> bool:
    if piece is None:
        return False
    if classic:
        return True
    return piece in ("b", "w")


def clear_line(board: Board, a: Square, b: Square, classic: bool) -> bool:
    """True when b is on a line from a and nothing that blocks stands strictly between them."""
    if a == b:
        return False
    df = b[0] - a[0]
    dr = b[1] - a[1]
    if not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return False
    steps = max(abs(df), abs(dr))
    step_f = 0 if df == 0 else (1 if df > 0 else -1)
    step_r = 0 if dr == 0 else (1 if dr > 0 else -1)
    between = [(a[0] + step_f * k, a[1] + step_r * k) for k in range(1, steps)]
    return not any(blocks(board[sq], classic) for sq in between)


def moves(board: Board, size: int, classic: bool) -> set[str]:
    """Every legal move's canonical text (an empty set once someone has won)."""
    if winner(board, size) is not None:
        return set()
    found: set[str] = set()
    squares = list(board)
    for s in squares:
        if board[s] != "S":
            continue
        for t in squares:
            if board[t] is None and clear_line(board, s, t, classic):
                found.add(name(t))
        for d in squares:
            if board[d] is not None or not clear_line(board, s, d, classic):
                continue
            after = dict(board)
            after[s] = None
            after[d] = "S"
            for t in squares:
                if after[t] is None and clear_line(after, d, t, classic):
                    found.add(f"{name(s)}-{name(d)}/{name(t)}")
    return found


def trapped(board: Board, size: int, s: Square, classic: bool) -> bool:
    return not any(board[t] is None and clear_line(board, s, t, classic) for t in board)


def biggest_group(board: Board, size: int, s: Square, stone: str) -> int:
    best = 0
    for nb in ((s[0] + 1, s[1]), (s[0] - 1, s[1]), (s[0], s[1] + 1), (s[0], s[1] - 1)):
        if board.get(nb) != stone:
            continue
        group = {nb}
        frontier = [nb]
        while frontier:
            cur = frontier.pop()
            for nxt in ((cur[0] + 1, cur[1]), (cur[0] - 1, cur[1]), (cur[0], cur[1] + 1), (cur[0], cur[1] - 1)):
                if board.get(nxt) == stone and nxt not in group:
                    group.add(nxt)
                    frontier.append(nxt)
        best = max(best, len(group))
    return best


def needed(board: Board, size: int) -> int:
    shooters = sum(1 for p in board.values() if p in ("S", "B", "W"))
    table = {(10, 7): 4, (9, 5): 3, (7, 3): 2}
    return table.get((size, shooters), shooters // 2 + 1)


def winner(board: Board, size: int) -> str | None:
    need = needed(board, size)
    if sum(1 for p in board.values() if p == "B") >= need:
        return "black"
    if sum(1 for p in board.values() if p == "W") >= need:
        return "white"
    return None


def play(text: str, move: str, classic: bool) -> str:
    """The position string after a move known to be legal."""
    board, size, side = parse(text)
    sq = {name(s): s for s in board}
    if "-" in move:
        origin, rest = move.split("-")
        dest, target = rest.split("/")
        board[sq[origin]] = None
        board[sq[dest]] = "S"
    else:
        target = move
    board[sq[target]] = "b" if side == "b" else "w"
    decided = {}
    for s in board:
        if board[s] == "S" and trapped(board, size, s, classic):
            black = biggest_group(board, size, s, "b")
            white = biggest_group(board, size, s, "w")
            if black > white:
                decided[s] = "B"
            elif white > black:
                decided[s] = "W"
            else:
                decided[s] = "W" if side == "b" else "B"
    board.update(decided)
    return unparse(board, size, "w" if side == "b" else "b")


def perft(text: str, depth: int, classic: bool) -> int:
    if depth == 0:
        return 1
    board, size, _side = parse(text)
    total = 0
    for move in moves(board, size, classic):
        total += perft(play(text, move, classic), depth - 1, classic)
    return total
