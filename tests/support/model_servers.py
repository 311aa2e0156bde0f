"""Scripted model servers for the real agents' adapters: the only part of a real-agent test that is not real.

Each answers its API's streaming endpoint on 127.0.0.1 with the next step of a script, and records every
request it received (method, path, JSON body) so that tests can assert on what the agent sent. Standard
library only (``http.server`` in a thread).

A script is a list of steps; a step is a list of blocks the "model" answers with:

- ``{"text": "..."}``: assistant text, streamed in a few deltas;
- ``{"thinking": "..."}``: a thought (Anthropic only);
- ``{"tool": NAME, "input": {...}}``: a tool call (``"namespace"``: Codex's namespace of an MCP server's tools);
- ``{"custom": NAME, "input": "..."}``: a freeform tool call (Codex's ``apply_patch``);
- ``{"tool_search": {"query": ...}}``: Codex's look-up of deferred tools (how it reaches MCP tools for gpt-5.5).

Which step a request gets: the agent sends the whole conversation each time, and every tool call id the
server makes carries its step (``toolu_s2_0``, ``call_s2_0``), so the next step is one past the highest step
named in the request (step 0 when none is). A request for a step past the script's end gets a short final
text, so an agent that asks once more (a title, a summary) is answered.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STEP_ID = re.compile(r"(?:toolu|call)_s(\d+)_\d+")


def _chunks(text: str, parts: int = 3) -> list[str]:
    size = max(1, -(-len(text) // parts))
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def next_step(body: Any) -> int:
    """One past the highest step whose tool call ids appear in the request (0 for the first request)."""
    steps = [int(m) for m in STEP_ID.findall(json.dumps(body))]
    return max(steps) + 1 if steps else 0


class _QuietServer(ThreadingHTTPServer):
    """Errors in a request's thread are kept, not printed: the server runs beside kandev-tui in its terminal (tests
    in tmux), where a traceback written over the app's screen broke it (a cancelled turn's client goes away while
    its answer streams). A client gone is not an error; the others are said when the server stops."""

    errors: list[str]

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            self.errors.append(traceback.format_exc())


class ScriptedServer:
    """Base: a threaded HTTP server on 127.0.0.1 that records requests and streams Server-Sent Events."""

    def __init__(self, script: list[list[dict[str, Any]]], port: int = 0) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:  # noqa: N802 - Claude Code checks the base URL with HEAD /
                server._record(self, None)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:  # noqa: N802
                server._record(self, None)
                server.get(self)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = None
                server._record(self, body)
                server.post(self, body)

        self.httpd = _QuietServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.httpd.errors = []
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> "ScriptedServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        for error in self.httpd.errors:  # (kandev-tui has left the terminal by now)
            print(f"scripted server: {error}", file=sys.stderr)

    def _record(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        with self._lock:
            self.requests.append({"method": handler.command, "path": handler.path, "body": body})

    def step(self, body: Any) -> tuple[int, list[dict[str, Any]]]:
        index = next_step(body)
        if index < len(self.script):
            return index, self.script[index]
        return index, [{"text": "Done."}]

    def get(self, handler: BaseHTTPRequestHandler) -> None:
        self._json(handler, 404, {"error": {"type": "not_found", "message": "not scripted"}})

    def post(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        raise NotImplementedError

    @staticmethod
    def _json(handler: BaseHTTPRequestHandler, status: int, data: Any) -> None:
        payload = json.dumps(data).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    @staticmethod
    def _sse(handler: BaseHTTPRequestHandler, events: list[tuple[str | None, dict[str, Any]]], *,
             done: bool = False) -> None:
        """Server-Sent Events, ``(name, data)`` each (no name: a data line only, as Gemini's and the chat
        completions' streams); ``done`` ends with OpenAI's ``data: [DONE]``."""
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        for name, data in events:
            event = f"event: {name}\n" if name else ""
            handler.wfile.write(f"{event}data: {json.dumps(data)}\n\n".encode())
            handler.wfile.flush()
        if done:
            handler.wfile.write(b"data: [DONE]\n\n")
            handler.wfile.flush()
        handler.close_connection = True


class AnthropicServer(ScriptedServer):
    """``POST /v1/messages`` (``"stream": true``) answered in the Messages API's Server-Sent Events."""

    def post(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        if not handler.path.startswith("/v1/messages") or not isinstance(body, dict):
            self._json(handler, 404, {"type": "error", "error": {"type": "not_found_error", "message": handler.path}})
            return
        if "count_tokens" in handler.path:
            self._json(handler, 200, {"input_tokens": 100})
            return
        index, blocks = self.step(body)
        model = body.get("model", "claude-scripted")
        events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": {
            "id": f"msg_s{index}", "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 1}}})]
        stop = "end_turn"
        for number, block in enumerate(blocks):
            if "text" in block:
                start = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": part} for part in _chunks(block["text"])]
            elif "thinking" in block:
                start = {"type": "thinking", "thinking": ""}
                deltas = [{"type": "thinking_delta", "thinking": part} for part in _chunks(block["thinking"])]
                deltas.append({"type": "signature_delta", "signature": "c2NyaXB0ZWQ="})
            else:
                stop = "tool_use"
                start = {"type": "tool_use", "id": f"toolu_s{index}_{number}", "name": block["tool"], "input": {}}
                deltas = [{"type": "input_json_delta", "partial_json": part}
                          for part in _chunks(json.dumps(block["input"]))]
            events.append(("content_block_start", {"type": "content_block_start", "index": number,
                                                   "content_block": start}))
            events += [("content_block_delta", {"type": "content_block_delta", "index": number, "delta": d})
                       for d in deltas]
            events.append(("content_block_stop", {"type": "content_block_stop", "index": number}))
        events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 20}}))
        events.append(("message_stop", {"type": "message_stop"}))
        self._sse(handler, events)


