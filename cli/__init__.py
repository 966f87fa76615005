"""The ``kairos`` command line: a thin click shell over :mod:`kairos`."""
