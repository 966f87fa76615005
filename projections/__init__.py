"""The read side of Kairos (installed as ``kairos.projections``): the read
models (current files, the event index) kept in step with the store, and the
materialized files; it folds with :mod:`kairos.domain.fold`."""
