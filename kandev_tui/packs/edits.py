"""The built-in edit renderer: an edit (a call of ACP kind ``edit`` from the agent's own tools) becomes an inline
card of its own (:mod:`kandev_tui.widgets.entries.edit_card`), registered through the entry-point group like any other.
The ``edits_inline`` setting leaves it out, and edits fold into the tool group again."""

from __future__ import annotations

from typing import Any

from kandev_tui.renderers import Renderer


def _matches(call: dict[str, Any]) -> bool:
    return call.get("kind") == "edit" and not call.get("mcp")


def _widget(item: Any) -> Any:
    from kandev_tui.widgets.entries.edit_card import EditCard

    return EditCard(item)


# stands alone: an edit is never folded away by the per-turn card limit; it draws its own states (the call view
# shows pending, running and failed edits as it shows any call)
RENDERER = Renderer(id="edit", widget=_widget, matches=_matches, priority=500, stands_alone=True,
                    draws_all_states=True)
