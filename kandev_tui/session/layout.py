"""How items flow on screen: cards, collapsed tool groups, and the rest.

A *run* is a stretch of consecutive tool calls (any other visible item ends
it). In a run, calls with a renderer become cards of their own, up to the
per-turn card limit (rich output always stands alone and never counts); the
other calls collapse into one group per run, whose summary names them
(``3 tools: read, search, execute``, or ``1 tool + 2 cards`` when cards
stand beside it). A call that spawned subagents (a subagent item names it, ``spawned_by``) leaves its group for an
entry of its own, a *call* entry, that holds the call and each child it spawned, in the order they came: the child is
shown inside the call that made it, and what follows starts a new run below. A card that shows what its call made
(a chart: the renderer's ``after_request``) moves below the permission request for its call when that is placed, live
(the call still running) as in a stored session (the call finished, placed before its request): the answer that
allowed the chart comes before it; the place it left is a ``moved`` entry, drawn as nothing. Headless: the view asks
this where each item goes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from kandev_tui.transcript.items import PERMISSION, SESSION_INFO, SUBAGENT, TOOL, USAGE
from kandev_tui.transcript.items import Item

from kandev_tui.renderers.registry import Registry, Renderer, leaf_name

NOT_IN_FLOW = {SESSION_INFO, USAGE}


@dataclass
class Entry:
    key: str
    kind: str  # "item", "card", "group", "call" (a tool call and the subagents it spawned) or "moved" (nothing)
    turn: int
    run: int
    item_keys: list[str] = field(default_factory=list)
    renderer: Renderer | None = None
    index: int = -1  # position in Layout.entries (entries are only ever appended)
    shared: bool = field(default=False, compare=False)  # handed to the UI: never changed again (the layout copies it)


def tool_label(payload: dict[str, Any]) -> str:
    """A short name for a tool in a group summary: ``read``, ``execute``, an MCP tool's name."""
    if payload.get("mcp") and isinstance(payload.get("name"), str):
        return leaf_name(payload["name"])
    kind = payload.get("kind") or payload.get("name") or "tool"
    if kind == "other" and isinstance(payload.get("title"), str) and payload["title"].strip():
        title = payload["title"].strip()
        word = title.split()[0].rstrip(":;,.") or title.split()[0]  # "Read: a.py" names the tool "Read"
        return leaf_name(title) if title.startswith("mcp__") or "/" in title else word[:24]
    return str(kind)


