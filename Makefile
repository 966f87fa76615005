# One command for each common job.
.PHONY: test lint docs bench sample

test:            ## lint, types and the whole suite on SQLite and PostgreSQL
	./scripts/test

lint:            ## ruff, vulture, mypy strict and the import contracts
	.venv/bin/ruff check kairos projections cli tests scripts benchmarks
	.venv/bin/vulture kairos projections cli scripts/vulture_whitelist.py
	./scripts/typecheck

docs:            ## regenerate the generated docs (CLI reference, events, module map)
	.venv/bin/python scripts/cli_reference.py
	.venv/bin/python scripts/architecture_doc.py

sample:          ## regenerate the sample home's logs/ (byte-identical)
	.venv/bin/python scripts/make_sample.py

bench:           ## the benchmarks recorded in docs/benchmarks.md
	.venv/bin/python benchmarks/bench_core.py
