# Two commands on a fresh machine (see README):
#   make generate   set up, then generate challenge trees from specs/ into generated/
#   make test       set up everything (toolchains, browser), then run the whole test suite
# The extras they install (pyproject.toml): 'generate' (formatters, torch) and 'test' (all of them).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: generate test test-fast golden docs setup setup-test

generate: $(VENV)/.setup-generate
	$(BIN)/chgen generate

test: $(VENV)/.setup-test
	$(BIN)/python -m pytest

# The fast lane while editing: everything but real compilers and interpreters (CI runs `make test`).
test-fast: $(VENV)/.setup-test
	$(BIN)/python -m pytest -m "not slow"

# Regenerate the golden records after an intended change; review the diff like code.
golden: $(VENV)/.setup-generate
	$(BIN)/chgen generate --force --out tests/golden/tree tests/golden/specs/*.yaml

# docs/spec.md and the spec format's JSON Schema, from the spec model's field descriptions.
docs: $(VENV)/.setup-generate
	$(BIN)/python -m generator.spec_docs

setup: $(VENV)/.setup-generate
setup-test: $(VENV)/.setup-test

$(VENV)/.setup-generate: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[generate]'
	touch $@

$(VENV)/.setup-test: pyproject.toml $(VENV)/.setup-generate scripts/install-system-packages.sh
	scripts/install-system-packages.sh
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@
