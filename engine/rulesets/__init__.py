"""The rulesets, one module each; every module exposes ``RULESET``, found by its ``name``."""
