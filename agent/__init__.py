"""The heads-up no-limit competition agent.

``agent connect HOST PORT`` (:mod:`agent.cli`) plays a match over the ACPC protocol:
:mod:`agent.loop` reads every MATCHSTATE line, :mod:`agent.player` decides through
:mod:`agent.strategist` (blueprint with action translation, :mod:`agent.blueprint_view`
computed once per decision; real-time subgame solving in :mod:`agent.solving`),
:mod:`agent.strategy` makes every strategy legal and logs it for every private hand,
and :mod:`agent.timing` keeps each decision inside the dealer's time limits.
"""
