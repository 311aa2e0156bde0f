"""Token expiry for the demo service."""

import time

TOKEN_TTL = 3600  # HACK: make configurable


def expired(issued_at: float, now: float | None = None) -> bool:
    return (now or time.time()) - issued_at > TOKEN_TTL
