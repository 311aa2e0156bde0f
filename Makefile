# kandev-tui: `make demo` sets everything up and opens the demo; `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-fast bench fuzz clean

setup: $(STAMP)

# (Re)install when pyproject.toml changes; editable, with the test extras.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[test]"
	@touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/kandev-tui demo

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) benchmarks/contract.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
