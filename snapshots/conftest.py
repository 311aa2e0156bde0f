import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # so that tests.app_helpers imports

from tests.conftest import kind_kept, still_cursors  # noqa: E402,F401  (autouse: no cursor blinks; kinds kept)
