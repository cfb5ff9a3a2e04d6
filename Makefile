# Entry points of the README. `make release` builds a release from the sample corpus;
# `make test` runs the linter, the type checker and the whole test suite (this is what .ci/run calls).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORPUS ?= ../shared/corpus/pro-sample.tar.gz

LAYERS := flows transforms expectations effects cli

.PHONY: setup system-deps release lint typecheck test

$(BIN)/gopat: pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==0.13.9
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e '.[test]'
	touch $(BIN)/gopat

setup: $(BIN)/gopat

# Debian's packages for the tests (root, as on CI): headless Chromium renders the HTML report, and
# GNU Go (installed as /usr/games/gnugo) plays against `gopat gtp`.
system-deps:
	command -v chromium >/dev/null && test -x /usr/games/gnugo || (apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium gnugo >/dev/null)

release: setup
	$(BIN)/gopat build --source $(CORPUS)

lint: setup
	$(BIN)/ruff check .

# mypy cannot follow the editable install's import hook (pyproject.toml maps each layer folder to
# gopat.<layer>), so it reads the layers through links under build/typing/gopat/.
typecheck: setup
	rm -rf build/typing && mkdir -p build/typing/gopat
	for layer in $(LAYERS); do ln -s ../../../$$layer build/typing/gopat/$$layer; done
	$(BIN)/mypy -p gopat

test: setup system-deps lint typecheck
	$(BIN)/python -m pytest
