"""Tool renderers: the registry and the built-in renderers (rich output first)."""

from .registry import GROUP, Registry, Renderer, renderer_id_of

__all__ = ["GROUP", "Registry", "Renderer", "renderer_id_of"]
