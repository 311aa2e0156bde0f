"""The prompt in the user's own editor (ctrl+g, as in Claude Code, Codex and Gemini CLI): ``$VISUAL``, else
``$EDITOR``, else the first of ``nano`` and ``vi`` on the PATH, run on a private temporary file that holds the
prompt's text, the app stepped aside meanwhile (``App.suspend``). What the file holds when the editor ends well
comes back into the prompt, not sent; an editor that is missing, fails or cannot take the terminal (a browser tab)
is said in one line, and the prompt keeps its text.

The editor runs in the temporary file's own folder, never in the workspace (an editor may read configuration from
its working folder: ``.exrc``, ``.editorconfig``), and the file is removed once read.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from textual.app import SuspendNotSupported

FALLBACKS = ("nano", "vi")


def editor_command(environ: Mapping[str, str] | None = None) -> list[str] | None:
    """The user's editor as an argument list (``code --wait`` is two), or None when there is none."""
    environ = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = (environ.get(name) or "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:  # an unbalanced quote: the whole value, as a program's name
                words = [value]
            if words:
                return words
    found = next((shutil.which(name) for name in FALLBACKS if shutil.which(name)), None)
    return [found] if found else None


@dataclass(frozen=True)
class Edited:
    """What came back: the new text, or None and why not (one line)."""

    text: str | None
    problem: str = ""


def edit(text: str, command: list[str] | None, suspend: Any) -> Edited:
    """Run ``command`` on a private file holding ``text``, inside ``suspend()`` (the app's: the terminal handed
    over); ctrl+c reaches the editor, not kandev-tui."""
    if not command:
        return Edited(None, "no editor: set $VISUAL or $EDITOR (nano and vi are not installed either)")
    folder = Path(tempfile.mkdtemp(prefix="kandev-tui-prompt-"))  # mode 0700: the prompt is the user's alone
    path = folder / "prompt.md"
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o600)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with suspend():
            code = subprocess.run([*command, str(path)], cwd=folder, preexec_fn=_default_sigint).returncode
        if code != 0:
            return Edited(None, f"the editor ({command[0]}) ended with status {code}: the prompt is as it was")
        edited = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return Edited(None, f"the editor {command[0]!r} was not found: set $VISUAL or $EDITOR")
    except OSError as exc:
        return Edited(None, f"the editor could not run: {exc.strerror or exc}")
    except SuspendNotSupported:
        return Edited(None, "the editor needs the terminal, which this screen cannot hand over (a browser tab)")
    finally:
        signal.signal(signal.SIGINT, previous)
        shutil.rmtree(folder, ignore_errors=True)
    return Edited(edited[:-1] if edited.endswith("\n") else edited)


def _default_sigint() -> None:  # the editor gets ctrl+c as usual (this process ignores it meanwhile)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
