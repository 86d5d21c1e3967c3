"""Veletas Bot: play Veletas in Discord."""
