# Entry points of the README. `make release` builds a release from the sample corpus;
# `make test` runs the linter, the type checker and the whole test suite (this is what .ci/run calls).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORPUS ?= ../shared/corpus/pro-sample.tar.gz

LAYERS := flows transforms expectations effects cli
# The editable install puts build/editable on sys.path (pyproject.toml, dev-mode-dirs): gopat/<layer> links there,
# and gopat/__init__.py links to api/__init__.py (the public Python API).
EDITABLE := build/editable/gopat/__init__.py

.PHONY: setup system-deps release lint typecheck test tables-doc docs

$(BIN)/gopat: pyproject.toml requirements.lock | $(EDITABLE)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==0.13.9
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e '.[test]'
	touch $(BIN)/gopat

$(EDITABLE):
	mkdir -p $(@D)
	for layer in $(LAYERS); do ln -sfn ../../../$$layer $(@D)/$$layer; done
	ln -sfn ../../../api/__init__.py $@

setup: $(BIN)/gopat $(EDITABLE)

# Debian's packages for the tests (root, as on CI): headless Chromium renders the HTML report, and
# GNU Go (installed as /usr/games/gnugo) plays against `gopat gtp`.
system-deps:
	command -v chromium >/dev/null && test -x /usr/games/gnugo || (apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium gnugo >/dev/null)

release: setup
	$(BIN)/gopat build --source $(CORPUS)

# docs/tables.md, the data dictionary, from the table registry (transforms/tables/registry.py).
tables-doc: setup
	$(BIN)/python -m gopat.transforms.tables.dictionary docs/tables.md

lint: setup
	$(BIN)/ruff check .

# mypy finds the editable install's build/editable but, as for any installed package without a py.typed
# marker, does not check it; so it reads the layers through links under build/typing/gopat/.
typecheck: setup
	rm -rf build/typing && mkdir -p build/typing/gopat
	for layer in $(LAYERS); do ln -s ../../../$$layer build/typing/gopat/$$layer; done
	ln -s ../../../api/__init__.py build/typing/gopat/__init__.py
	$(BIN)/mypy -p gopat

# The documentation site from docs/ (mkdocs.yml): --strict fails on a broken link or anchor and on a page
# missing from the nav. build/ is git-ignored.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

# Two test processes (pytest-xdist), each taking whole test files, so that a file's fixtures are built once.
test: setup system-deps lint typecheck docs
	$(BIN)/python -m pytest --numprocesses 2 --dist loadfile
