# Entry points of the README. `make release` builds a release from the sample corpus;
# `make test` runs the whole test suite (this is what .ci/run calls).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORPUS ?= ../shared/corpus/pro-sample.tar.gz

.PHONY: setup system-deps release test

$(BIN)/gopat: pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==0.13.9
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e '.[test]'
	touch $(BIN)/gopat

setup: $(BIN)/gopat

# Headless Chromium renders the HTML report in its test (Debian's package; root, as on CI).
system-deps:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null)

release: setup
	$(BIN)/gopat build --source $(CORPUS)

test: setup system-deps
	$(BIN)/python -m pytest
