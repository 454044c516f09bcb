# Two commands on a fresh clone:  `make demo`  and  `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_DB ?= .vgdb
DEMO_PORT ?= 8765
STDLIB := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')

.PHONY: install demo test lint bench clean chromium

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	HNSWLIB_NO_NATIVE=1 $(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,notebooks,dask]'
	touch $(STAMP)

# the project's own modules are installed editable, so pip compiles none of them: compiled
# here (again on every install, only what changed) so that a `vgdb` run never compiles
# ~300 modules (~0.4 s) where the environment forbids writing them (PYTHONDONTWRITEBYTECODE)
install: $(STAMP)
	@PYTHONDONTWRITEBYTECODE= $(BIN)/python -m compileall -q api graphdb ingest queries schema vectorgraphdb > /dev/null

demo: install
	$(BIN)/vgdb ingest . --db $(DEMO_DB) --name vectorgraphdb
	$(BIN)/vgdb ingest $(STDLIB) --db $(DEMO_DB) --name stdlib \
		--exclude 'test/' --exclude 'tests/' --exclude 'idle_test/'
	$(BIN)/vgdb ingest-session datasets/sessions/example-session.jsonl --db $(DEMO_DB)
	$(BIN)/vgdb ingest-papers datasets/academic/papers.jsonl --db $(DEMO_DB)
	$(BIN)/vgdb check --db $(DEMO_DB)
	$(BIN)/vgdb overview --db $(DEMO_DB)
	$(BIN)/vgdb overview stdlib --db $(DEMO_DB)
	@echo; echo "Module boundaries of vectorgraphdb found by Leiden (top-level communities):"
	$(BIN)/vgdb communities vectorgraphdb --db $(DEMO_DB) --boundaries --limit 8
	@echo; echo "... and of the standard library:"
	$(BIN)/vgdb communities stdlib --db $(DEMO_DB) --limit 8
	@echo; echo "Who calls json.loads in the standard library?"
	$(BIN)/vgdb cypher --db $(DEMO_DB) \
		"MATCH (c:Symbol)-[e:CALLS]->(t:Symbol {id: 'sym:stdlib/json/__init__.py#loads'}) \
		 RETURN c.id AS caller, e.line AS line, e.resolution AS resolution ORDER BY caller LIMIT 10"
	@echo; echo "Which classes inherit from asyncio's Future, directly or not?"
	$(BIN)/vgdb cypher --db $(DEMO_DB) \
		"MATCH (c:Symbol)-[:INHERITS*1..3]->(t:Symbol {id: 'sym:stdlib/asyncio/futures.py#Future'}) \
		 RETURN DISTINCT c.id AS subclass ORDER BY subclass"
	@echo; echo "Where did vectorgraphdb's load_code come from (git history, renames followed, decisions)?"
	$(BIN)/vgdb provenance --db $(DEMO_DB) graphdb/loader.py#load_code
	@echo; echo "Which vectorgraphdb files change together most often?"
	$(BIN)/vgdb cypher --db $(DEMO_DB) \
		"MATCH (a:File)-[e:CO_CHANGED]->(b:File) WHERE a.repo = 'vectorgraphdb' \
		 RETURN a.path AS file, b.path AS partner, e.count AS commits, \
		 round(e.weight, 2) AS weight ORDER BY commits DESC, file, partner LIMIT 8"
	@echo; echo "Which vectorgraphdb files import from its schema package (re-exports followed to the definition)?"
	$(BIN)/vgdb cypher --db $(DEMO_DB) \
		"MATCH (f:File)-[i:IMPORTS]->(t) WHERE t.id STARTS WITH 'sym:vectorgraphdb/schema/' \
		 OR t.id STARTS WITH 'file:vectorgraphdb/schema/' \
		 RETURN f.path AS importer, count(*) AS names ORDER BY names DESC, importer LIMIT 12"
	@echo; echo "Which papers cite Leiden, and which code implements it?"
	$(BIN)/vgdb citations 10.1038/s41598-019-41695-z --db $(DEMO_DB) --depth 1
	$(BIN)/vgdb paper-code 10.1038/s41598-019-41695-z --db $(DEMO_DB)
	@echo; echo "What must an agent know before changing graphdb/store.py (a briefing of about 500 tokens)?"
	$(BIN)/vgdb briefing graphdb/store.py --db $(DEMO_DB) --tier standard
	@echo; echo "What breaks if Store.cypher changes (impact, tests, communities, decisions)?"
	$(BIN)/vgdb impact graphdb/store.py#Store.cypher --db $(DEMO_DB) --depth 2 --limit 10
	@echo; cat api/graphql/examples.graphql
	@echo; echo "Serving the demo graph over GraphQL: open http://127.0.0.1:$(DEMO_PORT)/graphql (Ctrl-C stops)"
	$(BIN)/vgdb serve --db $(DEMO_DB) --port $(DEMO_PORT) --anonymous

test: $(STAMP) chromium
	$(BIN)/python -m pytest

# Debian's Chromium for the GraphiQL browser test (root may install it; CI runs as root)
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } || \
		echo "chromium is missing and cannot be installed without root: the GraphiQL test will fail"

lint: $(STAMP)
	$(BIN)/ruff check .

bench: install
	$(BIN)/python benchmarks/ingest.py

clean:
	rm -rf $(VENV) .vgdb
