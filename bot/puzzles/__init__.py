"""Puzzles: positions with a forced win found in finished games and AI self-play, checked unique, then played.

``values`` holds the puzzle as a plain value every layer may import.
"""
