"""The changes card's item: what a turn changed in the workspace (``changes`` events from
:mod:`kandev_tui.workspace.turn_changes`), one item per turn, placed (pending) when the agent answers the turn's prompt, before
its end marker, and patched to ready, none or unavailable. Headless:
everything in it is data, its paths as git wrote them (made inert where they are drawn).

Each changed file that no tool call of the turn named (its diffs, its locations, its input's path, a write kandev-tui
did for it) is marked ``unnamed``: an agent that keeps its own state in the workspace writes it from its process, not
through a tool call, and what a command wrote is not named either. The card and the review tell the two apart, and
never put the unnamed back without asking (an agent's live state among them)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from kandev_tui.base.jsonutil import of_type

from .items import CHANGES
from .clientside import PATH_KEYS
from .items import Item

STATES = ("pending", "ready", "none", "unavailable")
MAX_FILES = 2000
MAX_NAMED = 10_000  # paths a turn's calls name, kept until its card is ready


def named_paths(calls: Iterable[dict[str, Any]]) -> set[str]:
    """The files a turn's tool calls name: their diffs' paths (a write kandev-tui did for one among them), their
    locations and their input's path, as the agent wrote them (absolute, as ACP asks, or not)."""
    found: set[str] = set()
    for call in calls:
        blocks = [*of_type(call, "content", list, []), *of_type(call, "written", list, [])]
        found.update(b["path"] for b in blocks if isinstance(b, dict) and b.get("type") == "diff"
                     and isinstance(b.get("path"), str))
        found.update(loc["path"] for loc in of_type(call, "locations", list, [])
                     if isinstance(loc, dict) and isinstance(loc.get("path"), str))
        raw = of_type(of_type(call, "input", dict, {}), "raw_input", dict, {})
        found.update(raw[key] for key in PATH_KEYS if isinstance(raw.get(key), str))
        if len(found) > MAX_NAMED:
            break
    return {path for path in found if path.strip()}


class Named:
    """Whether a file of the repository (a path git wrote, relative to its root) is one of ``paths``: absolute ones
    under ``repository``, or any path that ends with the file's (a path the agent gave relative to its working
    folder, or under a link to the repository)."""

    def __init__(self, paths: set[str], repository: str) -> None:
        root = repository.rstrip("/") + "/" if repository else None
        self.exact: set[str] = set()
        self.others: dict[str, list[str]] = {}  # the other paths by their last part: a file is looked up by its own
        for path in paths:
            path = path.replace("\\", "/")
            while path.startswith("./"):
                path = path[2:]
            if root is not None and path.startswith(root):
                self.exact.add(path[len(root):])
            else:
                path = path.rstrip("/")
                self.others.setdefault(path.rsplit("/", 1)[-1], []).append(path)

    def __contains__(self, file: object) -> bool:
        if not isinstance(file, str) or not file:
            return False
        if file in self.exact:
            return True
        return any(other == file or other.endswith("/" + file) or file.endswith("/" + other)
                   for other in self.others.get(file.rsplit("/", 1)[-1], ()))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _file(entry: Any) -> dict[str, Any] | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        return None
    kept: dict[str, Any] = {"path": entry["path"][:4096], "status": str(entry.get("status") or "modified")[:20],
                            "added": _int(entry.get("added")), "removed": _int(entry.get("removed"))}
    if entry.get("binary") is True:
        kept["binary"] = True
    if isinstance(entry.get("old_path"), str) and entry["old_path"]:
        kept["old_path"] = entry["old_path"][:4096]
    return kept


class TurnChangesItems:
    """The cards of a session's turns, by the turn they are for."""

    def __init__(self, next_key: Callable[[str], str]) -> None:
        self._next = next_key
        self._keys: dict[Any, str] = {}
        self._tracked: Any = None  # the running turn, when it will have a card
        self._named: dict[Any, set[str]] = {}  # turn → the paths its tool calls named, until its card is ready

    def untrack(self) -> None:
        """The running turn will have no card (it was cut short)."""
        self._tracked = None

    def turn_ending(self, turn: int, named: set[str]) -> list[Item]:
        """The turn's end (the agent answered its prompt): its card, pending, placed before the turn's end marker
        (what it changed is computed after); ``named``: the files its tool calls named."""
        ref, self._tracked = self._tracked, None
        if ref is None:
            return []
        self._named[ref] = named
        return self.event({"state": "pending", "turn_ref": ref}, turn)

    def event(self, event: dict[str, Any], turn: int) -> list[Item]:
        state = event.get("state")
        if state == "tracking":  # said as the turn starts: a card comes at its end
            self._tracked = event.get("turn_ref")
            return []
        ref = event.get("turn_ref")
        if state not in STATES or (state != "pending" and ref not in self._keys):
            return []  # a turn whose card was not placed (cut short by kandev-tui closing): nothing to say
        key = self._keys.get(ref) or self._next("changes")
        self._keys[ref] = key
        payload: dict[str, Any] = {"state": state}
        if state == "unavailable":
            payload["reason"] = str(event.get("reason") or "")[:500]
        if state in ("ready", "none"):
            files = [f for f in (_file(e) for e in (event.get("files") or [])[:MAX_FILES]) if f is not None]
            named = Named(self._named.get(ref, set()), event["repository"] if isinstance(event.get("repository"), str)
                          else "")
            files = [f if f["path"] in named or f.get("old_path") in named else {**f, "unnamed": True} for f in files]
            payload.update(files=files, count=max(_int(event.get("count")), len(files)),
                           added=_int(event.get("added")), removed=_int(event.get("removed")),
                           skipped=_int(event.get("skipped")), overlapped=event.get("overlapped") is True)
            for name in ("before", "after", "session", "repository"):
                if isinstance(event.get(name), str):
                    payload[name] = event[name][:4096]
        if state != "pending":
            self._named.pop(ref, None)
        return [Item(key, CHANGES, turn, payload, final=state != "pending")]
