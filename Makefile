# One command for each common job.
.PHONY: test lint docs bench sample

test:            ## lint, types and the whole suite on SQLite and PostgreSQL
	./scripts/test

lint:
	.venv/bin/ruff check kairos projections cli tests scripts benchmarks
	./scripts/typecheck

docs:            ## regenerate docs/cli.md from --help
	.venv/bin/python scripts/cli_reference.py

sample:          ## regenerate the sample home's logs/ (byte-identical)
	.venv/bin/python scripts/make_sample.py

bench:           ## the benchmarks recorded in docs/benchmarks.md
	.venv/bin/python benchmarks/bench_core.py
