"""The fleet scenario's bundled data: what an operations agent's MCP tools return.

One deterministic operations session ("why is the web tier slow?"): each step is
``(call id, tool, arguments, result, status)``. Results follow the shapes of
:mod:`kandev_tui.packs.fleet.models`; a few steps are there on purpose to show
the other card states and the fallbacks (an unknown entity, an empty result, a tool
the pack does not name that returns a ``__renderer`` id, an id nobody registered,
plumbing tools that stay in the collapsed group).
"""

from __future__ import annotations

from typing import Any

AS_OF = "2026-11-30T14:20:00Z"


def _buckets() -> list[dict[str, Any]]:
    values = [112, 118, 109, 121, 117, 125, 131, 128, 140, 152, 149, 171, 188, 204, 236, 261, 284, 312, 355,
              341, 368, 402, 389, 410]
    return [{"t": f"2026-11-30T{12 + i // 12:02d}:{(i % 12) * 5:02d}:00Z", "value": v} for i, v in enumerate(values)]


ENTITIES = [
    {"slug": "web-01", "type": "service", "health": "healthy", "state": "running"},
    {"slug": "web-02", "type": "service", "health": "degraded", "state": "running"},
    {"slug": "web-03", "type": "service", "health": "healthy", "state": "running"},
    {"slug": "db-primary", "type": "database", "health": "healthy", "state": "running"},
    {"slug": "db-replica", "type": "database", "health": "down", "state": "stopped"},
    {"slug": "cache-01", "type": "cache", "health": "healthy", "state": "running"},
    {"slug": "lb-edge", "type": "loadbalancer", "health": "healthy", "state": "running"},
    {"slug": "queue-01", "type": "queue", "health": "unknown", "state": "unreachable"},
]