def user_text(body: Any) -> str:
    """What the user-role messages of a Responses request say (Codex puts a subagent's task there)."""
    said = []
    for entry in (body.get("input") if isinstance(body, dict) else None) or []:
        if isinstance(entry, dict) and entry.get("type") == "message" and entry.get("role") == "user":
            said += [part.get("text") or "" for part in entry.get("content") or [] if isinstance(part, dict)]
    return "\n".join(said)


class ResponsesServer(ScriptedServer):
    """``POST /v1/responses`` (OpenAI's Responses API, as Codex calls it) answered in its Server-Sent Events.

    Its script may also be ``{"steps": [...], "routes": [{"user_says": TEXT, "steps": [...]}]}``: a request whose
    user messages say TEXT (a subagent's task) follows that route's steps, counted by its own call ids
    (``call_r0x1_0``); the others follow ``steps``. In a tool call's input, ``"$agent"`` is replaced with the
    ``agent_id`` of the last ``spawn_agent`` output in the request (the id Codex gave the subagent). A step that
    begins with ``{"hold_until": PATH}`` is answered once that file exists (a test lets the "model" go on).
    """

    def __init__(self, script: Any, port: int = 0) -> None:
        routes: list[dict[str, Any]] = []
        if isinstance(script, dict):
            routes, script = script.get("routes") or [], script["steps"]
        super().__init__(script, port)
        self.routes = routes

    def choose(self, body: Any) -> tuple[str, list[dict[str, Any]]]:
        said = user_text(body)
        for number, route in enumerate(self.routes):
            if route["user_says"] in said:
                tag = f"r{number}x"
                steps = [int(m) for m in re.findall(rf"call_{tag}(\d+)_\d+", json.dumps(body))]
                index = max(steps) + 1 if steps else 0
                return f"{tag}{index}", route["steps"][index] if index < len(route["steps"]) else [{"text": "Done."}]
        index, blocks = self.step(body)
        return f"s{index}", blocks

    @staticmethod
    def spawned(body: Any) -> str:
        """The agent id in the last function call output that has one (``spawn_agent``'s)."""
        found = ""
        for entry in (body.get("input") if isinstance(body, dict) else None) or []:
            if isinstance(entry, dict) and entry.get("type") == "function_call_output":
                output = entry.get("output")
                text = output if isinstance(output, str) else json.dumps(output)
                match = re.search(r'agent_id\\?"\s*:\s*\\?"([^"\\]+)', text)
                found = match.group(1) if match else found
        return found

    def get(self, handler: BaseHTTPRequestHandler) -> None:
        if handler.path.rstrip("/").endswith("/models"):
            self._json(handler, 200, {"models": []})
            return
        super().get(handler)

    def post(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        if not handler.path.rstrip("/").endswith("/responses") or not isinstance(body, dict):
            self._json(handler, 404, {"error": {"type": "not_found", "message": handler.path}})
            return
        index, blocks = self.choose(body)
        if blocks and "hold_until" in blocks[0]:
            for _ in range(2400):  # two minutes at most
                if os.path.exists(blocks[0]["hold_until"]):
                    break
                time.sleep(0.05)
            blocks = blocks[1:]
        response = {"id": f"resp_{index}", "object": "response", "status": "in_progress", "output": []}
        events: list[tuple[str, dict[str, Any]]] = [("response.created", {"type": "response.created",
                                                                          "response": response})]
        output = []
        for number, block in enumerate(blocks):
            if "text" in block:
                item_id = f"msg_{index}_{number}"
                events.append(("response.output_item.added", {"type": "response.output_item.added",
                               "output_index": number, "item": {"type": "message", "id": item_id,
                                                                "role": "assistant", "content": []}}))
                for part in _chunks(block["text"]):
                    events.append(("response.output_text.delta", {"type": "response.output_text.delta",
                                   "item_id": item_id, "output_index": number, "content_index": 0, "delta": part}))
                item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": block["text"], "annotations": []}]}
            elif "custom" in block:  # a freeform tool (Codex's apply_patch for models it knows): its input is text
                item = {"type": "custom_tool_call", "id": f"ctc_{index}_{number}", "call_id": f"call_{index}_{number}",
                        "name": block["custom"], "input": block["input"], "status": "completed"}
                events.append(("response.output_item.added", {"type": "response.output_item.added",
                                                              "output_index": number, "item": item}))
            elif "tool_search" in block:  # Codex looks up deferred (MCP) tools, then calls them by namespace
                item = {"type": "tool_search_call", "id": f"ts_{index}_{number}", "call_id": f"call_{index}_{number}",
                        "execution": "client", "status": "completed", "arguments": block["tool_search"]}
                events.append(("response.output_item.added", {"type": "response.output_item.added",
                                                              "output_index": number, "item": item}))
            else:
                item = {"type": "function_call", "id": f"fc_{index}_{number}", "call_id": f"call_{index}_{number}",
                        "name": block["tool"], "status": "completed",
                        "arguments": json.dumps(block["input"]).replace('"$agent"', json.dumps(self.spawned(body)))}
                if block.get("namespace"):
                    item["namespace"] = block["namespace"]
                events.append(("response.output_item.added", {"type": "response.output_item.added",
                                                              "output_index": number, "item": item}))
            events.append(("response.output_item.done", {"type": "response.output_item.done",
                                                          "output_index": number, "item": item}))
            output.append(item)
        events.append(("response.completed", {"type": "response.completed", "response": {
            **response, "status": "completed", "output": output,
            "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120}}}))
        self._sse(handler, events)


class GeminiServer(ScriptedServer):
    """``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` (Gemini's API, as Gemini CLI calls it) answered
    in its Server-Sent Events (``candidates[].content.parts`` of text or ``functionCall``); the non-streaming
    ``:generateContent`` (a side question Gemini CLI may ask) gets a short text, and ``:countTokens`` a count.

    Which step: every function call the server makes carries its step in its id (``call_s2_0``) and Gemini CLI
    sends it back with the result (``functionResponse.id``); when it does not, the number of model turns in the
    request's ``contents``."""

    def step(self, body: Any) -> tuple[int, list[dict[str, Any]]]:
        index = next_step(body)
        if index == 0 and isinstance(body, dict):
            index = sum(1 for c in body.get("contents") or [] if isinstance(c, dict) and c.get("role") == "model")
        if index < len(self.script):
            return index, self.script[index]
        return index, [{"text": "Done."}]

    def post(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        path = handler.path
        if ":countTokens" in path:
            self._json(handler, 200, {"totalTokens": 100})
            return
        if ":generateContent" in path:  # a side question (a summary, a check): a short answer
            self._json(handler, 200, {"candidates": [{"content": {"role": "model", "parts": [{"text": "{}"}]},
                                                      "finishReason": "STOP", "index": 0}],
                                      "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1,
                                                        "totalTokenCount": 11}})
            return
        if ":streamGenerateContent" not in path or not isinstance(body, dict):
            self._json(handler, 404, {"error": {"code": 404, "message": path, "status": "NOT_FOUND"}})
            return
        index, blocks = self.step(body)
        events: list[tuple[str, dict[str, Any]]] = []
        usage = {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}
        for number, block in enumerate(blocks):
            if "text" in block:
                for part in _chunks(block["text"]):
                    events.append(("", {"candidates": [{"content": {"role": "model", "parts": [{"text": part}]},
                                                        "index": 0}]}))
            else:
                call = {"name": block["tool"], "args": block["input"], "id": f"call_s{index}_{number}"}
                events.append(("", {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]},
                                                    "index": 0}]}))
        events.append(("", {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                                            "finishReason": "STOP", "index": 0}], "usageMetadata": usage}))
        self._sse(handler, [(None, data) for _, data in events])


