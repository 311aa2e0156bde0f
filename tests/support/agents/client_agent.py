"""An ACP agent on the SDK's agent side that uses the client's files and terminals, as a script says.

No real agent calls ``terminal/*`` (Claude Code 0.49, Codex, Gemini CLI, OpenCode), so this one does, through the
SDK's own client methods (``read_text_file``, ``write_text_file``, ``create_terminal``…), the way an agent built on
the SDK would. Each prompt is a JSON list of steps; each step's answer (``{"ok": …}`` or ``{"error": {code,
message}}``) is appended as a JSON line to the file ``CLIENT_AGENT_RESULTS`` names. Steps:

- ``{"op": "read", "path", "line"?, "limit"?}``, ``{"op": "write", "path", "content", "call"?: true}`` (inside an
  ``edit`` tool call of its own when ``call``);
- ``{"op": "run", "command", "args"?, "env"?: {name: value}, "cwd"?, "limit"?, "then": "wait"|"kill"|"leave",
  "release"?: true, "pause"?: seconds}``: a terminal, embedded in an ``execute`` tool call (whose status follows the
  exit), then waited for, killed or left running; the answer holds the id, the output and the exit status;
- ``{"op": "output", "terminal"}``, ``{"op": "kill", "terminal"}``, ``{"op": "release", "terminal"}``,
  ``{"op": "wait", "terminal"}``: on a terminal by id (an earlier step's or a made-up one);
- ``{"op": "say", "text"}``; ``{"op": "exit"}``: the agent dies;
- ``{"op": "leak"}``: the MCP servers it was offered (their secrets with them) written to stderr, and said in
  message chunks of 7 characters (a secret cut across chunks).

usage: python client_agent.py
"""

import asyncio
import json
import os
import sys

from acp import helpers, run_agent, schema
from acp.exceptions import RequestError
from acp.schema import AgentCapabilities, Implementation, InitializeResponse, NewSessionResponse, PromptResponse

RESULTS = os.environ.get("CLIENT_AGENT_RESULTS")


def record(entry):
    if RESULTS:
        with open(RESULTS, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


class ClientAgent:
    def __init__(self):
        self._conn = None
        self._calls = 0
        self._cancelled = False
        self.capabilities = None

    def on_connect(self, conn):
        self._conn = conn

    async def initialize(self, protocol_version, client_capabilities=None, client_info=None, **_):
        self.capabilities = client_capabilities.model_dump(by_alias=True, exclude_none=True) if client_capabilities else None
        record({"capabilities": self.capabilities})
        return InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities(),
                                  agent_info=Implementation(name="client-agent", title="Client agent", version="1"))

    async def new_session(self, cwd, mcp_servers=None, **_):
        self.mcp_servers = [server.model_dump(by_alias=True) for server in mcp_servers or []]
        return NewSessionResponse(session_id="client-1")

    async def cancel(self, session_id, **_):
        self._cancelled = True
        record({"cancelled": True})

    def _call_id(self):
        self._calls += 1
        return f"call-{self._calls}"

    async def _step(self, session, step):
        conn, op = self._conn, step["op"]
        if op == "exit":  # the agent dies mid-turn (what becomes of the terminals it left running)
            os._exit(3)
        if op == "say":
            await conn.session_update(session_id=session, update=helpers.update_agent_message_text(step["text"]))
            return None
        if op == "leak":  # the MCP servers it was offered (their secrets with them), on stderr and in chunks of 7
            said = json.dumps(self.mcp_servers)
            print(f"session/new offered {said}", file=sys.stderr, flush=True)
            for start in range(0, len(said), 7):
                await conn.session_update(session_id=session,
                                          update=helpers.update_agent_message_text(said[start:start + 7]))
            return None
        if op == "read":
            answer = await conn.read_text_file(session_id=session, path=step["path"], line=step.get("line"),
                                               limit=step.get("limit"))
            return {"content": answer.content}
        if op == "write":
            call = self._call_id() if step.get("call") else None
            if call:
                await conn.session_update(session_id=session, update=helpers.start_tool_call(
                    call, f"Write {os.path.basename(step['path'])}", kind="edit", status="in_progress",
                    locations=[schema.ToolCallLocation(path=step["path"])], raw_input={"filePath": step["path"]}))
            try:
                await conn.write_text_file(session_id=session, path=step["path"], content=step["content"])
            finally:
                if call:
                    await conn.session_update(session_id=session, update=helpers.update_tool_call(
                        call, status="completed", content=[helpers.tool_content(helpers.text_block("Wrote it."))]))
            return {}
        if op == "run":
            env = [schema.EnvVariable(name=k, value=v) for k, v in (step.get("env") or {}).items()]
            created = await conn.create_terminal(session_id=session, command=step["command"], args=step.get("args"),
                                                 env=env or None, cwd=step.get("cwd"),
                                                 output_byte_limit=step.get("limit"))
            terminal = created.terminal_id
            call = self._call_id()
            await conn.session_update(session_id=session, update=helpers.start_tool_call(
                call, step.get("title", step["command"]), kind="execute", status="in_progress",
                content=[helpers.tool_terminal_ref(terminal)], raw_input={"command": step["command"]}))
            if step.get("pause"):
                await asyncio.sleep(step["pause"])
            then = step.get("then", "wait")
            status = None
            if then == "kill":
                await conn.kill_terminal(session_id=session, terminal_id=terminal)
            if then in ("wait", "kill"):
                status = await conn.wait_for_terminal_exit(session_id=session, terminal_id=terminal)
            output = await conn.terminal_output(session_id=session, terminal_id=terminal)
            if status is not None:
                failed = status.exit_code not in (None, 0) or status.signal
                await conn.session_update(session_id=session, update=helpers.update_tool_call(
                    call, status="failed" if failed else "completed"))
            if step.get("release"):
                await conn.release_terminal(session_id=session, terminal_id=terminal)
            return {"terminal": terminal, "output": output.output, "truncated": output.truncated,
                    "exit": status.model_dump(by_alias=True, exclude_none=True) if status else None,
                    "exitStatus": output.exit_status.model_dump(by_alias=True, exclude_none=True) if output.exit_status else None}
        terminal = step["terminal"]
        if op == "output":
            output = await conn.terminal_output(session_id=session, terminal_id=terminal)
            return {"output": output.output, "truncated": output.truncated}
        if op == "wait":
            status = await conn.wait_for_terminal_exit(session_id=session, terminal_id=terminal)
            return status.model_dump(by_alias=True, exclude_none=True)
        if op == "kill":
            await conn.kill_terminal(session_id=session, terminal_id=terminal)
            return {}
        if op == "release":
            await conn.release_terminal(session_id=session, terminal_id=terminal)
            return {}
        raise ValueError(f"unknown step {op}")

    async def prompt(self, prompt, session_id, **_):
        text = "".join(getattr(block, "text", "") for block in prompt)
        self._cancelled = False
        for step in json.loads(text):
            try:
                record({"step": step["op"], "ok": await self._step(session_id, step)})
            except RequestError as exc:
                record({"step": step["op"], "error": {"code": exc.code, "message": str(exc), "data": exc.data}})
            except asyncio.CancelledError:
                record({"step": step["op"], "error": {"message": "cancelled"}})
                raise
        return PromptResponse(stop_reason="cancelled" if self._cancelled else "end_turn")


async def main():
    await run_agent(ClientAgent())


if __name__ == "__main__":
    asyncio.run(main())
