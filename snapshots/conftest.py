import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # so that tests.support.app_helpers imports

# autouse: no cursor blinks; each test held to its kind from setup to teardown (tests/support/kinds.py)
from tests.conftest import (  # noqa: E402,F401
    pytest_runtest_makereport,
    pytest_runtest_setup,
    pytest_runtest_teardown,
    still_cursors,
)
