"""An ACP agent that plays a turn in many agents' dialects: the test kit of what kandev-tui must read from any agent.

Raw JSON-RPC over stdio (no SDK: every field is written as the dialect has it). It really reaches the MCP server
kandev-tui offers it, over stdio (it starts the command of the ``session/new`` entry) or over HTTP (it POSTs to the
entry's URL with its headers) when ``http`` is set, and calls ``show_rich_output_kandev`` there; and it really runs
commands in kandev-tui's terminals. What it plays comes from the JSON in ``$DIALECT`` (each key optional):

- ``http``: advertise ``mcpCapabilities.http`` (kandev-tui then offers its server over HTTP);
- ``buffered``: hold a turn's ``session/update`` frames and send them in one burst at its end (OpenCode sends its
  frames late: its MCP call is answered before the client has heard of the call or the message before it);
- ``echo``: send each prompt back as ``user_message_chunk``, in three pieces (some agents do);
- ``usage_chunk``: end the turn's message with a chunk that carries only usage (empty text, ``_meta.usage``);
- ``auth``: ``authMethods`` to offer (a list, sent as is) and ``auth_needed``: refuse ``session/new`` until
  ``authenticate`` (``auth_crash``: die while answering it, a child left holding its output open; ``auth_fail``:
  answer it with an error);
- ``session_caps``: the ``sessionCapabilities`` it offers (``{"close": {}, "delete": {}}``: it answers those
  requests; ``session_log``: a file where it notes each ``session/close``, ``session/delete`` and
  ``session/cancel`` it is sent, offered or not);
- ``hang``: methods it never answers (``session/list``, ``authenticate``…) until the client withdraws the request
  with ``$/cancel_request``, which it then answers with the error -32800 as the spec says; each such request and
  withdrawal is noted in ``session_log``;
- ``start_gate``: answer ``initialize`` only once this file exists (an agent that takes long to start);
- ``banner``: lines (not JSON-RPC) written on stdout before answering ``initialize`` (a launcher's banner);
- ``auth_opt_in``: offer ``auth`` only to a client whose ``clientCapabilities._meta`` has this key true;
- ``string_ids``: its requests to the client (permissions, files, terminals) have string ids, this prefix and a
  number (``bare``: the number alone, as a string: "1", where the client's own requests are numbered 1); JSON-RPC
  allows either, and the SDKs of the four adapters number theirs;
- ``steps``: the turn, a list of:
  - ``{"op": "chart", "name_in", "arguments_in", "order", "arguments"?, "call"?}``: a rich-output call.
    ``name_in``: ``title`` (``mcp__kandev__show_rich_output_kandev``), ``meta`` (the name in ``_meta.toolName``,
    the title ``show_rich_output_kandev (kandev MCP Server): {json}``, kind ``read``), ``none`` (the title is the
    presentation's description), ``code`` (the call is a code-running tool whose code calls
    ``mcp_kandev.show_rich_output_kandev``), ``unreported`` (no frames at all). ``arguments_in``: ``rawInput``,
    ``none``, ``content`` (streamed as text content in three pieces, which the final update replaces with the
    result). ``order``: ``frames_first`` (the call is announced, then made) or ``call_first`` (made, then
    announced as done). ``call``: the tool call id; ``reach: false``: the call is reported (and fails) but never
    reaches the server;
  - ``{"op": "restart_mcp", "token"}``: the stdio MCP server is stopped and started again at the next call, with
    this report secret (a wrong one: its reports are refused, as a side channel that dies);
  - ``{"op": "command", "line", "exit_in", "id"?, "announce"?}``: a command (``announce: "request"``: no
    ``tool_call`` frame, its permission request says what it is, then an update ends it, as Qwen Code does).
    ``exit_in``: ``summary`` (the exit only in a text summary, Qwen Code's), ``exit_code``, ``exitCode``,
    ``exit_status``, ``meta`` (``_meta.exit_code``), ``nested_meta`` (``_meta.someAgent.toolResult.exitStatus``),
    ``string`` (``"3"``), ``trailer`` (the output as text ending ``Exit Code: N``), ``signal`` (ended by
    SIGTERM), ``negative`` (``returncode: -9``), ``json_text`` (the result as JSON text), ``none``,
    ``terminal`` (run in a kandev-tui terminal, ``terminal/create`` with the whole line and no ``args``), ``both``
    (run there and its output also sent as content, with colours), ``terminal_trailer`` (run there, the call never
    embedding the terminal: only a text trailer ``[Exit code: N]``), ``listed`` (``rawOutput`` a list of content
    entries: the output and a sentence "completed with exit code N", and an entry of its own type holding the code);
  - ``{"op": "update", "update", "session"?}``: a ``session/update`` as given (a notice, a compaction, a plan
    operation…), of ``session`` when given (a subagent's own session);
  - ``{"op": "wait", "path"}``: go on once the file exists;
  - ``{"op": "blocks"}``: a message ``blocks: {json}``, the prompt's blocks after its text (type, name, URI's last
    part, embedded text, whether it carries data); ``prompt_caps``: the ``promptCapabilities`` it offers;
  - ``{"op": "caps"}``: a message ``caps: {json}``, the ``clientCapabilities`` the client sent;
  - ``{"op": "elicit", "params", "complete"?}``: an ``elicitation/create`` (``params`` as sent, ``sessionId`` added
    unless they name a ``requestId``), then a message ``answer: {json}`` saying the response it got; ``complete``:
    then ``elicitation/complete`` for the params' ``elicitationId``; ``withdraw_when``: once this file exists, it
    withdraws the question (``$/cancel_request``);
  - ``{"op": "ask", "id_only": true}``: a permission request for the last call, with only its ``toolCallId``
    (``tool_call``: with these fields too);
  - ``{"op": "stdout", "lines"}``: lines that are not JSON-RPC on its stdout (a stray print mid-turn);
  - ``{"op": "state", "files"}``: files (path → text, under the working folder) the agent's process writes itself,
    with no tool call: its own session state kept in the workspace;
  - ``{"op": "say", "text"}``; ``{"op": "user", "text"}`` (a user message chunk that is not the prompt);
    ``{"op": "usage"}`` (a message chunk with only usage); ``{"op": "write", "path", "content", "report"?: "before_read"|"fragment"|"empty_old"}``: an
    edit, written through the client; reported with its path only, or with a diff (``fragment``: old and new text
    of two lines from ``line``, ``find`` replaced by ``replace``, without their place in the file;
    ``before_read``: a write announced before the old file is read, ``oldText`` null; ``empty_old``: ``oldText``
    "", as some send it for a new file; ``self_write``: it writes the file itself too, before asking the client to).

usage: python dialect_agent.py
"""

