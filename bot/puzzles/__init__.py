"""Puzzles: positions with a forced win found in finished games and AI self-play, checked unique, then played.

``values`` holds the puzzle as a plain value every layer may import; ``solve`` is the proving search that
finds a position's forced line and checks it unique; ``mine`` walks a finished game's positions (or a
self-play game's) with it. Pure, like the AI: the store's side of mining is ``bot.puzzle_mining``.
"""
