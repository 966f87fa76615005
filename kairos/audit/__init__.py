"""Audit: queries, traces, diffs and what was known when (:mod:`trace`),
signed checkpoints (:mod:`checkpoints`) and export bundles (:mod:`export`).
Everything here reads, but sealing a checkpoint."""
