"""The fleet-operations renderer pack: an operations agent's MCP tools as compact cards.

Registered through the ``kandev_tui.renderers`` entry-point group exactly as a
third-party pack would be (see ``docs/renderers.md``)::

    [project.entry-points."kandev_tui.renderers"]
    fleet = "kandev_tui.packs.fleet:RENDERERS"

Each renderer matches its tools by name (``get_entity``, ``mcp__fleet__get_entity``,
``fleet/get_entity``…) or any call whose result carries its ``__renderer`` id. The
result shapes are the models in :mod:`.models`. Plumbing tools (``get_relations``,
``tail_log``, ``ping_service``…) are deliberately not matched and stay in the
turn's collapsed tool group; the gated ``run`` / ``request_execution`` show through
their permission request.

Importing this module is cheap: pydantic models and Textual widgets load when the
first card is drawn.
"""

from __future__ import annotations

from typing import Any

from kandev_tui.renderers import Renderer

# __renderer id → (tool names, model class name)
PACK: dict[str, tuple[tuple[str, ...], str]] = {
    "entity_card": (("get_entity", "whoami", "explain"), "EntityResult"),
    "health_summary": (("get_health_summary",), "HealthSummaryResult"),
    "lxc_list": (("list_lxcs",), "LxcListResult"),
    "entity_table": (("list_entities",), "EntityListResult"),
    "knowledge_results": (("search_knowledge", "get_entity_knowledge"), "KnowledgeResult"),
    "metric_chart": (("query_metrics",), "MetricSeriesResult"),
    "blast_radius": (("get_blast_radius",), "BlastRadiusResult"),
    "change_log": (("get_change_history", "get_agent_activity"), "ChangeLogResult"),
    "fleet_snapshot": (("get_state_snapshot",), "FleetSnapshotResult"),
}

# tools an operations agent also calls that have no card: they stay in the collapsed group
PLUMBING = ("get_relations", "list_my_secrets", "get_service_status", "tail_log", "get_lxc_state", "ping_service",
            "get_patterns", "get_skills", "http_get", "preflight", "get_signal_history", "get_execution_status",
            "get_audit_trail", "get_trend", "get_event_timeline", "upsert_knowledge", "update_entity_attributes",
            "create_relationship", "run", "request_execution")


def _factory(renderer_id: str, model_name: str):
    def widget(item: Any) -> Any:
        from . import cards, draw, models

        card = cards.EntityTableCard if renderer_id == "entity_table" else cards.FleetCard
        return card(item, getattr(models, model_name), draw.DRAW[renderer_id], renderer_id)

    return widget


RENDERERS = [
    Renderer(id=renderer_id, widget=_factory(renderer_id, model_name), tool_names=frozenset(tools),
             renderer_ids=frozenset({renderer_id}))
    for renderer_id, (tools, model_name) in PACK.items()
]

__all__ = ["PACK", "PLUMBING", "RENDERERS"]
