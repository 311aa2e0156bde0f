"""Item versions deep-frozen as the normaliser hands them out (every in-process test; see ``conftest.py``).

An item version is a value: once handed out, neither the normaliser (which keeps working state for open calls,
plans and texts) nor anything that reads it (the store, the session model, the widgets) may change it. Nothing in
Python stops a shared dict from being changed, so in the tests each version's payload is replaced, as it is handed
out, by a deep copy whose dicts and lists refuse every change (they are still ``dict`` and ``list`` to every
``isinstance``): a reader that changes one fails where it does. The payload the normaliser built is kept beside
its frozen copy; a test fails at its end when one of those changed afterwards (the normaliser changed a version it
had handed out, through state it still holds).
"""

from __future__ import annotations

from typing import Any, NoReturn

from kandev_tui.transcript.items import Item, PackedItem


class FrozenError(TypeError):
    pass


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise FrozenError("an item version's payload was changed after it was handed out")


class FrozenDict(dict):
    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse  # type: ignore

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return thaw(self)


class FrozenList(list):
    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = reverse = _refuse  # type: ignore
    __iadd__ = __imul__ = _refuse  # type: ignore

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)


def freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return FrozenDict((k, freeze(v)) for k, v in value.items())
    if isinstance(value, list):
        return FrozenList(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value


class Versions:
    """The versions handed out in one test: each one's payload frozen, the normaliser's own kept to compare.
    :data:`current` is the running test's."""

    def __init__(self) -> None:
        self.handed: list[tuple[str, int, Any, FrozenDict]] = []  # (key, version, the built payload, its copy)

    def hand_out(self, items: list[Item]) -> list[Item]:
        for item in items:
            if isinstance(item, PackedItem):  # compressed bytes: it cannot change
                continue
            built = item.payload
            frozen = freeze(built)
            object.__setattr__(item, "payload", frozen)  # a frozen dataclass's field, set once more (tests only)
            self.handed.append((item.key, item.version, built, frozen))
        return items

    def changed(self) -> list[str]:
        """The versions whose payload, as the normaliser built it, no longer equals what was handed out."""
        return [f"{key} (version {version})" for key, version, built, frozen in self.handed if built != frozen]


current: Versions | None = None  # the running test's (set by the autouse fixture in conftest.py)
