"""A command's result as any agent reports it: its output, its exit code, the signal that ended it.

Agents put a command's result in many places and shapes, and a client that misreads one shows a failing command
as done (✔) or its output as JSON. What is read here, from a call's ``rawOutput``, its ``_meta`` and, when neither
has the output, its text ``content``:

- the output: ``stdout``, ``formatted_output``, ``aggregated_output``, ``output`` (a string), ``stderr``; a plain
  string; Auggie's ``<output>``/``<stderr>``/``<return-code>`` tags; a JSON object sent as text (which is read as
  the object, not shown as JSON); Codex's ``_meta.terminal_output``;
- the exit code, under any spelling of ``exit_code``/``exitCode``/``exit_status``/``exitStatus``/``returncode``/
  ``return_code`` (or OpenCode's ``metadata.exit``), in ``rawOutput``, a ``metadata``/``result`` object in it, or
  ``_meta`` (an object in it too); as a number or a numeric string. Failing that, an output or a text content whose
  last lines say ``Exit Code: N`` (``exit status N``, ``Process exited with code N``: Gemini CLI, Qwen Code);
- the signal: ``signal``/``termSignal`` (a name or number), or a negative exit code (a process killed by signal N,
  as Python and others report it), named ``SIGKILL`` and so on.
"""

from __future__ import annotations

import re
import signal as signals
from typing import Any

from kandev_tui.jsonutil import json_object

_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_AUGGIE = re.compile(r"<(return-code|output|stderr)>(.*?)</\1>", re.S)
_OUTPUT_KEYS = ("stdout", "formatted_output", "aggregated_output", "output")
_EXIT_KEYS = {"exitcode", "exitstatus", "returncode", "exit"}
_SIGNAL_KEYS = {"signal", "termsignal", "signalname"}
_NESTED = {"metadata", "result", "meta", "terminal", "process"}
_TRAILER = re.compile(r"^\s*(?:exit(?:ed)?(?:\s+with)?\s+(?:code|status)|process\s+exited\s+with\s+(?:code|status)"
                      r"|return\s+code)\s*[:=]?\s*(-?\d{1,6})\s*\.?\s*$", re.I)


