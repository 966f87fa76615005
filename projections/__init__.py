"""The read side of Kairos: pure folds from events to memory files, and the
read models (current files, the event index) kept in step with the store."""