class Layout:
    """Places items into entries, incrementally, as they arrive and change."""

    def __init__(self, registry: Registry, card_limit: int = 16,
                 match: Callable[[Item], Renderer | None] | None = None) -> None:
        """``match``: the renderer of a tool-call version (the registry's match of its payload by default; the
        transcript model's matches it where items arrive, remembered by version)."""
        self.registry = registry
        self.match = match or (lambda item: registry.match(item.payload))
        self.card_limit = card_limit
        self.entries: list[Entry] = []
        self.entry_of: dict[str, Entry] = {}  # item key → entry
        self.by_key: dict[str, Entry] = {}  # entry key → entry
        self.calls: dict[str, Item] = {}  # tool call item key → newest version (what summaries and promotions read)
        self._run = 0
        self._group_of_run: dict[int, Entry] = {}
        self._groups_in_run: dict[int, list[str]] = {}  # every group made in a run, by key (its summary counts its cards)
        self._cards_in_turn: dict[int, int] = {}
        self._cards_in_run: dict[int, int] = {}  # counted as cards are placed: a group's summary reads it per batch
        self._last_was_tool = False
        self._call_keys: dict[str, str] = {}  # tool call id → its item's key (where a subagent's spawner is found)
        self.rebuilt: list[tuple[str, Entry]] = []  # (old key, entry) whose widget must be rebuilt; the view drains it

    def _own(self, entry: Entry) -> Entry:
        """``entry`` to change: itself, or, once it has been handed to the UI (``shared``), a copy that takes its
        place here (the UI keeps what it was given, unchanged, until the copy is handed over in turn)."""
        if not entry.shared:
            return entry
        copy = replace(entry, item_keys=list(entry.item_keys), shared=False)
        self.entries[copy.index] = copy
        self.by_key[copy.key] = copy
        for key in copy.item_keys:
            self.entry_of[key] = copy
        if self._group_of_run.get(copy.run) is entry:
            self._group_of_run[copy.run] = copy
        return copy

    def cards_in_run(self, run: int) -> int:
        return self._cards_in_run.get(run, 0)

    def groups_of(self, run: int) -> list[str]:
        """The keys of the run's groups now (a group whose first call became a card is a group no more)."""
        return [key for key in self._groups_in_run.get(run, ()) if key in self.by_key and self.by_key[key].kind == "group"]

    def summary(self, group: Entry) -> str:
        """``3 tools: read, search, execute`` / ``1 tool: execute · 2 cards`` (the run's cards, drawn apart)."""
        count = len(group.item_keys)
        cards = self.cards_in_run(group.run)
        noun = "tool" if count == 1 else "tools"
        names: list[str] = []
        for key in group.item_keys:
            label = tool_label(self.calls[key].payload)
            if label not in names:
                names.append(label)
        shown = ", ".join(names[:4]) + (f", +{len(names) - 4} more" if len(names) > 4 else "")
        return f"{count} {noun}: {shown}" + (f" · {cards} card{'s' if cards != 1 else ''}" if cards else "")

    def place(self, item: Item) -> tuple[Entry | None, bool]:
        """The entry an item belongs to, and whether that entry is new."""
        if item.kind == TOOL:
            self.calls[item.key] = item
        existing = self.entry_of.get(item.key)
        if existing is not None:
            if existing.kind == "group" and item.kind == TOOL and (
                    item.status not in ("pending", "in_progress", None)
                    or isinstance(item.payload.get("rich_output"), dict)):  # kandev-tui's server saw it: a card now
                return self._maybe_promote(existing, item)
            return existing, False
        if item.kind in NOT_IN_FLOW:
            return None, False
        if item.kind == SUBAGENT and (inside := self._into_spawner(item)) is not None:
            return inside
        if item.kind != TOOL:
            if self._last_was_tool:
                self._run += 1
            self._last_was_tool = False
            entry = self._add(Entry(item.key, "item", item.turn, self._run, [item.key]), item)
            if item.kind == PERMISSION and isinstance(item.tool_call_id, str):
                self._card_below_request(item.tool_call_id)
            return entry, True
        if not self._last_was_tool:
            self._run += 1
        self._last_was_tool = True
        if isinstance(item.tool_call_id, str):
            self._call_keys[item.tool_call_id] = item.key
        renderer = self._renderer_for(item)
        if renderer is not None and (renderer.stands_alone or self._cards_in_turn.get(item.turn, 0) < self.card_limit):
            if not renderer.stands_alone:
                self._cards_in_turn[item.turn] = self._cards_in_turn.get(item.turn, 0) + 1
            entry = Entry(item.key, "card", item.turn, self._run, [item.key], renderer)
            return self._add(entry, item), True
        group = self._group_of_run.get(self._run)
        if group is not None:
            group = self._own(group)
            group.item_keys.append(item.key)
            self.entry_of[item.key] = group
            return group, False
        group = Entry(f"group:{item.key}", "group", item.turn, self._run, [item.key])
        self._group_of_run[self._run] = group
        self._groups_in_run.setdefault(self._run, []).append(group.key)
        return self._add(group, item), True

    def _maybe_promote(self, group: Entry, item: Item) -> tuple[Entry, bool]:
        """A grouped call whose result names a renderer (``__renderer``), or that kandev-tui's own MCP server has
        seen as a rich-output call, leaves the group for a card.

        The order matches what placing the finished call directly gives (as opening the stored
        session does): the first member's card takes the group's place and the rest of the group
        follows it; a later member's card comes after the group.
        """
        renderer = self._renderer_for(item)
        if renderer is None or not (renderer.stands_alone or self._cards_in_turn.get(item.turn, 0) < self.card_limit):
            return group, False
        if not renderer.stands_alone:
            self._cards_in_turn[item.turn] = self._cards_in_turn.get(item.turn, 0) + 1
        return self._take_out(group, item, "card", renderer)

    def _take_out(self, group: Entry, item: Item, kind: str, renderer: Renderer | None) -> tuple[Entry, bool]:
        """The grouped call ``item`` out of ``group``, into an entry of its own of ``kind`` (a card, a call): the first
        member's takes the group's place and the rest of the group follows it; a later member's comes after the
        group. The entry, and whether it is new (appended)."""
        group = self._own(group)
        rest = [key for key in group.item_keys if key != item.key]
        if group.item_keys[0] == item.key:
            old_key = group.key
            del self.by_key[old_key]
            group.key, group.kind, group.item_keys, group.renderer = item.key, kind, [item.key], renderer
            self.by_key[item.key] = group
            if kind == "card":
                self._cards_in_run[group.run] = self._cards_in_run.get(group.run, 0) + 1
            self.rebuilt.append((old_key, group))
            if self._group_of_run.get(group.run) is group:
                del self._group_of_run[group.run]
            if rest:
                follower = Entry(f"group:{rest[0]}", "group", self.calls[rest[0]].turn, group.run, rest)
                follower.index = len(self.entries)
                self.entries.append(follower)
                self.by_key[follower.key] = follower
                for key in rest:
                    self.entry_of[key] = follower
                self._group_of_run[group.run] = follower
                self._groups_in_run.setdefault(group.run, []).append(follower.key)
            return group, False
        group.item_keys = rest
        self.rebuilt.append((group.key, group))
        entry = Entry(item.key, kind, item.turn, group.run, [item.key], renderer)
        return self._add(entry, item), True

    def _card_below_request(self, tool_call_id: str) -> None:
        """The permission request for ``tool_call_id`` is placed: its call's card, if it shows what the call made,
        moves below it (its place above becomes a ``moved`` entry), the first of a new run of calls."""
        key = self._call_keys.get(tool_call_id)
        card = self.entry_of.get(key) if key is not None else None
        if key is None or card is None or card.kind != "card" or card.renderer is None or not card.renderer.after_request:
            return
        card = self._own(card)
        del self.by_key[card.key]
        self._cards_in_run[card.run] -= 1
        old_key, renderer = card.key, card.renderer
        card.key, card.kind, card.item_keys, card.renderer = f"moved:{old_key}", "moved", [], None
        self.by_key[card.key] = card
        self.rebuilt.append((old_key, card))
        self._run += 1
        self._last_was_tool = True  # calls that follow join the card's run, below it
        self._add(Entry(old_key, "card", card.turn, self._run, [key], renderer), self.calls[key])

    def _into_spawner(self, child: Item) -> tuple[Entry, bool] | None:
        """A subagent placed inside the call that spawned it (its ``spawned_by``): the call's entry, taken out of its
        group first (what follows then starts a new run, below it). None when that call is not here, or is a card
        (the child then stands on its own, after it)."""
        spawner = child.payload.get("spawned_by")
        call_key = self._call_keys.get(spawner) if isinstance(spawner, str) else None
        entry = self.entry_of.get(call_key) if call_key is not None else None
        if entry is None or call_key is None or entry.kind not in ("group", "call"):
            return None
        new = False
        if entry.kind == "group":
            entry, new = self._take_out(entry, self.calls[call_key], "call", None)
            self._last_was_tool = False
        entry = self._own(entry)
        entry.item_keys.append(child.key)
        self.entry_of[child.key] = entry
        return entry, new

    def _renderer_for(self, item: Item) -> Renderer | None:
        try:
            return self.match(item)
        except Exception:  # noqa: BLE001 - matching must never break the flow
            return None

    def _add(self, entry: Entry, item: Item) -> Entry:
        if entry.kind == "card":
            self._cards_in_run[entry.run] = self._cards_in_run.get(entry.run, 0) + 1
        entry.index = len(self.entries)
        self.entries.append(entry)
        self.by_key[entry.key] = entry
        self.entry_of[item.key] = entry
        return entry