def _key(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def exit_number(value: Any) -> int | None:
    """An exit code as an agent may send it: an int, a whole float, a numeric string (``"1"``, ``"-9"``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,6}\s*", value):
        return int(value)
    return None


def signal_name(value: Any) -> str | None:
    """``SIGKILL`` for 9, ``"KILL"``, ``"SIGKILL"``; other text as sent; None for nothing."""
    number = exit_number(value)
    if number is not None:
        try:
            return signals.Signals(abs(number)).name
        except ValueError:
            return str(number)
    if isinstance(value, str) and value.strip():
        text = value.strip()[:40]
        return f"SIG{text.upper()}" if text.isalpha() and not text.upper().startswith("SIG") else text
    return None


def _find(mapping: dict[str, Any], keys: set[str], depth: int = 0, anywhere: bool = False) -> Any:
    """The first value under one of ``keys`` (spelled any way) in ``mapping`` or an object nested in it (one named
    ``metadata``, ``result``…; with ``anywhere``, as in ``_meta`` where each agent has a namespace, any)."""
    for name, value in mapping.items():
        if isinstance(name, str) and _key(name) in keys and value is not None and not isinstance(value, dict):
            return value
    if depth < 2:
        for name, value in mapping.items():
            if isinstance(value, dict) and isinstance(name, str) and (anywhere or _key(name) in _NESTED):
                found = _find(value, keys, depth + 1, anywhere)
                if found is not None:
                    return found
    return None


def _from_object(raw: dict[str, Any], out: dict[str, Any]) -> None:
    for key in _OUTPUT_KEYS:
        if isinstance(raw.get(key), str):
            out["stdout"] = raw[key]
            break
    if isinstance(raw.get("stderr"), str):
        out["stderr"] = raw["stderr"]
    code = exit_number(_find(raw, _EXIT_KEYS))
    if code is not None:
        out["exit_code"] = code
    ended_by = _find(raw, _SIGNAL_KEYS)
    if ended_by not in (None, "", 0):
        out["signal"] = signal_name(ended_by)


def _from_text(text: str, out: dict[str, Any]) -> None:
    parsed = json_object(text)
    if parsed is not None and any(_key(k) in _EXIT_KEYS or k in _OUTPUT_KEYS or k == "stderr" for k in parsed):
        _from_object(parsed, out)
        return
    out["stdout"] = text


def _text_content(content: Any) -> str | None:
    """The text of a call's content when it is only text (no terminal: then the terminal has the output)."""
    if not isinstance(content, list):
        return None
    texts = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "terminal":
            return None
        inner = block.get("content")
        if block.get("type") == "content" and isinstance(inner, dict) and inner.get("type") == "text" \
                and isinstance(inner.get("text"), str):
            texts.append(inner["text"])
    text = "\n".join(texts)
    return text if text.strip() and not text.lstrip().startswith("```") else None


def shell_output(raw_output: Any, meta: Any = None, content: Any = None) -> dict[str, Any] | None:
    """``{stdout, stderr, exit_code, signal}`` of a command from one frame's ``rawOutput``, ``_meta`` and
    ``content`` (see the module docstring); None when the frame says nothing of it."""
    out: dict[str, Any] = {"stdout": None, "stderr": None, "exit_code": None, "signal": None}
    if isinstance(raw_output, str):
        _from_text(raw_output, out)
    elif isinstance(raw_output, dict):
        _from_object(raw_output, out)
    text = out["stdout"]
    if isinstance(text, str) and "<return-code>" in text:
        tags = dict(_AUGGIE.findall(text))
        out["stdout"] = tags.get("output", "")
        if "stderr" in tags:
            out["stderr"] = tags["stderr"]
        code = exit_number(tags.get("return-code"))
        if code is not None:
            out["exit_code"] = code
    if isinstance(meta, dict):
        terminal = meta.get("terminal_output")
        if isinstance(terminal, str) and out["stdout"] is None:
            out["stdout"] = terminal
        elif isinstance(terminal, dict) and out["stdout"] is None and isinstance(terminal.get("output"), str):
            out["stdout"] = terminal["output"]
        if out["exit_code"] is None:
            out["exit_code"] = exit_number(_find(meta, _EXIT_KEYS, anywhere=True))
        if out["signal"] is None:
            ended_by = _find(meta, _SIGNAL_KEYS, anywhere=True)
            out["signal"] = signal_name(ended_by) if ended_by not in (None, "", 0) else None
    if out["stdout"] is None and out["stderr"] is None:
        text = _text_content(content)
        if text is not None:
            _from_text(text, out)
    if out["exit_code"] is None:
        for stream in (out["stderr"], out["stdout"], _text_content(content)):  # the content may say it (Qwen Code)
            lines = [line for line in stream.splitlines() if line.strip()] if isinstance(stream, str) else []
            found = next((m for line in lines[-6:] if (m := _TRAILER.match(line))), None)
            if found:
                out["exit_code"] = int(found.group(1))
                break
    if out["signal"] is None and isinstance(out["exit_code"], int) and out["exit_code"] < 0:
        out["signal"] = signal_name(out["exit_code"])
    if all(value is None for value in out.values()):
        return None
    return out


def _plain(text: str) -> str:
    text = _ESCAPES.sub("", text.replace("\r\n", "\n"))
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def repeats_output(text: str, shell: dict[str, Any]) -> bool:
    """Whether a call's text content says again what its command output shows already: the same output (colours
    and line ends aside: an agent that ran the command in a client terminal and also sends its output), a summary
    that holds the output and says the exit code, or the result object the output was read from (JSON text)."""
    streams = [s for s in (shell.get("stdout"), shell.get("stderr")) if isinstance(s, str) and s.strip()]
    if not streams or not text.strip():
        return False
    said = _plain(text)
    if said in (_plain("\n".join(streams)), _plain(streams[0])):
        return True
    if _plain(streams[0]) in said and any(_TRAILER.match(line) for line in said.split("\n")):
        return True  # a summary of the command (its line, its output, its exit: Qwen Code's), all shown already
    out: dict[str, Any] = {"stdout": None, "stderr": None, "exit_code": None, "signal": None}
    parsed = json_object(text)
    if parsed is None:
        return False
    _from_object(parsed, out)
    return out["stdout"] is not None and _plain(out["stdout"]) == _plain(streams[0])
