"""The built-in rich-output renderer, registered through the entry-point group like any other."""

from __future__ import annotations

from typing import Any

from kandev_tui.presentation import is_rich_output_call

from kandev_tui.renderers import Renderer


def _matches(call: dict[str, Any]) -> bool:
    return is_rich_output_call(call)


def _prepare(item: Any) -> None:
    """A completed call's presentation, validated where the call arrives (the agent's thread), for the card to draw.
    A call still running is drawn as a skeleton, with nothing to validate: most of its versions never reach the
    screen (the batch keeps the newest), so they are not parsed ahead."""
    if item.status not in ("complete", "completed"):
        return
    from kandev_tui.session.parsed import presentation_of  # pydantic's models: not at start-up

    presentation_of(item)


def _widget(item: Any) -> Any:
    from kandev_tui.widgets.entries.presentation_card import PresentationCard

    return PresentationCard(item)


RENDERER = Renderer(id="rich_output", widget=_widget, matches=_matches, priority=1000, stands_alone=True,
                    draws_all_states=True, prepare=_prepare, after_request=True,
                    tool_names=frozenset({"show_rich_output_kandev"}))
