"""Run a command beside a scripted model server, inside a network namespace that has only loopback.

    unshare -n python tests/support/netns_run.py --server anthropic|responses|gemini|chat --script S.json --requests R.json -- CMD...

Started by ``unshare -n`` (``unshare -rn`` without root), it brings the namespace's loopback up, checks from
``/proc/self/net/dev`` that loopback is the only interface (``/sys/class/net`` still lists the host's), starts
the server on 127.0.0.1, runs CMD with ``{url}`` and ``{port}`` in its arguments and in ``--env NAME=VALUE``
values replaced, and when CMD ends writes every request the server received to R.json. Its exit status is
CMD's; 97 when the namespace is not loopback-only (nothing is run then).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout

from tests.support.model_servers import AnthropicServer, ChatCompletionsServer, GeminiServer, ResponsesServer  # noqa: E402

SERVERS = {"anthropic": AnthropicServer, "responses": ResponsesServer, "gemini": GeminiServer,
           "chat": ChatCompletionsServer}

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
NOT_ISOLATED = 97


def loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP))


def interfaces() -> list[str]:
    """The interfaces this namespace has, from /proc/self/net/dev (two header lines, then one per interface)."""
    lines = Path("/proc/self/net/dev").read_text().splitlines()[2:]
    return [line.split(":", 1)[0].strip() for line in lines if ":" in line]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", choices=sorted(SERVERS), required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--requests", required=True)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: any free one)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    seen = interfaces()
    if seen != ["lo"]:
        print(f"netns_run: not in a loopback-only network namespace (interfaces: {', '.join(seen)})", file=sys.stderr)
        return NOT_ISOLATED
    loopback_up()
    script = json.loads(Path(args.script).read_text())
    server = SERVERS[args.server](script, args.port).start()
    fill = {"url": server.url, "port": str(server.port)}
    env = dict(os.environ)
    for entry in args.env:
        name, _, value = entry.partition("=")
        env[name] = value.format(**fill)
    try:
        done = subprocess.run([part.format(**fill) for part in command], env=env)
    finally:
        server.stop()
        Path(args.requests).write_text(json.dumps(server.requests, indent=1))
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
