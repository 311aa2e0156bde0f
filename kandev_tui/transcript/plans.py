"""ACP plan operations (``plan: {}`` offered in ``initialize``): ``plan_update`` sets one of the session's plans by its
``planId`` (a checklist of entries, Markdown, or a file the plan is kept in) and ``plan_removed`` takes it away.
Several plans live at once, each one item patched in place, across turns. Headless: the normaliser's helper."""

from __future__ import annotations

from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type

from .items import PLAN
from .items import Item

MAX_MARKDOWN = 200_000
MAX_PLANS = 200  # plans followed at once (an agent that never removes them cannot grow memory)


def plan_entries(entries: Any) -> list[dict[str, Any]]:
    """A plan's checklist entries as the transcript keeps them (content, priority, status)."""
    return [{"content": str(e.get("content", e.get("text", "")))[:2000], "priority": e.get("priority"),
             "status": e.get("status")} for e in entries or [] if isinstance(e, dict)]


class Plans:
    """The session's plans by the agent's ``planId``."""

    def __init__(self, next_key: Callable[[str], str]) -> None:
        self._next = next_key
        self._items: dict[str, Item] = {}

    def update(self, update: dict[str, Any], turn: int) -> list[Item]:
        plan = of_type(update, "plan", dict, {})
        plan_id = plan.get("planId")
        if not isinstance(plan_id, str):
            return []
        payload: dict[str, Any] = {"plan_id": plan_id[:200]}
        kind = plan.get("type")
        if kind == "markdown":
            payload["markdown"] = of_type(plan, "content", str, "")[:MAX_MARKDOWN]
        elif kind == "file":
            payload["file"] = of_type(plan, "uri", str, "")[:4000]
        else:
            payload["entries"] = plan_entries(plan.get("entries"))
        item = self._items.get(plan_id)
        if item is None:
            if len(self._items) >= MAX_PLANS:
                self._items.pop(next(iter(self._items)))
            item = Item(self._next("plan"), PLAN, turn, payload)
        else:
            item = item.but(payload=payload)
        self._items[plan_id] = item
        return [item]

    def removed(self, update: dict[str, Any]) -> list[Item]:
        plan_id = update.get("planId")
        item = self._items.pop(plan_id, None) if isinstance(plan_id, str) else None
        if item is None:
            return []
        return [item.but(payload={**item.payload, "removed": True}, final=True)]
