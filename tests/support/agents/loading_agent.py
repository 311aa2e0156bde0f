"""An ACP agent that keeps its sessions across runs and loads them (``session/load``, replaying their history as
``session/update`` notifications, as Claude Code and Codex do) and lists them (``session/list``). Raw JSON-RPC.

usage: python loading_agent.py SESSIONS_FILE

``LOADING_AGENT_EXTRA=N``: a load replays N more chunks after the history (a long session). A session id it does not
know: error -32002 "Resource not found".
"""

import json
import os
import sys
from pathlib import Path

FILE = Path(sys.argv[1])


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def update(session, kind, text):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {
        "sessionUpdate": kind, "content": {"type": "text", "text": text}}}})


def sessions():
    return json.loads(FILE.read_text()) if FILE.exists() else {}


def main():
    known = sessions()
    current = None
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id, params = message.get("method"), message.get("id"), message.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"protocolVersion": 1, "agentInfo": {
                "name": "loading-agent", "title": "Loading agent", "version": "1"}, "agentCapabilities": {
                "loadSession": True, "sessionCapabilities": {"list": {}}}}})
        elif method == "session/new":
            current = f"L{len(known) + 1}"
            known[current] = {"cwd": params.get("cwd"), "turns": []}
            FILE.write_text(json.dumps(known))
            send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": current}})
        elif method == "session/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"sessions": [
                {"sessionId": sid, "cwd": data["cwd"], "title": (data["turns"] or [["(empty)"]])[0][0][:40],
                 "updatedAt": "2026-12-02T10:00:00Z"} for sid, data in reversed(list(known.items()))]}})
        elif method == "session/load":
            current = params.get("sessionId")
            if current not in known:
                send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32002, "message": "Resource not found",
                                                                     "data": {"details": f"no session {current}"}}})
                continue
            for prompt, answer in known[current]["turns"]:
                update(current, "user_message_chunk", prompt)
                update(current, "agent_message_chunk", answer)
            for n in range(int(os.environ.get("LOADING_AGENT_EXTRA", "0"))):
                update(current, "agent_message_chunk", f"r{n} ")
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        elif method == "session/prompt":
            text = "".join(block.get("text", "") for block in params.get("prompt") or [])
            text = text.split("\n\n")[-1]  # the user's words (after kandev-tui's guidance, when it put it first)
            turns = known[current]["turns"]
            answer = f"Answer {len(turns) + 1} to: {text[-60:]}"
            update(current, "agent_message_chunk", answer)
            turns.append([text[-200:], answer])
            FILE.write_text(json.dumps(known))
            send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})
        elif request_id is not None:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}})


main()
