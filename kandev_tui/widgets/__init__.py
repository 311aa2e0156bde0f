"""Textual widgets, one concern a module. They take validated data and draw it."""
