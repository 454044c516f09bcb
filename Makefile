# Two commands on a fresh clone:  `make demo`  and  `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_DB ?= .vgdb
STDLIB := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')

.PHONY: install demo test lint bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	HNSWLIB_NO_NATIVE=1 $(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/vgdb ingest . --db $(DEMO_DB) --name vectorgraphdb
	$(BIN)/vgdb ingest $(STDLIB) --db $(DEMO_DB) --name stdlib \
		--exclude 'test/' --exclude 'tests/' --exclude 'idle_test/'
	$(BIN)/vgdb ingest-session datasets/sessions/example-session.jsonl --db $(DEMO_DB)
	$(BIN)/vgdb overview --db $(DEMO_DB)
	$(BIN)/vgdb overview stdlib --db $(DEMO_DB)
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

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python benchmarks/ingest.py

clean:
	rm -rf $(VENV) .vgdb
