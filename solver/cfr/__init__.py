"""The CFR family over whole games: full-width CFR (vanilla, CFR+, Linear, DCFR) and external-sampling MCCFR."""
