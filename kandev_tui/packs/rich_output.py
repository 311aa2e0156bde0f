"""The built-in rich-output renderer, registered through the entry-point group like any other."""

from __future__ import annotations

from typing import Any

from kandev_tui.presentation import is_rich_output_call

from kandev_tui.renderers import Renderer


def _matches(call: dict[str, Any]) -> bool:
    return is_rich_output_call(call)


def _widget(item: Any) -> Any:
    from kandev_tui.widgets.presentation_card import PresentationCard

    return PresentationCard(item)


RENDERER = Renderer(id="rich_output", widget=_widget, matches=_matches, priority=1000, stands_alone=True,
                    draws_all_states=True,
                    tool_names=frozenset({"show_rich_output_kandev"}))
