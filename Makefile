# Two commands set everything up on a fresh machine (Python 3.11, pip, make):
#   make run    the main job on its defaults
#   make test   the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: run test bench clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/catzoo show cat_in_the_box --players 4 --seed 1 --policy heuristic --policy random

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python benchmarks/env_speed.py

clean:
	rm -rf $(VENV) build *.egg-info
