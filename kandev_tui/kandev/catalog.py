"""What there is to attach to: workspaces, their tasks and sessions, newest first (headless).

Workspaces and a task's sessions come over the WebSocket (``workspace.list``,
``task.session.list``); tasks from ``GET /api/v1/workspaces/{id}/tasks`` with
``include_ephemeral=true`` (the WebSocket's ``task.list`` needs a workflow and
leaves quick chats out).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from .connection import KandevConnection, KandevError, http_base

TASKS_PER_WORKSPACE = 50


@dataclass
class SessionEntry:
    workspace_id: str
    workspace: str
    task_id: str
    task: str
    session_id: str
    state: str
    updated_at: str
    agent: str = ""
    items: int | None = None  # a stored session's item count (Kandev's list does not say)

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "items" or value is not None}


def get_json(url: str, token: str | None, timeout: float = 10) -> dict[str, Any]:
    request = urllib.request.Request(url, headers={"Accept": "application/json",
                                                   **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise KandevError(f"Kandev answered HTTP {exc.code} for {url}", str(exc.code)) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise KandevError(f"cannot read {url}: {exc}", "http") from None
    return data if isinstance(data, dict) else {}


async def tasks_of(url: str, workspace_id: str, token: str | None) -> list[dict[str, Any]]:
    address = f"{http_base(url)}/api/v1/workspaces/{workspace_id}/tasks?include_ephemeral=true"
    data = await asyncio.to_thread(get_json, address, token)
    tasks = [t for t in data.get("tasks") or [] if isinstance(t, dict) and isinstance(t.get("id"), str)]
    tasks.sort(key=lambda t: str(t.get("updated_at") or ""), reverse=True)
    return tasks[:TASKS_PER_WORKSPACE]


async def sessions(conn: KandevConnection, url: str, token: str | None) -> list[SessionEntry]:
    """Every session of every workspace, newest first."""
    out: list[SessionEntry] = []
    answer = await conn.request("workspace.list", {})
    for workspace in answer.get("workspaces") or []:
        if not isinstance(workspace, dict) or not isinstance(workspace.get("id"), str):
            continue
        for task in await tasks_of(url, workspace["id"], token):
            listed = await conn.request("task.session.list", {"task_id": task["id"]})
            for session in listed.get("sessions") or []:
                if not isinstance(session, dict) or not isinstance(session.get("id"), str):
                    continue
                out.append(SessionEntry(
                    workspace_id=workspace["id"], workspace=str(workspace.get("name") or workspace["id"]),
                    task_id=task["id"], task=str(task.get("title") or "(untitled task)"), session_id=session["id"],
                    state=str(session.get("state") or ""),
                    updated_at=str(session.get("updated_at") or session.get("started_at") or task.get("updated_at") or ""),
                    agent=str(task.get("primary_agent_name") or "")))
    out.sort(key=lambda e: e.updated_at, reverse=True)
    return out


async def backend_sessions(url: str, token: str | None) -> list[SessionEntry]:
    """Every session on the backend at ``url``, newest first, over a connection of its own."""
    conn = KandevConnection(url, token)
    await conn.connect()
    try:
        return await sessions(conn, url, token)
    finally:
        await conn.close()


async def newest_session_of_task(conn: KandevConnection, task_id: str) -> str:
    listed = await conn.request("task.session.list", {"task_id": task_id})
    found = [s for s in listed.get("sessions") or [] if isinstance(s, dict) and isinstance(s.get("id"), str)]
    if not found:
        raise KandevError(f"task {task_id} has no sessions", "not_found")
    found.sort(key=lambda s: str(s.get("updated_at") or s.get("started_at") or ""), reverse=True)
    newest: str = found[0]["id"]
    return newest
