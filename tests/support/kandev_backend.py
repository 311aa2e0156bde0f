"""A real Kandev backend for the attach tests (``../shared/spec/kandev-attach.md``).

The pinned runtime ``@kdlbs/runtime-linux-x64@0.95.1`` is installed once per machine with npm into a cache
outside the repository (``$KANDEV_RUNTIME_CACHE``, default ``$KANDEV_TEST_CACHE/kandev-runtime-0.95.1``, that is
``~/.cache/kandev-tui/kandev-runtime-0.95.1``;
``make kandev-runtime`` does the same). The backend runs with a clean environment in a temporary directory,
with kandev-tui's demo agent as ``mock-agent``, and is stopped with SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from .installs import TEST_CACHE, npm_cache
from .procs import free_port

PACKAGE = "@kdlbs/runtime-linux-x64"
VERSION = "0.95.1"
CACHE = Path(os.environ.get("KANDEV_RUNTIME_CACHE") or TEST_CACHE / f"kandev-runtime-{VERSION}")


class RuntimeMissing(Exception):
    pass


def runtime_bin() -> Path:
    """The directory holding ``kandev`` and ``agentctl``, installed with npm if needed (one process at a time)."""
    from .installs import only_one_installs

    bin_dir = CACHE / "node_modules" / PACKAGE / "bin"
    if (bin_dir / "kandev").is_file() and (bin_dir / "agentctl").is_file():
        return bin_dir
    with only_one_installs(CACHE):
        return _install(bin_dir)


def _install(bin_dir: Path) -> Path:
    if (bin_dir / "kandev").is_file() and (bin_dir / "agentctl").is_file():  # another process installed it meanwhile
        return bin_dir
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeMissing("npm is not installed: install Node.js/npm, or run 'make kandev-runtime' elsewhere")
    CACHE.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", *npm_cache(), "--prefix", str(CACHE), "--no-audit", "--no-fund", "--loglevel=error",
                           f"{PACKAGE}@{VERSION}"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or not (bin_dir / "kandev").is_file():
        raise RuntimeMissing(f"npm install {PACKAGE}@{VERSION} failed: {done.stderr.strip()[-500:]}")
    return bin_dir


def free_range(size: int = 100) -> int:
    for _ in range(200):
        base = 20000 + (uuid.uuid4().int % 30000)
        ok = True
        for port in (base, base + size // 2, base + size - 1):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no free port range")


class Backend:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self.http = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.profile_id = ""
        self.workspace_id = ""

    def start(self) -> "Backend":
        source = runtime_bin()
        bin_dir = self.root / "bin"
        for sub in ("bin", "home", "tmp", "kh"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        for name in ("kandev", "agentctl"):
            target = bin_dir / name
            try:
                os.link(source / name, target)  # hard links: Kandev resolves symlinks to find mock-agent
            except OSError:
                shutil.copy2(source / name, target)
        agent = bin_dir / "mock-agent"
        agent.write_text("#!/bin/sh\n"
                         f"export KANDEV_DEMO_DELAY=${{KANDEV_DEMO_DELAY:-0.01}}\n"
                         f"exec {sys.executable} -m kandev_tui.demo.agent --dialect claude --seed-workspace \"$@\"\n")
        agent.chmod(0o755)
        base = free_range()
        env = {
            "PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(self.root / "home"), "TMPDIR": str(self.root / "tmp"),
            "KANDEV_HOME_DIR": str(self.root / "kh"), "KANDEV_SERVER_HOST": "127.0.0.1",
            "KANDEV_SERVER_PORT": str(self.port), "AGENTCTL_PORT": str(free_port()),
            "AGENTCTL_LISTEN_HOST": "127.0.0.1", "AGENTCTL_INSTANCE_PORT_BASE": str(base),
            "AGENTCTL_INSTANCE_PORT_MAX": str(base + 99), "KANDEV_AGENT_STANDALONE_HOST": "127.0.0.1",
            "KANDEV_DOCKER_ENABLED": "false", "KANDEV_NO_BROWSER": "true", "KANDEV_MOCK_AGENT": "only",
        }
        self.log = open(self.root / "backend.log", "wb")
        self.process = subprocess.Popen([str(bin_dir / "kandev"), "__backend"], env=env, cwd=self.root,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"kandev exited with {self.process.returncode}: {self.tail()}")
            try:
                agents = self.get("/api/v1/agents")["agents"]
                profiles = [p for a in agents if a.get("capability_status") == "ok" for p in a.get("profiles") or []
                            if p.get("name") == "mock-fast"]
                if profiles:
                    self.profile_id = profiles[0]["id"]
                    break
            except OSError:
                pass
            time.sleep(0.2)
        else:
            self.stop()
            raise RuntimeError(f"kandev did not become ready in 60 s: {self.tail()}")
        self.workspace_id = self.get("/api/v1/workspaces")["workspaces"][0]["id"]
        return self

    def tail(self) -> str:
        try:
            return (self.root / "backend.log").read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def get(self, path: str) -> dict[str, Any]:
        with urllib.request.urlopen(self.http + path, timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(self.http + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def quick_chat(self, title: str) -> tuple[str, str]:
        """A new quick chat with the mock agent: (task id, session id)."""
        answer = self.post(f"/api/v1/workspaces/{self.workspace_id}/quick-chat",
                           {"title": title, "agent_profile_id": self.profile_id})
        return answer["task_id"], answer["session_id"]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        self.log.close()


class Client:
    """A plain WebSocket client playing Kandev's web UI in tests (prompts, permission answers, listing)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.ws: Any = None
        self.notes: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> "Client":
        import websockets

        self.ws = await websockets.connect(self.backend.url, max_size=None)
        self._task = asyncio.ensure_future(self._read())
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.ws.close()
        if self._task is not None:
            self._task.cancel()

    async def _read(self) -> None:
        async for raw in self.ws:
            frame = json.loads(raw)
            waiter = self._waiting.pop(frame.get("id"), None)
            if waiter is not None:
                waiter.set_result(frame)
            else:
                await self.notes.put(frame)

    async def request(self, action: str, payload: dict[str, Any]) -> dict[str, Any]:
        request_id = str(uuid.uuid4())
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        await self.ws.send(json.dumps({"id": request_id, "type": "request", "action": action, "payload": payload}))
        frame = await asyncio.wait_for(future, 30)
        assert frame["type"] == "response", frame
        return frame["payload"]

    async def wait_for(self, predicate: Any, timeout: float = 60) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            assert left > 0, "timed out waiting for a Kandev notification"
            frame = await asyncio.wait_for(self.notes.get(), left)
            if predicate(frame):
                return frame

    async def rows(self, session_id: str) -> list[dict[str, Any]]:
        answer = await self.request("message.list", {"session_id": session_id, "limit": 1000, "sort": "asc"})
        return answer["messages"]

    async def start_turn(self, task_id: str, session_id: str, prompt: str, *, ready_timeout: float = 60) -> None:
        """Subscribe, wait until the agent is ready, send the prompt."""
        await self.request("session.subscribe", {"session_id": session_id})
        await self.wait_for(lambda f: f.get("action") == "session.agent_capabilities", ready_timeout)
        await self.request("message.add", {"task_id": task_id, "session_id": session_id, "content": prompt})

    async def answer_permission(self, row: dict[str, Any], option_id: str = "allow") -> None:
        meta = row["metadata"]
        await self.request("permission.respond", {"session_id": row["session_id"], "task_id": row["task_id"],
                                                  "pending_id": meta["pending_id"], "request_id": meta["request_id"],
                                                  "option_id": option_id})


def is_row(frame: dict[str, Any], kind: str | None = None, session_id: str | None = None) -> bool:
    payload = frame.get("payload") or {}
    return (frame.get("action") in ("session.message.added", "session.message.updated")
            and (kind is None or payload.get("type") == kind)
            and (session_id is None or payload.get("session_id") == session_id))


class Proxy:
    """A loopback TCP proxy the test controls: ``drop()`` cuts every open connection (new ones still pass)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.port = 0
        self.server: asyncio.base_events.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []
        self.accepted = 0
        self.refusing = False  # new connections are cut at once (the network is away)

    async def start(self) -> "Proxy":
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.transport.abort()
            return
        self.accepted += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.writers += [writer, up_writer]

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def drop(self) -> None:
        for writer in self.writers:
            transport = writer.transport
            if not transport.is_closing():
                transport.abort()
        self.writers.clear()

    async def stop(self) -> None:
        self.drop()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
