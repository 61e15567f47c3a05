"""Coarse correlated equilibria of small games: CFR-Jr and CFR-S, the game in full, the kernels and the exact gap."""
