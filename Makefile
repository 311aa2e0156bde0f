# kandev-tui: `make demo` sets everything up and opens the demo; `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint test-fast bench fuzz reliability kandev-runtime lock clean

setup: $(STAMP)

# (Re)install when pyproject.toml or the lock changes; editable, with the test extras, at the locked versions.
$(STAMP): pyproject.toml requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -c requirements.lock -e ".[test]"
	@touch $(STAMP)

# requirements.lock: every dependency (and test dependency) resolved afresh in a scratch venv, pinned.
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --disable-pip-version-check ".[test]"
	{ sed -n '1,3p' requirements.lock; .lock-venv/bin/python -m pip freeze --exclude-editable | grep -vi '^kandev'; } > requirements.lock.new
	mv requirements.lock.new requirements.lock && rm -rf .lock-venv

demo: $(STAMP)
	$(VENV)/bin/kandev-tui demo

# the suite in workers, one per core up to four, each test module in one worker (its module fixtures made once);
# what each worker starts it checks it ended, and the files left are looked for once all are done (tests/conftest.py)
test: $(STAMP)
	$(PY) -m pytest -n auto --maxprocesses=4 --dist loadscope

# the quick loop: the unit tests only (tests/unit: no app, no process; tests/support/kinds.py), in one process
test-fast: $(STAMP)
	$(PY) -m pytest tests/unit

# ruff's bug-finding rules ([tool.ruff.lint] in pyproject.toml) and mypy ([tool.mypy]); .ci/run runs this before the suite
lint: $(STAMP)
	$(PY) -m ruff check kandev_tui tests benchmarks
	$(PY) -m mypy

bench: $(STAMP)
	$(PY) benchmarks/contract.py

# The long fuzz run: 10,000 examples per target (parser, stored calls, CSV, the app's render path).
fuzz: $(STAMP)
	$(PY) benchmarks/fuzz.py

# docs/reliability.md: every attack and fault the tests try, from the tests' own results.
reliability: $(STAMP)
	KANDEV_RELIABILITY=docs/reliability.md $(PY) -m pytest -m reliability -p no:randomly

# The pinned Kandev runtime the attach tests start (npm, into $XDG_CACHE_HOME/kandev-tui, else ~/.cache/kandev-tui; the tests do it when missing).
kandev-runtime: $(STAMP)
	$(PY) -c "from tests.support.kandev_backend import runtime_bin; print(runtime_bin())"

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache build *.egg-info
