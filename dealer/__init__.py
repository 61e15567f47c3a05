"""The dealer: a reference-compatible ACPC dealer, baseline bots, local matches and evaluation."""
