# Entry points of the README. `make release` builds a release from the sample corpus;
# `make test` runs the whole test suite (this is what .ci/run calls).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORPUS ?= ../shared/corpus/pro-sample.tar.gz

.PHONY: setup release test

$(BIN)/gopat: pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==0.13.9
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e '.[test]'
	touch $(BIN)/gopat

setup: $(BIN)/gopat

release: setup
	$(BIN)/gopat build --source $(CORPUS)

test: setup
	$(BIN)/python -m pytest
