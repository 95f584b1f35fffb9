# `make demo` and `make test` each create .venv, install graphblast into it, then run.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
EXTRAS ?= all

.PHONY: demo test install clean

$(STAMP): pyproject.toml setup.py src/graphblast/io/_mmfast.c src/graphblast/backends/cpu/_intersect.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m graphblast.demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider

clean:
	rm -rf $(VENV) build src/*.egg-info
