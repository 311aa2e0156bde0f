"""A command's result as any agent reports it: its output, its exit code, the signal that ended it.

Agents put a command's result in many places and shapes, and a client that misreads one shows a failing command
as done (✔) or its output as JSON. What is read here, from a call's ``rawOutput``, its ``_meta`` and, when neither
has the output, its text ``content``:

- the output: ``stdout``, ``formatted_output``, ``aggregated_output``, ``output`` (a string), ``stderr``; a plain
  string; Auggie's ``<output>``/``<stderr>``/``<return-code>`` tags; a JSON object sent as text (which is read as
  the object, not shown as JSON); Codex's ``_meta.terminal_output``;
- the exit code, under any spelling of ``exit_code``/``exitCode``/``exit_status``/``exitStatus``/``returncode``/
  ``return_code`` (or OpenCode's ``metadata.exit``), in ``rawOutput``, a ``metadata``/``result`` object in it, the
  objects of a list in it (a ``rawOutput`` that is a list of content entries, each with its own ``type``), or
  ``_meta`` (an object in it too); as a number or a numeric string. Failing that, an output or a text content whose
  last lines end by saying it (``Exit Code: N``, ``[Exit code: N]``, ``exit status N``, ``Process exited with code
  N``, ``completed with exit code N.``: Gemini CLI, Qwen Code, and whatever sentence leads to it); a marker line
  that ends the output is not shown as output;
- the signal: ``signal``/``termSignal`` (a name or number), or a negative exit code (a process killed by signal N,
  as Python and others report it), named ``SIGKILL`` and so on.
"""

from __future__ import annotations

import re
import signal as signals
from typing import Any

from kandev_tui.base.jsonutil import json_object

_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_AUGGIE = re.compile(r"<(return-code|output|stderr)>(.*?)</\1>", re.S)
_OUTPUT_KEYS = ("stdout", "formatted_output", "aggregated_output", "output")
_EXIT_KEYS = {"exitcode", "exitstatus", "returncode", "exit"}
_SIGNAL_KEYS = {"signal", "termsignal", "signalname"}
_NESTED = {"metadata", "result", "meta", "terminal", "process"}
# a line that ends by saying the exit: "Exit Code: 3", "[Exit code: 3]", "exit status 3", "Process exited with code
# 3", "The command completed with exit code 3.", "failed (return code 3)": whatever sentence leads to it
_TRAILER = re.compile(r"^[^\n]{0,120}?\b(?:exit(?:ed)?(?:\s+with)?\s*(?:code|status)|return\s*code|returncode)"
                      r"\s*[:=]?\s*(-?\d{1,6})\s*[.)\]]?\s*\.?\s*$", re.I)


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
    ``metadata``, ``result``…; with ``anywhere``, as in ``_meta`` where each agent has a namespace, any), or in the
    objects of a list in it (an agent's content entries, each with its own ``type``)."""
    for name, value in mapping.items():
        if isinstance(name, str) and _key(name) in keys and value is not None and not isinstance(value, (dict, list)):
            return value
    if depth < 3:
        for name, value in mapping.items():
            inner = [value] if isinstance(value, dict) else [v for v in value[:64] if isinstance(v, dict)] \
                if isinstance(value, list) else []
            if inner and isinstance(name, str) and (anywhere or isinstance(value, list) or _key(name) in _NESTED):
                for each in inner:
                    found = _find(each, keys, depth + 1, anywhere)
                    if found is not None:
                        return found
    return None


def _from_list(raw: list[Any], out: dict[str, Any]) -> None:
    """A ``rawOutput`` that is a list of content entries (text ones, and objects with their own ``type`` that may
    carry the exit code, nested or not): its text is the output; the objects are read as a result object is."""
    texts = [entry if isinstance(entry, str) else entry.get("text") for entry in raw[:256]
             if isinstance(entry, str) or (isinstance(entry, dict) and isinstance(entry.get("text"), str))]
    for entry in raw[:256]:
        if isinstance(entry, dict):
            found: dict[str, Any] = {"stdout": None, "stderr": None, "exit_code": None, "signal": None}
            _from_object(entry, found)
            for key in ("stderr", "exit_code", "signal"):
                if out[key] is None and found[key] is not None:
                    out[key] = found[key]
            if found["stdout"] is not None and not texts:
                out["stdout"] = found["stdout"]
    if texts:
        out["stdout"] = "\n".join(str(text) for text in texts)


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
    elif isinstance(raw_output, list):
        _from_list(raw_output, out)
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
            found = next((m for line in reversed(lines[-6:]) if (m := _TRAILER.match(line))), None)
            if found:
                out["exit_code"] = int(found.group(1))
                break
    out["stdout"] = _without_marker(out["stdout"], out["exit_code"])
    if out["signal"] is None and isinstance(out["exit_code"], int) and out["exit_code"] < 0:
        out["signal"] = signal_name(out["exit_code"])
    if all(value is None for value in out.values()):
        return None
    return out


def _without_marker(stdout: Any, code: Any) -> Any:
    """The output without its last line when that line only says the exit code the call has (the agent's marker,
    "completed with exit code 3", not the command's output); None when nothing else is left."""
    if not isinstance(stdout, str) or code is None:
        return stdout
    kept = stdout.rstrip()
    last = kept.rsplit("\n", 1)[-1]
    found = _TRAILER.match(last)
    if not found or int(found.group(1)) != code:
        return stdout
    kept = kept[: len(kept) - len(last)].rstrip()
    return kept + "\n" if kept else None


def _plain(text: str) -> str:
    text = _ESCAPES.sub("", text.replace("\r\n", "\n"))
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def repeats_output(text: str, shell: dict[str, Any]) -> bool:
    """Whether a call's text content says again what its command output shows already: the same output (colours
    and line ends aside: an agent that ran the command in a client terminal and also sends its output), a summary
    that holds the output and says the exit code, only the exit code, or the result object the output was read from
    (JSON text)."""
    said_lines = [line for line in _plain(text).split("\n") if line.strip()]
    if said_lines and shell.get("exit_code") is not None and all(
            (m := _TRAILER.match(line)) and int(m.group(1)) == shell["exit_code"] for line in said_lines):
        return True  # only the exit, which the command's own line says ("[Exit code: 3]")
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
