"""Agent tests run whatever the machine's load: a solve's pace rule stays off except where a test turns it on."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_pace_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """A solve is never given up for its pace (``agent.solving.PACE_MARGIN`` 0).

    The rule forecasts from a solve's first iterations; on a loaded machine they come in
    bursts, and a test about something else would see the blueprint answer instead.  The
    tests of the rule set the margin back (``monkeypatch.setattr``).
    """
    monkeypatch.setattr("agent.solving.PACE_MARGIN", 0.0)
