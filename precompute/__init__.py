"""Offline builds: evaluator-backed equity features, hand isomorphism, card abstraction."""
