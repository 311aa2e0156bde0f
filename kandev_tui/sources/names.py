"""The agent a command starts, in a word or two (the sessions list, the status line, ``kandev-tui sessions``)."""

from __future__ import annotations

from pathlib import Path

LAUNCHERS = ("python", "python3", "node", "npx", "uvx", "bunx", "pnpm", "deno")
# an interpreter's option whose value is the program itself, written out: the name is the interpreter's, with it
INLINE = {"python": ("-c",), "node": ("-e", "--eval", "-p", "--print"), "deno": ("eval",)}


def agent_display_name(command: list[str]) -> str:
    """The agent a command starts, in a word or two.

    ``claude-code-acp`` for ``[".../claude-code-acp"]``; ``opencode acp`` for ``["opencode", "acp"]`` (a
    subcommand is part of the name); for launchers (``npx -y @scope/pkg``, ``python -m mod``) the package or
    module, options skipped; a program given inline (``python3 -c CODE``, ``node -e CODE``) as ``python3 -c``.
    """
    if not command:
        return "agent"
    first = Path(command[0]).name
    rest = command[1:]
    if first.startswith(LAUNCHERS) and rest:
        inline = next((flags for name, flags in INLINE.items() if first.startswith(name)), ())
        for word in rest:  # the interpreter's own options, up to its program (whose own options are not its)
            if word in inline:  # python3 -c "import …": the code is no name
                return f"{first} {word}"
            if not word.startswith("-"):
                break
        words = [word for word in rest if not word.startswith("-")]
        return _unversioned(Path(words[0]).name) if words else first
    if rest and not rest[0].startswith("-") and "/" not in rest[0] and len(rest[0]) <= 20:
        return f"{first} {rest[0]}"
    return first


def _unversioned(name: str) -> str:
    """A package's name without the version it is pinned to (``claude-agent-acp@0.49.0``)."""
    return name.rpartition("@")[0] if "@" in name[1:] else name
