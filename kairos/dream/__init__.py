"""The nightly dream: distil a pair's memory into a reviewable version
(:mod:`service`), run it over every pair (:mod:`runner`), with the
distillers and their guards (:mod:`distill`)."""
