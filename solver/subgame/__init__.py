"""Subgame solving: the range solver from any public state, safe gadgets, the blueprint's values and alternatives, spots."""
