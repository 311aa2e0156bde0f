"""Tool renderers: the registry and the public API of a renderer pack (headless; kandev-tui's own packs are in
:mod:`kandev_tui.packs`, registered through the same entry points).

The public API for a renderer pack: :class:`Renderer` (what a pack's entry point
names), :class:`ResultShapeError` (raise it for a result you do not understand)
and :func:`tool_result` (a call's result as JSON, whatever the agent wrapped it in).
"""

from .registry import GROUP, Registry, Renderer, ResultShapeError, renderer_id_of, tool_result

__all__ = ["GROUP", "Registry", "Renderer", "ResultShapeError", "renderer_id_of", "tool_result"]
