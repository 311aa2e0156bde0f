"""One install at a time into a cache shared by every test process of the machine (the suite's workers, a suite
running beside it): the real agents' adapters and the Kandev runtime, each installed with npm when missing."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

# the suite's downloads (about 1.2 GB of agents, 0.5 GB for the Kandev runtime, and npm's own cache of them):
# $KANDEV_TEST_CACHE, else kandev-tui's folder in the user's cache folder ($XDG_CACHE_HOME, else ~/.cache)
TEST_CACHE = Path(os.environ.get("KANDEV_TEST_CACHE")
                  or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kandev-tui")


def npm_cache() -> list[str]:
    """npm's own cache for the suite's installs, under :data:`TEST_CACHE` (not ~/.npm)."""
    return ["--cache", str(TEST_CACHE / "npm")]


@contextmanager
def only_one_installs(cache: Path) -> Iterator[None]:
    """Hold ``cache``'s install lock (a file beside it) for the block: another process that wants to install into it
    waits, then finds it installed."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache.parent / f".{cache.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