class ChatCompletionsServer(ScriptedServer):
    """``POST /v1/chat/completions`` (``"stream": true``: OpenAI-compatible, as OpenCode's bundled provider calls
    it) answered in its chunks, ``data: [DONE]`` last; ``GET /v1/models`` lists one model."""

    def get(self, handler: BaseHTTPRequestHandler) -> None:
        if handler.path.rstrip("/").endswith("/models"):
            self._json(handler, 200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
            return
        super().get(handler)

    def post(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        if not handler.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
            self._json(handler, 404, {"error": {"type": "not_found", "message": handler.path}})
            return
        index, blocks = self.step(body)
        if not body.get("tools") and index > 0:  # a side request without tools (a title): a short text
            index, blocks = index, [{"text": "Scripted session"}]
        model = body.get("model", "scripted")
        base = {"id": f"chatcmpl-s{index}", "object": "chat.completion.chunk", "created": 1, "model": model}
        chunks: list[dict[str, Any]] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                                              "finish_reason": None}]}]
        finish = "stop"
        calls = 0
        for number, block in enumerate(blocks):
            if "text" in block:
                chunks += [{**base, "choices": [{"index": 0, "delta": {"content": part}, "finish_reason": None}]}
                           for part in _chunks(block["text"])]
            else:
                finish = "tool_calls"
                arguments = json.dumps(block["input"])
                chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [{
                    "index": calls, "id": f"call_s{index}_{number}", "type": "function",
                    "function": {"name": block["tool"], "arguments": ""}}]}, "finish_reason": None}]})
                chunks += [{**base, "choices": [{"index": 0, "delta": {"tool_calls": [{
                    "index": calls, "function": {"arguments": part}}]}, "finish_reason": None}]} for part in _chunks(arguments)]
                calls += 1
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                       "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
        self._sse(handler, [(None, chunk) for chunk in chunks], done=True)
