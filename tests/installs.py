"""One install at a time into a cache shared by every test process of the machine (the suite's workers, a suite
running beside it): the real agents' adapters and the Kandev runtime, each installed with npm when missing."""

from __future__ import annotations

import fcntl
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


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
