"""Distillers: turn a pair's current files and recent events into a proposal.

A distiller gets a :class:`~kairos.dream.distill.base.Context` (what the dream
sees) and returns a :class:`~kairos.dream.distill.base.Draft` (new lines per file,
each citing event ids, the lines it dropped and why, and a report of the
four phases).  It does no I/O on the home: the dream service loads the
context and checks the draft against the guards before anything is written.

The rules, pure and shared by the ``rules`` distiller and the guards of every
distiller: ``when`` and ``tense`` (time), ``claims``, ``lexicon`` and
``slots`` (updates), ``facts`` (classes and duplicates), ``faithful``
(meaning), ``derive`` (the files from their sources), ``words`` (tokens,
stems, spellings).
"""
