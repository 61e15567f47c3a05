"""Match evaluation: match and decision logs in, AIVAT, statistics and reports out."""
