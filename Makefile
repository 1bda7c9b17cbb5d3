# Two commands set everything up on a fresh machine (Python 3.11, pip, make):
#   make run    the main job on its defaults: train, then an arena
#   make test   the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

# Each `make run` writes a new run folder: earlier runs are never overwritten.
DEMO := runs/demo-$(shell date +%Y%m%d-%H%M%S)

.PHONY: run show test bench clean

# The compiled rules cores (and the CATsle heuristic's estimates) are built at install:
# editing one installs again.
$(STAMP): pyproject.toml setup.py $(wildcard games/*.pyx games/*/*.pyx games/*.pxi games/*/*.pxi policies/*/*.pyx)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $(STAMP)

# The whole story in a few minutes on 2 cores: a short run of the batched self-play trainer
# on Cat in the Box (4 players), then an arena between the fresh policy, the shipped one
# and the bots (table with ratings printed; JSON, CSV and plot written beside the run).
# The run first clones the heuristic (2,000 games, about 88% of its held-out moves), then
# PPO improves on it for 3 million decisions: from random weights the same decisions finish
# behind the heuristic. One vector and one torch thread: the second torch thread costs
# several times the CPU as soon as another process holds a core, and the arena's two
# workers run after training anyway.
run: $(STAMP)
	$(BIN)/catzoo train --config configs/cat_in_the_box.yaml --steps 3000000 \
		--set imitation.games=2000 --set imitation.epochs=8 --set imitation.batch_size=1024 \
		--set imitation.learning_rate=0.002 --set vector.threads=1 --set torch_threads=1 \
		--set eval.interval=1500000 --set checkpoint_interval=1500000 --run-dir $(DEMO)
	$(BIN)/catzoo arena cat_in_the_box --policy $(DEMO)/policy \
		--policy shipped:cat_in_the_box --policy heuristic --policy random \
		--games 400 --workers 2 --seed 0 --out $(DEMO)/arena

# One seeded game between bots, printed turn by turn.
show: $(STAMP)
	$(BIN)/catzoo show cat_in_the_box --players 4 --seed 1 --policy heuristic --policy random

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python benchmarks/env_speed.py

clean:
	rm -rf $(VENV) build *.egg-info