# (call id, tool, arguments, result or error text, status)
STEPS: list[tuple[str, str, dict[str, Any], Any, str]] = [
    ("f-whoami", "whoami", {}, {
        "__renderer": "entity_card", "slug": "ops-agent", "type": "agent", "health": "healthy", "state": "on duty",
        "attributes": {"version": "0.9.4", "scope": "prod-eu"}, "last_checked": "2026-11-30T14:19:48Z", "as_of": AS_OF},
     "completed"),
    ("f-snap", "get_state_snapshot", {"scope": "prod-eu"}, {
        "__renderer": "fleet_snapshot", "healthy": 41, "degraded": 3, "down": 1, "unknown": 1, "drift": 2,
        "taken_at": "2026-11-30T14:19:30Z"}, "completed"),
    ("f-health", "get_health_summary", {"scope": "prod-eu"}, {
        "__renderer": "health_summary", "healthy": 41, "degraded": 3, "down": 1, "unknown": 1}, "completed"),
    ("f-list", "list_entities", {"tier": "web"}, {"__renderer": "entity_table", "entities": ENTITIES}, "completed"),
    ("f-entity", "get_entity", {"slug": "web-02"}, {
        "__renderer": "entity_card", "slug": "web-02", "type": "service", "health": "degraded", "state": "running",
        "attributes": {"ip": "10.0.3.12", "version": "2.14.1", "host": "pve-1", "owner": "team-web"},
        "last_checked": "2026-11-30T14:17:00Z", "as_of": AS_OF}, "completed"),
    ("f-rel", "get_relations", {"slug": "web-02"}, {"depends_on": ["db-primary", "cache-01"], "used_by": ["lb-edge"]},
     "completed"),
    ("f-ping", "ping_service", {"slug": "web-02"}, {"reachable": True, "rtt_ms": 41.7}, "completed"),
    ("f-metrics", "query_metrics", {"slug": "web-02", "metric": "p95_latency_ms", "window": "2h"}, {
        "__renderer": "metric_chart", "metric": "p95_latency_ms", "unit": "ms", "buckets": _buckets()}, "completed"),
    ("f-blast", "get_blast_radius", {"slug": "web-02"}, {
        "__renderer": "blast_radius", "root": "web-02", "impacted": [
            {"slug": "lb-edge", "type": "loadbalancer", "health": "healthy", "hops": 0},
            {"slug": "checkout-api", "type": "service", "health": "healthy", "hops": 0},
            {"slug": "storefront", "type": "app", "health": "degraded", "hops": 1},
            {"slug": "mobile-bff", "type": "service", "health": "healthy", "hops": 1},
            {"slug": "partner-feed", "type": "job", "health": "unknown", "hops": 2}]}, "completed"),
    ("f-changes", "get_change_history", {"slug": "web-02", "since": "2026-11-30T12:00:00Z"}, {
        "__renderer": "change_log", "entries": [
            {"at": "2026-11-30T12:40:00Z", "actor": "deploy-bot", "entity": "web-02", "summary": "deployed 2.14.1 (from 2.13.7)"},
            {"at": "2026-11-30T13:05:00Z", "actor": "alice", "entity": "web-02", "summary": "raised worker count 8 → 16"},
            {"at": "2026-11-30T13:32:00Z", "actor": "monitor", "entity": "db-replica", "summary": "replica stopped: disk full"},
            {"at": "2026-11-30T14:02:00Z", "actor": "ops-agent", "entity": "web-02", "summary": "health degraded: p95 over 300 ms"}]},
     "completed"),
    ("f-kb", "search_knowledge", {"query": "web latency after deploy"}, {
        "__renderer": "knowledge_results", "results": [
            {"title": "Runbook: web tier latency", "excerpt": "Check the replica first: reads fall back to the primary "
             "when the replica is down, which doubles primary load and shows up as web p95 latency.",
             "tags": ["runbook", "web", "database"]},
            {"title": "Postmortem 2026-09-14: worker oversubscription", "excerpt": "Raising workers above the core "
             "count on pve hosts caused CPU steal and latency spikes.", "tags": ["postmortem", "capacity"]}]},
     "completed"),
    ("f-lxcs", "list_lxcs", {"host": "pve-1"}, {"__renderer": "lxc_list", "lxcs": [
        {"name": "web-02", "host": "pve-1", "ip": "10.0.3.12", "health": "degraded", "status": "running"},
        {"name": "cache-01", "host": "pve-1", "ip": "10.0.3.20", "health": "healthy", "status": "running"},
        {"name": "db-replica", "host": "pve-1", "ip": "10.0.3.31", "health": "down", "status": "stopped"}]},
     "completed"),
    ("f-bad", "get_entity", {"slug": "bad"}, 'Entity not found: "bad"', "failed"),
    ("f-kb-empty", "get_entity_knowledge", {"slug": "db-replica"}, {"__renderer": "knowledge_results", "results": []},
     "completed"),
    ("f-digest", "fleet_digest", {"scope": "prod-eu"}, {
        "__renderer": "health_summary", "healthy": 42, "degraded": 2, "down": 1, "unknown": 1}, "completed"),
    ("f-topo", "get_topology", {"slug": "web-02"}, {"__renderer": "topology_graph", "nodes": 7, "edges": 9}, "completed"),
    *[(f"f-host-{row['slug']}", "get_entity", {"slug": row["slug"]}, {
        "__renderer": "entity_card", "slug": row["slug"], "type": row["type"], "health": row["health"],
        "state": row["state"], "last_checked": "2026-11-30T14:18:10Z", "as_of": AS_OF}, "completed")
      for row in ENTITIES if row["slug"] in ("web-01", "web-03", "lb-edge", "db-primary", "cache-01")],
    ("f-log", "tail_log", {"slug": "db-replica", "lines": 3},
     "14:31:58 ERROR could not write to file: No space left on device\n14:31:58 LOG  shutting down\n"
     "14:32:00 LOG  database system is shut down", "completed"),
]

PERMISSION_STEP = ("f-exec", "request_execution", {"target": "db-replica", "command": "journalctl --vacuum-size=500M && systemctl start postgresql"})

INTRO = ("I'll look at the fleet first, then narrow down to the web tier: snapshot, health, the entity list, "
         "then the degraded service's metrics, dependants and recent changes.\n\n")
MIDDLE = ("**web-02** is degraded and its p95 latency climbed from ~110 ms to ~410 ms over two hours. "
          "The change log shows `db-replica` stopping at 13:32 (disk full), and the runbook says reads then "
          "fall back to the primary. Let me check the host and what else is known.\n\n")
CLOSING = """### Diagnosis

- **Root cause**: `db-replica` stopped at 13:32 (disk full); reads fell back to `db-primary`.
- **Effect**: web-02's p95 latency rose to ~410 ms; `storefront` is degraded one hop away.
- **Fix**: free space on the replica's volume and start it again (the execution request above).

The failed `get_entity` call, the empty knowledge result and the unrecognised `topology_graph`
result are in the demo on purpose: they show a card's error and empty states and the generic
display a result falls back to. The last host checks went past the per-turn card limit (16),
so they are folded into the tool group above: expand it with enter.
"""
