"""A misbehaving ACP agent for fault tests: raw JSON-RPC over stdio, one fault per mode.

usage: python fault_agent.py MODE
modes: exit-mid-turn, garbage, no-init, huge-line, ignore-cancel, slow-stream [N], flood [N [RELEASE]], hang-tool,
       mixed CHUNKS TOOLS (benchmarks/stream.py: chunks with tool calls spread among them),
       burst CHUNKS TOOLS RICH STAMP [GATE] (benchmarks/terminal.py: the same with RICH rich-output charts among
       them, then a last chunk "END-OF-STREAM"; the wall-clock times of its first and last frames go to the file
       STAMP; with GATE, a file's path, it sends its first frame once that file exists: several agents start
       together),
       long CHUNKS BYTES STAMP (benchmarks/stream.py: one Markdown message of BYTES in CHUNKS chunks; the times of its
       first frame, of the first frame of each next tenth of the chunks, and of its last frame go to STAMP)
"""

import json
import os
import signal
import sys
import time

MODE = sys.argv[1]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def chunk(session, text):
    send({"jsonrpc": "2.0", "method": "session/update",
          "params": {"sessionId": session, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}})


def markdown(size):
    """A Markdown document of about ``size`` characters, as an agent writes a long report: sections with a heading,
    a paragraph, a list and now and then a code block."""
    parts, section = [], 0
    while sum(len(p) for p in parts) < size:
        section += 1
        parts.append(f"## Section {section}\n\n")
        parts.append(" ".join(f"Word{n} of section {section} says **something** about `code{n}`." for n in range(12))
                     + "\n\n")
        parts.append("".join(f"- item {n} of {section}: a finding with a [link](https://example.com/{n})\n"
                             for n in range(5)) + "\n")
        if section % 3 == 0:
            parts.append("```python\n" + "".join(f"def f{n}(x):\n    return x * {n}\n" for n in range(3)) + "```\n\n")
    return "".join(parts)[:size]


def tool(session, call, index):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {
        "sessionUpdate": "tool_call", "toolCallId": call, "title": f"Read src/m{index}.py", "kind": "read",
        "status": "pending", "rawInput": {"path": f"src/m{index}.py"}}}})
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {
        "sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed", "rawOutput": "x = 1\n" * 20}}})


def chart(session, call, index):
    """A show_rich_output_kandev call as Claude Code reports it: a bar chart of 8 values."""
    presentation = {"version": 1, "title": f"Chart {index}", "blocks": [{
        "type": "chart", "chart_type": "bar", "title": f"Build times {index}", "summary": "Seconds per stage.",
        "labels": [f"s{n}" for n in range(8)], "series": [{"label": "seconds", "values": [n + index % 7 for n in range(8)]}]}]}
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {
        "sessionUpdate": "tool_call", "toolCallId": call, "title": "mcp__kandev__show_rich_output_kandev",
        "kind": "other", "status": "pending", "rawInput": presentation}}})
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {
        "sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
        "rawOutput": "Rich output accepted."}}})


def main():
    waiting = None  # hang-tool: the prompt that is answered only when cancelled
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            if MODE == "no-init":
                continue
            send({"jsonrpc": "2.0", "id": request_id, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": "f-1"}})
        elif method == "session/prompt":
            session = message["params"]["sessionId"]
            if MODE == "killed-mid-turn":  # as the OOM killer or a kill -9 ends it
                chunk(session, "Starting ")
                os.kill(os.getpid(), signal.SIGKILL)
            if MODE == "exit-mid-turn":
                chunk(session, "Starting ")
                chunk(session, "work…")
                print("fatal: the model connection dropped", file=sys.stderr, flush=True)
                sys.exit(3)
            if MODE == "garbage":
                chunk(session, "before ")
                sys.stdout.write("Debugger listening on ws://127.0.0.1:9229\n")
                sys.stdout.write("{not json\n")
                sys.stdout.flush()
                chunk(session, "after")
            if MODE == "huge-line":
                chunk(session, "small ")
                chunk(session, "x" * (10 * 1024 * 1024))
                chunk(session, "done")
            if MODE == "slow-stream":
                for index in range(int(sys.argv[2]) if len(sys.argv) > 2 else 400):
                    chunk(session, f"w{index} ")
                    time.sleep(0.005)
            if MODE == "flood":  # as fast as the pipe takes them: N chunks, and on until the file RELEASE exists
                least = int(sys.argv[2]) if len(sys.argv) > 2 else 50_000
                release = sys.argv[3] if len(sys.argv) > 3 else None
                index = 0
                while index < least or (release is not None and not os.path.exists(release)):
                    chunk(session, f"c{index} ")
                    index += 1
            if MODE == "long":
                chunks, size, stamp = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
                text, times = markdown(size), [time.time()]
                step = max(1, len(text) // chunks)
                for index in range(chunks):
                    if index and index % (chunks // 10) == 0:
                        times.append(time.time())
                    chunk(session, text[index * step:(index + 1) * step if index < chunks - 1 else len(text)])
                times.append(time.time())
                with open(stamp, "w") as out:
                    out.write(" ".join(repr(t) for t in times))
            if MODE == "mixed":
                chunks, tools = int(sys.argv[2]), int(sys.argv[3])
                every = max(1, chunks // max(1, tools))
                for index in range(chunks):
                    chunk(session, f"c{index} " + ("\n\n" if index % 40 == 39 else ""))
                    if index % every == every - 1 and index // every < tools:
                        call = f"t{index // every}"
                        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {
                            "sessionUpdate": "tool_call", "toolCallId": call, "title": f"Read src/m{index}.py",
                            "kind": "read", "status": "pending", "rawInput": {"path": f"src/m{index}.py"}}}})
                        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {
                            "sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
                            "rawOutput": "x = 1\n" * 20}}})
            if MODE == "burst":
                chunks, tools, rich, stamp = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
                while len(sys.argv) > 6 and not os.path.exists(sys.argv[6]):
                    time.sleep(0.001)
                began = time.time()
                every = max(1, chunks // max(1, tools))
                every_rich = max(1, chunks // max(1, rich))
                for index in range(chunks):
                    chunk(session, f"c{index} " + ("\n\n" if index % 40 == 39 else ""))
                    if index % every == every - 1 and index // every < tools:
                        tool(session, f"t{index // every}", index)
                    if index % every_rich == every_rich - 1 and index // every_rich < rich:
                        chart(session, f"r{index // every_rich}", index)
                chunk(session, "\n\nEND-OF-STREAM")
                with open(stamp, "w") as out:
                    out.write(f"{began!r} {time.time()!r}")  # the first frame's and the last frame's times
            if MODE == "hang-tool":  # a tool call that never ends; the turn ends only when cancelled
                chunk(session, "Running the migration. ")
                send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {
                    "sessionUpdate": "tool_call", "toolCallId": "forever", "title": "migrate --all", "kind": "execute",
                    "status": "in_progress", "rawInput": {"command": "migrate --all"}}}})
                waiting = request_id
                continue
            if MODE == "ignore-cancel":
                index = 0
                while True:
                    chunk(session, f"still going {index} ")
                    index += 1
                    time.sleep(0.05)
            send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})
        elif method == "session/cancel" and waiting is not None:
            send({"jsonrpc": "2.0", "id": waiting, "result": {"stopReason": "cancelled"}})
            waiting = None
        elif request_id is not None:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}})


main()
