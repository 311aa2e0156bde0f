"""The tool renderer registry.

A :class:`Renderer` declares which tool calls it draws: by tool name (or a
title that carries the name, for agents that put it there) and/or by the
``__renderer`` id of an object result. Renderers are found through the
entry-point group ``kandev_tui.renderers``; each entry point names a Renderer
or a list of them. The built-in rich-output renderer registers exactly the
same way a third-party pack does.

Matching is pure and headless; a renderer's ``widget`` factory is only
called by the app.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

log = logging.getLogger("kandev_tui.renderers")
GROUP = "kandev_tui.renderers"
NAME_MEMO_AT_MOST = 4096  # (name, title) pairs whose match is remembered


def leaf_name(name: str) -> str:
    """``mcp__ops__get_entity`` / ``ops/get_entity`` / ``ops.get_entity`` → ``get_entity``."""
    for mark in ("/", "."):
        name = name.rsplit(mark, 1)[-1]
    if name.startswith("mcp__"):
        name = name.split("__", 2)[-1]
    return name


@dataclass
class Renderer:
    """One renderer: what it matches and the widget that draws a call.

    ``widget(item)`` returns a Textual widget for a tool-call item (any state:
    pending, complete, error) with an ``update_item(item)`` method that is called
    with every later state of the call. ``matches``, when given, replaces the
    name test (the rich-output renderer uses the contract's identity rule).
    A higher ``priority`` wins when several match. ``prepare(item)``, when given, is
    called with every version of a call the renderer matches where the item arrives (a
    live agent's thread), before it is handed to the UI: the place to parse a result the
    widget will need, into a cache by version (``kandev_tui.session.parsed.VersionCache``),
    so the UI's thread only draws. What it raises is logged; the widget then parses itself.
    """

    id: str
    widget: Callable[[Any], Any]
    tool_names: frozenset[str] = frozenset()
    renderer_ids: frozenset[str] = frozenset()
    matches: Callable[[dict[str, Any]], bool] | None = None
    priority: int = 0
    prepare: Callable[[Any], Any] | None = None
    stands_alone: bool = False  # never counted against the per-turn card limit (rich output)
    draws_all_states: bool = False  # False: the host draws pending, error and empty states itself
    # the card shows what the call made (a chart), not what it asks to do: it comes after the permission request that
    # allowed the call, not above it (an edit's card shows the edit asked about, and stays where the call is)
    after_request: bool = False
    source: str = field(default="", compare=False)

    def match_name(self, call: dict[str, Any], leaves: frozenset[str] | None = None) -> bool:
        """Whether this renderer draws the call by its name (or title); ``leaves``: :func:`call_leaves` of the call,
        when the caller has them already."""
        if self.matches is not None:
            return bool(self.matches(call))
        return not self.tool_names.isdisjoint(call_leaves(call) if leaves is None else leaves)


def call_leaves(call: dict[str, Any]) -> frozenset[str]:
    """The leaf names (:func:`leaf_name`) a call goes by: of its name and of its title."""
    return frozenset(leaf_name(candidate.strip()) for candidate in (call.get("name"), call.get("title"))
                     if isinstance(candidate, str) and candidate.strip())


class ResultShapeError(ValueError):
    """Raised by a renderer's widget factory (or ``update_item``) for a result it does not understand.

    The host then shows the call with the generic display, quietly: a result of an
    unexpected shape is not a bug in the renderer.
    """


def tool_result(call: dict[str, Any]) -> Any:
    """A tool call's result as JSON: MCP ``structuredContent`` first, then text content parsed as JSON,
    then a JSON string, then an ``{error, result}`` wrapper unwrapped (contract spec §6.3)."""
    from kandev_tui.presentation.stored import extract_result

    return extract_result(call.get("output"))


def _mentions_renderer(value: Any, depth: int = 0) -> bool:
    """Whether ``__renderer`` can be in a result, without parsing or serialising it."""
    if isinstance(value, str):
        return "__renderer" in value
    if depth > 4:
        return False
    if isinstance(value, dict):
        return "__renderer" in value or any(
            _mentions_renderer(value[key], depth + 1)
            for key in ("structuredContent", "structured_content", "content", "result", "text") if key in value)
    if isinstance(value, list):
        return any(_mentions_renderer(inner, depth + 1) for inner in value[:64])
    return False


def renderer_id_of(call: dict[str, Any]) -> str | None:
    """The ``__renderer`` key of an object result, wherever the agent put the result (see :func:`tool_result`)."""
    output = call.get("output")
    if isinstance(output, dict) and isinstance(named := output.get("__renderer"), str):
        return named
    if not _mentions_renderer(output):
        return None
    parsed = tool_result(call)
    if isinstance(parsed, dict) and isinstance(named := parsed.get("__renderer"), str):
        return named
    return None


class Registry:
    """All known renderers, matched by ``__renderer`` id first, then by name.

    One made by :meth:`from_entry_points` with ``now=False`` reads the entry points (importing
    ``importlib.metadata`` and every pack's widgets, 40-60 ms) when it is first used, or when :meth:`discover` is
    called, from any thread: the app's first frame does not wait for them."""

    def __init__(self, renderers: Iterable[Renderer] = (), *, leaving_out: Iterable[str] = ()) -> None:
        self._renderers: list[Renderer] = []
        self._errors: list[str] = []
        self._leaving_out = frozenset(leaving_out)  # renderer ids a setting turned off
        self._undiscovered = False  # the entry points are still to be read
        self._lock = threading.Lock()
        # which renderers match a call by name depends on (name, title) only: remembered; a renderer's own
        # ``matches`` may read anything, and is asked every time
        self._by_name: dict[tuple[Any, Any], frozenset[str]] = {}
        for renderer in renderers:
            self.add(renderer)

    @property
    def discovered(self) -> bool:
        """Whether the entry points have been read (a look-up now does not wait for the packs to import)."""
        return not self._undiscovered

    @property
    def renderers(self) -> list[Renderer]:
        if self._undiscovered:
            self.discover()
        return self._renderers

    @property
    def errors(self) -> list[str]:
        """The entry points that failed to load, one sentence each."""
        if self._undiscovered:
            self.discover()
        return self._errors

    def add(self, renderer: Renderer) -> None:
        if renderer.id in self._leaving_out:
            return
        self._by_name.clear()
        self._renderers.append(renderer)
        self._renderers.sort(key=lambda r: -r.priority)

    @classmethod
    def from_entry_points(cls, *, now: bool = True, leaving_out: Iterable[str] = ()) -> "Registry":
        """Every renderer the installed packs declare (the built-in ones among them); ``now=False``: when first
        used (see the class)."""
        registry = cls(leaving_out=leaving_out)
        registry._undiscovered = True
        if now:
            registry.discover()
        return registry

    def discover(self) -> None:
        """Read the entry points, once (any thread; a lookup meanwhile waits for them)."""
        with self._lock:
            if not self._undiscovered:
                return
            from importlib.metadata import entry_points

            for point in entry_points(group=GROUP):
                try:
                    loaded = point.load()
                    items = loaded() if callable(loaded) and not isinstance(loaded, Renderer) else loaded
                    for renderer in items if isinstance(items, (list, tuple)) else [items]:
                        if not isinstance(renderer, Renderer):
                            raise TypeError(f"{type(renderer).__name__} is not a Renderer")
                        renderer.source = point.value
                        self.add(renderer)
                except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the app
                    message = f"renderer entry point {point.name!r} failed to load: {type(exc).__name__}: {exc}"
                    self._errors.append(message)
                    log.error(message)
            self._undiscovered = False

    def without(self, *ids: str) -> "Registry":
        """The same renderers less those with these ids (a setting turning a built-in one off); still to be
        discovered if this one is."""
        leaving_out = self._leaving_out | set(ids)
        if self._undiscovered:
            return Registry.from_entry_points(now=False, leaving_out=leaving_out)
        registry = Registry(self._renderers, leaving_out=leaving_out)
        registry._errors = list(self._errors)
        return registry

    def match(self, call: dict[str, Any]) -> Renderer | None:
        """The renderer for a tool-call payload, or None for the generic display."""
        renderers = self.renderers
        rid = renderer_id_of(call)
        if rid is not None:
            for renderer in renderers:
                if rid in renderer.renderer_ids:
                    return renderer
        named = self._named(call)
        for renderer in renderers:  # in order: the first that matches wins
            if renderer.matches is None:
                if renderer.id in named:
                    return renderer
                continue
            try:  # its own rule may read anything of the call (its kind, its arguments): asked every time
                if renderer.matches(call):
                    return renderer
            except Exception:  # noqa: BLE001
                log.exception("renderer %s failed while matching", renderer.id)
        return None

    def _named(self, call: dict[str, Any]) -> frozenset[str]:
        """The ids of the renderers that draw the call by its name or title (:meth:`Renderer.match_name` by
        ``tool_names``): remembered by (name, title), which is all they read."""
        key = (call.get("name"), call.get("title"))
        try:
            return self._by_name[key]
        except (KeyError, TypeError):
            pass
        leaves = call_leaves(call)  # once, not once per renderer
        named = frozenset(r.id for r in self.renderers if r.matches is None and not r.tool_names.isdisjoint(leaves))
        if len(self._by_name) >= NAME_MEMO_AT_MOST:  # titles often name the call's argument: bounded, not a leak
            self._by_name.clear()
        try:
            self._by_name[key] = named
        except TypeError:  # an unhashable name or title: no memo
            pass
        return named
