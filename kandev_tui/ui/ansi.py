"""Command output with its colours: ANSI SGR sequences become styles, every other escape is dropped.

This is the one exception to the sanitiser's rule (:mod:`kandev_tui.base.sanitize`): a command's output is
shown with the colours it printed (``ls --color``, test runners, compilers), because that is how people
read it. Only Select Graphic Rendition (``ESC [ … m``) is kept, and only as a Rich style: OSC (titles,
clipboard, hyperlinks), DCS, cursor moves, screen clears, bells and any other control character are removed
or made visible, never passed to the terminal. Carriage returns keep what a terminal would finally show of a
line (progress bars). Headless: Rich only.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

from kandev_tui.base.sanitize import visible

# one escape sequence of any family: CSI (params, intermediates, final), OSC / DCS / SOS / PM / APC strings (ended
# by BEL or ST, or cut off), and two-character escapes
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\|$)"  # OSC, DCS, SOS, PM, APC
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)"  # 8-bit string controls
    r"|\x1b[ -/]*[0-~]?"  # two-character escapes (and a lone ESC)
)
_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_BASIC = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")


def _last_carriage_return(line: str) -> str:
    """What a terminal shows of a line overwritten with ``\\r`` (the last rewrite over the earlier ones)."""
    if "\r" not in line:
        return line
    shown = ""
    for part in line.split("\r"):
        shown = part + shown[len(part):]
    return shown


def _apply(style: Style, params: str) -> Style:
    """The style after one SGR sequence's parameters (``1;31``, ``38;5;208``, ``38;2;r;g;b``, ``0``…)."""
    codes = [int(c) if c.isdigit() else 0 for c in params.replace(":", ";").split(";")] if params else [0]
    index = 0
    while index < len(codes):
        code = codes[index]
        index += 1
        if code == 0:
            style = Style()
        elif code == 1:
            style += Style(bold=True)
        elif code == 2:
            style += Style(dim=True)
        elif code == 3:
            style += Style(italic=True)
        elif code == 4:
            style += Style(underline=True)
        elif code == 7:
            style += Style(reverse=True)
        elif code == 9:
            style += Style(strike=True)
        elif code in (22, 23, 24, 27, 29):
            style += {22: Style(bold=False, dim=False), 23: Style(italic=False), 24: Style(underline=False),
                      27: Style(reverse=False), 29: Style(strike=False)}[code]
        elif 30 <= code <= 37 or 90 <= code <= 97:
            style += Style(color=("bright_" if code >= 90 else "") + _BASIC[code % 10])
        elif 40 <= code <= 47 or 100 <= code <= 107:
            style += Style(bgcolor=("bright_" if code >= 100 else "") + _BASIC[code % 10])
        elif code in (39, 49):
            style += Style(color="default") if code == 39 else Style(bgcolor="default")
        elif code in (38, 48) and index < len(codes):
            mode = codes[index]
            if mode == 5 and index + 1 < len(codes):
                color = f"color({min(255, codes[index + 1])})"
                index += 2
            elif mode == 2 and index + 3 < len(codes):
                r, g, b = (min(255, c) for c in codes[index + 1:index + 4])
                color = f"rgb({r},{g},{b})"
                index += 4
            else:
                break
            style += Style(color=color) if code == 38 else Style(bgcolor=color)
    return style


def ansi_text(output: str) -> Text:
    """``output`` as a Rich Text: SGR colours kept as styles, every other escape and control made inert."""
    text = Text()
    style = Style()
    for number, raw_line in enumerate(output.split("\n")):
        if number:
            text.append("\n")
        line = _last_carriage_return(raw_line)
        at = 0
        for match in _ESCAPE.finditer(line):
            if match.start() > at:
                text.append(visible(line[at:match.start()]), style)  # a tab stays a tab
            sgr = _SGR.fullmatch(match.group(0))
            if sgr is not None:
                style = _apply(style, sgr.group(1))
            at = match.end()
        if at < len(line):
            text.append(visible(line[at:]), style)
    return text
