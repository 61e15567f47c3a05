"""Solving: betting trees, the CFR family, MCCFR, best response, and the artifact store."""