import asyncio
import json
import os
import sys
import urllib.request

DIALECT = json.loads(os.environ.get("DIALECT") or "{}")
CHART = {"version": 1, "title": "Build times", "description": "Seconds per stage of the last build",
         "blocks": [{"type": "chart", "chart_type": "bar", "title": "Stages", "summary": "The tests take longest.",
                     "labels": ["lint", "test", "pack"],
                     "series": [{"label": "seconds", "values": [3, 41, 7]}]}]}


class Agent:
    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.next_id = 0
        self.waiting = {}
        self.hanging = set()  # ids of requests it does not answer (DIALECT hang) until they are withdrawn
        self.servers = []
        self.session = "dialect-1"
        self.client_caps = {}
        self.logged_in = not DIALECT.get("auth_needed")
        self.mcp = None  # the stdio MCP server process, once started
        self.mcp_ids = 0
        self.held = None  # a turn's frames, held back (``buffered``)
        self.mcp_token = None  # the report secret the stdio server is started with, when not the one given

    def send(self, message):
        self.writer.write((json.dumps(message) + "\n").encode())

    async def request(self, method, params):
        self.next_id += 1
        prefix = DIALECT.get("string_ids")
        asked = (str(self.next_id) if prefix == "bare" else f"{prefix}-{self.next_id}") if prefix else self.next_id
        future = asyncio.get_running_loop().create_future()
        self.waiting[asked] = future
        self.send({"jsonrpc": "2.0", "id": asked, "method": method, "params": params})
        return await future

    def update(self, update):
        if self.held is not None:
            self.held.append(update)
            return
        self.send({"jsonrpc": "2.0", "method": "session/update",
                   "params": {"sessionId": self.session, "update": update}})

    # -- the MCP server kandev-tui offered ------------------------------------------------------------------------

    async def mcp_call(self, arguments):
        entry = next(s for s in self.servers if s.get("name") == "kandev")
        if entry.get("type") == "http":
            return await asyncio.to_thread(self._http_call, entry, arguments)
        if self.mcp is None:
            env = {**os.environ, **{e["name"]: e["value"] for e in entry.get("env") or []}}
            if self.mcp_token is not None:
                env["KANDEV_TUI_REPORT_TOKEN"] = self.mcp_token
            self.mcp = await asyncio.create_subprocess_exec(entry["command"], *entry["args"], env=env,
                                                            stdin=asyncio.subprocess.PIPE,
                                                            stdout=asyncio.subprocess.PIPE)
            await self._mcp_rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                               "clientInfo": {"name": "dialect-agent", "version": "1"}})
            self.mcp.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        return await self._mcp_rpc("tools/call", {"name": "show_rich_output_kandev", "arguments": arguments})

    async def _mcp_rpc(self, method, params):
        self.mcp_ids += 1
        self.mcp.stdin.write((json.dumps({"jsonrpc": "2.0", "id": self.mcp_ids, "method": method,
                                          "params": params}) + "\n").encode())
        await self.mcp.stdin.drain()
        while True:
            answer = json.loads(await self.mcp.stdout.readline())
            if answer.get("id") == self.mcp_ids:
                return answer.get("result")

    def _http_call(self, entry, arguments):
        headers = {h["name"]: h["value"] for h in entry.get("headers") or []}
        headers.update({"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        result = None
        for number, (method, params) in enumerate([
                ("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "dialect-agent", "version": "1"}}),
                ("tools/call", {"name": "show_rich_output_kandev", "arguments": arguments})], start=1):
            body = json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}).encode()
            with urllib.request.urlopen(urllib.request.Request(entry["url"], body, headers), timeout=30) as answer:
                result = json.loads(answer.read()).get("result")
        return result

    # -- a turn ---------------------------------------------------------------------------------------------------

    async def chart(self, step):
        call = step.get("call", "chart-1")
        arguments = step.get("arguments", CHART)
        name_in, arguments_in, order = step.get("name_in", "title"), step.get("arguments_in", "rawInput"), \
            step.get("order", "frames_first")
        start = {"sessionUpdate": "tool_call", "toolCallId": call, "status": "pending"}
        if name_in == "title":
            start.update(title="mcp__kandev__show_rich_output_kandev", kind="other")
        elif name_in == "meta":
            start.update(title=f"show_rich_output_kandev (kandev MCP Server): {json.dumps(arguments)}", kind="read",
                         _meta={"toolName": "show_rich_output_kandev"})
        elif name_in == "none":
            start.update(title=arguments.get("description") or arguments["title"], kind="other")
        elif name_in == "code":
            start.update(title="Run code", kind="execute",
                         rawInput={"code": f"mcp_kandev.show_rich_output_kandev(**{json.dumps(arguments)})"})
        if arguments_in == "rawInput" and name_in != "code":
            start["rawInput"] = arguments
        text = json.dumps(arguments)
        pieces = [text[: len(text) // 3], text[: 2 * len(text) // 3], text]
        if order == "frames_first" and name_in != "unreported":
            self.update(start)
            if arguments_in == "content" and name_in != "code":  # the code call streams its code, not these
                for piece in pieces:
                    self.update({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress",
                                 "content": [{"type": "content", "content": {"type": "text", "text": piece}}]})
            await self.writer.drain()
        if step.get("reach", True):
            result = await self.mcp_call(arguments)
        else:  # the agent reports the call but never makes it (its server not connected, a refusal of its own)
            result = {"isError": True, "content": [{"type": "text", "text": "MCP server kandev is not connected"}]}
        if name_in == "unreported":
            return
        done = {"sessionUpdate": "tool_call_update", "toolCallId": call,
                "status": "failed" if result.get("isError") else "completed",
                "content": [{"type": "content", "content": block} for block in result.get("content") or []]}
        if name_in in ("title", "code"):
            done["rawOutput"] = result
        if order == "call_first":
            start.pop("status")
            self.update({**start, **done, "sessionUpdate": "tool_call"})
        else:
            self.update(done)

    async def command(self, step):
        call, line, exit_in = step.get("id", "cmd-1"), step["line"], step.get("exit_in", "exit_code")
        announce = {"toolCallId": call, "title": line, "kind": "execute", "status": "pending",
                    "rawInput": {"command": line}}
        if step.get("announce") == "request":  # no tool_call frame: the permission request is its announcement
            await self.writer.drain()
            await self.request("session/request_permission", {
                "sessionId": self.session, "toolCall": {**announce, "content": [], "locations": []},
                "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]})
        else:
            self.update({"sessionUpdate": "tool_call", **announce})
        if exit_in in ("terminal", "both", "terminal_trailer"):
            made = await self.request("terminal/create", {"sessionId": self.session, "command": line})
            terminal = made["terminalId"]
            if exit_in != "terminal_trailer":  # (that one never says which terminal the call ran in)
                self.update({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress",
                             "content": [{"type": "terminal", "terminalId": terminal}]})
            ended = await self.request("terminal/wait_for_exit", {"sessionId": self.session, "terminalId": terminal})
            output = await self.request("terminal/output", {"sessionId": self.session, "terminalId": terminal})
            done = {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"}
            if exit_in == "both":
                done["content"] = [{"type": "terminal", "terminalId": terminal},
                                   {"type": "content", "content": {"type": "text", "text": output["output"]}}]
            elif exit_in == "terminal_trailer":  # only a trailer says how it ended
                done["content"] = [{"type": "content", "content": {"type": "text", "text": (
                    f"\n\n[Exit code: {ended.get('exitCode')}]")}}]
            self.update(done)
            await self.request("terminal/release", {"sessionId": self.session, "terminalId": terminal})
            return ended
        process = await asyncio.create_subprocess_shell(line, stdout=asyncio.subprocess.PIPE,
                                                        stderr=asyncio.subprocess.STDOUT)
        out = (await process.communicate())[0].decode()
        code = process.returncode
        done = {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"}
        if exit_in == "exit_code":
            done["rawOutput"] = {"output": out, "exit_code": code}
        elif exit_in == "exitCode":
            done["rawOutput"] = {"output": out, "exitCode": code}
        elif exit_in == "exit_status":
            done["rawOutput"] = {"stdout": out, "exit_status": code}
        elif exit_in == "meta":
            done["rawOutput"] = out
            done["_meta"] = {"exit_code": code}
        elif exit_in == "string":
            done["rawOutput"] = {"output": out, "exit_code": str(code)}
        elif exit_in == "nested_meta":
            done["rawOutput"] = out
            done["_meta"] = {"someAgent": {"toolResult": {"exitStatus": code}}}
        elif exit_in == "trailer":
            done["content"] = [{"type": "content", "content": {"type": "text", "text": f"{out}\nExit Code: {code}"}}]
        elif exit_in == "summary":  # the output plain, the exit only in a summary text (Qwen Code)
            done["rawOutput"] = out
            done["content"] = [{"type": "content", "content": {"type": "text", "text": (
                f"Command: {line}\nDirectory: (root)\nOutput: {out}\nError: (none)\nExit Code: {code}\n"
                "Signal: 0\nProcess Group PGID: 1")}}]
        elif exit_in == "signal":
            done["rawOutput"] = {"output": out, "exit_code": None, "signal": "SIGTERM"}
        elif exit_in == "negative":
            done["rawOutput"] = {"output": out, "returncode": -9}
        elif exit_in == "listed":  # a list of content entries, the code in one with its own type, and a sentence
            done["rawOutput"] = [{"type": "text", "text": f"{out}\nThe command completed with exit code {code}."},
                                 {"type": "process_result", "detail": {"exitCode": code}}]
        elif exit_in == "json_text":
            done["content"] = [{"type": "content", "content": {"type": "text", "text": json.dumps(
                {"output": out, "exit_code": code})}}]
        else:
            done["content"] = [{"type": "content", "content": {"type": "text", "text": out}}]
        self.update(done)
        return code

    async def ask(self, step, last_call):
        tool_call = {"toolCallId": last_call, **(step.get("tool_call") or {})}
        return await self.request("session/request_permission", {
            "sessionId": self.session, "toolCall": tool_call,
            "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]})

    async def turn(self, request_id, params):
        prompt = "".join(block.get("text", "") for block in params.get("prompt") or [] if isinstance(block, dict))
        if DIALECT.get("buffered"):
            self.held = []
        if DIALECT.get("echo"):  # in three pieces, as streamed
            thirds = [prompt[: len(prompt) // 3], prompt[len(prompt) // 3: 2 * len(prompt) // 3],
                      prompt[2 * len(prompt) // 3:]]
            for piece in thirds:
                self.update({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": piece}})
        last_call = None
        for step in DIALECT.get("steps") or []:
            op = step["op"]
            if op == "chart":
                await self.chart(step)
                last_call = step.get("call", "chart-1")
            elif op == "command":
                await self.command(step)
                last_call = step.get("id", "cmd-1")
            elif op == "ask":
                await self.ask(step, last_call)
            elif op == "update":  # any session/update, as given (notices, compactions, plan operations…)
                if step.get("session"):  # of another session: a subagent's own
                    self.send({"jsonrpc": "2.0", "method": "session/update",
                               "params": {"sessionId": step["session"], "update": step["update"]}})
                else:
                    self.update(step["update"])
            elif op == "blocks":  # what the prompt carried besides its text: each block's type, name and text
                said = [{"type": b.get("type"), "name": b.get("name"), "uri": (b.get("uri") or (b.get("resource") or {})
                         .get("uri") or "").rsplit("/", 1)[-1], "text": (b.get("resource") or {}).get("text"),
                         "data": bool(b.get("data"))} for b in (params.get("prompt") or [])[1:]]
                self.update({"sessionUpdate": "agent_message_chunk",
                             "content": {"type": "text", "text": "blocks: " + json.dumps(said)}})
            elif op == "wait":  # until this file exists (the test says when to go on)
                while not os.path.exists(step["path"]):
                    await asyncio.sleep(0.05)
            elif op == "caps":  # what the client offered in initialize
                self.update({"sessionUpdate": "agent_message_chunk",
                             "content": {"type": "text", "text": "caps: " + json.dumps(self.client_caps)}})
            elif op == "elicit":
                params = dict(step["params"])
                if "requestId" not in params:
                    params["sessionId"] = self.session
                if step.get("withdraw_when"):  # it gives up on the question once this file exists
                    self.next_id += 1
                    asked = self.next_id
                    future = asyncio.get_running_loop().create_future()
                    self.waiting[asked] = future
                    self.send({"jsonrpc": "2.0", "id": asked, "method": "elicitation/create", "params": params})
                    await self.writer.drain()
                    while not os.path.exists(step["withdraw_when"]):
                        await asyncio.sleep(0.05)
                    self.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": asked}})
                    await self.writer.drain()
                    answer = await future
                else:
                    answer = await self.request("elicitation/create", params)
                if step.get("complete"):
                    self.send({"jsonrpc": "2.0", "method": "elicitation/complete",
                               "params": {"elicitationId": params.get("elicitationId")}})
                self.update({"sessionUpdate": "agent_message_chunk",
                             "content": {"type": "text", "text": "answer: " + json.dumps(answer, sort_keys=True)}})
            elif op == "restart_mcp":  # its stdio MCP server ends; the next call starts it again, with this secret
                if self.mcp is not None:
                    self.mcp.kill()
                    await self.mcp.wait()
                    self.mcp = None
                self.mcp_token = step.get("token")
            elif op == "user":  # a user message that is not the prompt (a queued message, a hook's note)
                self.update({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": step["text"]}})
            elif op == "usage":  # a message chunk that carries only usage
                self.update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": ""},
                             "_meta": {"usage": {"inputTokens": 10, "outputTokens": 5}}})
            elif op == "say":
                self.update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": step["text"]}})
            elif op == "stdout":  # lines that are not JSON-RPC on its output (a stray print, a library's warning)
                self.writer.write("".join(line + "\n" for line in step["lines"]).encode())
            elif op == "write":
                await self.write(step)
            elif op == "state":  # its own state, written by its process: no tool call says so
                for path, text in step["files"].items():
                    os.makedirs(os.path.dirname(os.path.join(os.getcwd(), path)) or ".", exist_ok=True)
                    with open(os.path.join(os.getcwd(), path), "w", encoding="utf-8") as state:
                        state.write(text)
            await self.writer.drain()
        if DIALECT.get("usage_chunk"):
            self.update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": ""},
                         "_meta": {"usage": {"inputTokens": 10, "outputTokens": 5}}})
        held, self.held = self.held, None
        for update in held or []:
            self.update(update)
        self.send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})

    async def write(self, step):
        call = step.get("id", "edit-1")
        path = os.path.join(os.getcwd(), step["path"])
        if step.get("report") == "fragment":
            lines = open(path, encoding="utf-8").read().splitlines()  # noqa: SIM115
            old = "\n".join(lines[step["line"] - 1: step["line"] + 1])
            new = old.replace(step["find"], step["replace"])
            diff = {"type": "diff", "path": path, "oldText": old, "newText": new}
        elif step.get("report") == "before_read":
            diff = {"type": "diff", "path": path, "oldText": None, "newText": step["content"]}
        elif step.get("report") == "empty_old":  # a new file's old text as "" (Gemini CLI, OpenCode), not null
            diff = {"type": "diff", "path": path, "oldText": "", "newText": step["content"]}
        elif step.get("report") == "written_first":  # it writes the new file itself, then reports the call, done,
            os.makedirs(os.path.dirname(path), exist_ok=True)  # with the file's diff as new (no old text)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(step["content"])
            self.update({"sessionUpdate": "tool_call", "toolCallId": call, "title": f"Write {step['path']}",
                         "kind": "edit", "status": "in_progress", "locations": [{"path": path}],
                         "content": [{"type": "diff", "path": path, "oldText": None, "newText": step["content"]}]})
            await self.writer.drain()
            self.update({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"})
            return
        else:
            diff = None
        self.update({"sessionUpdate": "tool_call", "toolCallId": call, "title": f"Edit {step['path']}",
                     "kind": "edit", "status": "pending", "content": [diff] if diff else [],
                     "locations": [{"path": path}], "rawInput": {"filePath": path}})
        await self.writer.drain()
        await self.ask({}, call)  # as OpenCode does in its ask mode: the file is written once allowed
        if step.get("report") == "fragment":
            full = open(path, encoding="utf-8").read().replace(step["find"], step["replace"], 1)
        else:
            full = step["content"]
        if step.get("self_write"):  # it writes the file itself as well, before the client does (OpenCode)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(full)
        await self.request("fs/write_text_file", {"sessionId": self.session, "path": path, "content": full})
        self.update({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"})

    # -- the protocol -------------------------------------------------------------------------------------------------

    def initialize(self, params):
        self.client_caps = params.get("clientCapabilities") or {}
        methods = DIALECT.get("auth") or []
        opt_in = DIALECT.get("auth_opt_in")
        if opt_in and (self.client_caps.get("_meta") or {}).get(opt_in) is not True:
            methods = []
        return {"protocolVersion": 1, "authMethods": methods,
                "agentCapabilities": {"mcpCapabilities": {"http": bool(DIALECT.get("http")), "sse": False},
                                      "promptCapabilities": DIALECT.get("prompt_caps") or {},
                                      "sessionCapabilities": DIALECT.get("session_caps") or {}},
                "agentInfo": {"name": "dialect-agent", "version": "1"}}

    async def serve(self):
        while True:
            line = await self.reader.readline()
            if not line:
                return
            message = json.loads(line)
            method, request_id = message.get("method"), message.get("id")
            if method is None:
                future = self.waiting.pop(request_id, None)
                if future is not None and not future.done():
                    future.set_result(message.get("result") or message.get("error"))
                continue
            params = message.get("params") or {}
            if method in (DIALECT.get("hang") or []) or method == "$/cancel_request":
                if DIALECT.get("session_log"):
                    with open(DIALECT["session_log"], "a", encoding="utf-8") as log:
                        log.write(json.dumps({"method": method, "id": request_id, "params": params}) + "\n")
                if method == "$/cancel_request" and params.get("requestId") in self.hanging:
                    self.hanging.discard(params["requestId"])
                    self.send({"jsonrpc": "2.0", "id": params["requestId"],
                               "error": {"code": -32800, "message": "Request cancelled"}})
                elif method != "$/cancel_request":
                    self.hanging.add(request_id)
                await self.writer.drain()
                continue
            if method == "initialize":
                if DIALECT.get("banner"):  # a launcher's lines on stdout before the agent speaks
                    self.writer.write("".join(line + "\n" for line in DIALECT["banner"]).encode())
                while DIALECT.get("start_gate") and not os.path.exists(DIALECT["start_gate"]):
                    await asyncio.sleep(0.05)  # a slow start, as long as the test wants it
                self.send({"jsonrpc": "2.0", "id": request_id, "result": self.initialize(params)})
            elif method == "authenticate":
                if DIALECT.get("auth_crash"):  # it dies, and a child of its keeps its output open (as a
                    sys.stderr.write("login helper crashed: no keyring\n")  # wrapper script's child may)
                    sys.stderr.flush()
                    import subprocess
                    subprocess.Popen(["sleep", "120"])
                    os._exit(7)
                if DIALECT.get("auth_fail"):
                    self.send({"jsonrpc": "2.0", "id": request_id,
                               "error": {"code": -32603, "message": "the login service is down"}})
                else:
                    self.logged_in = True
                    self.send({"jsonrpc": "2.0", "id": request_id, "result": {}})
            elif method == "session/new":
                if not self.logged_in:
                    self.send({"jsonrpc": "2.0", "id": request_id,
                               "error": {"code": -32000, "message": "Authentication required"}})
                    continue
                self.servers = params.get("mcpServers") or []
                self.send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": self.session}})
            elif method == "session/prompt":
                asyncio.ensure_future(self.turn(request_id, params))
            elif method == "session/cancel":
                if DIALECT.get("session_log"):
                    with open(DIALECT["session_log"], "a", encoding="utf-8") as log:
                        log.write(json.dumps({"method": method, "params": params}) + "\n")
            elif method in ("session/close", "session/delete"):
                if DIALECT.get("session_log"):  # what it was asked, one line each (offered or not)
                    with open(DIALECT["session_log"], "a", encoding="utf-8") as log:
                        log.write(json.dumps({"method": method, "params": params}) + "\n")
                if method[len("session/"):] in (DIALECT.get("session_caps") or {}):
                    self.send({"jsonrpc": "2.0", "id": request_id, "result": {}})
                else:
                    self.send({"jsonrpc": "2.0", "id": request_id,
                               "error": {"code": -32601, "message": f"Method not found: {method}"}})
            elif request_id is not None:
                self.send({"jsonrpc": "2.0", "id": request_id,
                           "error": {"code": -32601, "message": f"Method not found: {method}"}})
            await self.writer.drain()


async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sys.stdout)
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    agent = Agent(reader, writer)
    try:
        await agent.serve()
    finally:
        if agent.mcp is not None and agent.mcp.returncode is None:
            agent.mcp.kill()
            await agent.mcp.wait()


if __name__ == "__main__":
    asyncio.run(main())
