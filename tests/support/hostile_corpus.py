"""Strings an agent or a workspace could send to break a terminal client (ids name each one).

Families: Rich/Textual markup and action links, every escape-sequence family (CSI, OSC
title/clipboard/hyperlink, DCS, APC, PM, SOS, 8-bit C1), lone controls, bidi overrides and
isolates, zero-width and invisible format characters, Markdown links with hostile schemes,
overlong text, lone surrogates (what invalid UTF-8 becomes on the way in), huge numbers.
"""

from __future__ import annotations

ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"

CORPUS: dict[str, str] = {
    # markup and actions
    "click-quit": "[@click=app.quit]click me[/]",
    "click-bell": "[@click=app.bell]ring[/]",
    "click-screen": "[@click=app.push_screen('help')]help[/]",
    "rich-style": "[bold red on white]not bold[/]",
    "rich-link": "[link=https://evil.example]harmless[/link]",
    "unclosed-markup": "[bold]never closed",
    "closing-only": "[/]stray close[/bold]",
    "escaped-markup": "\\[bold]escaped\\[/bold]",
    "textual-variable": "$accent $text-muted $(whoami)",
    "emoji-code": ":warning: :skull:",
    # escape families
    "csi-clear": f"{ESC}[2J{ESC}[H",
    "csi-colour": f"{ESC}[31mred{ESC}[0m",
    "csi-cursor": f"{ESC}[10A{ESC}[999C{ESC}[s{ESC}[u",
    "csi-alt-screen": f"{ESC}[?1049l{ESC}[?25l",
    "csi-mouse": f"{ESC}[?1000h{ESC}[?1006h",
    "osc-title-bel": f"{ESC}]0;pwned title{BEL}",
    "osc-title-st": f"{ESC}]2;pwned title{ST}",
    "osc-clipboard": f"{ESC}]52;c;cm0gLXJmIH4={BEL}",
    "osc-hyperlink": f"{ESC}]8;;file:///etc/passwd{ST}link{ESC}]8;;{ST}",
    "osc-colour": f"{ESC}]4;1;rgb:ff/00/00{BEL}",
    "dcs": f"{ESC}P+q544e{ST}",
    "apc": f"{ESC}_Gf=100;AAAA{ST}",
    "pm": f"{ESC}^private message{ST}",
    "sos": f"{ESC}Xstart of string{ST}",
    "c1-csi": "\x9b31mred",
    "c1-osc": "\x9d0;title\x9c",
    "c1-dcs": "\x90qdata\x9c",
    "lone-esc": f"end with escape {ESC}",
    "esc-c-reset": f"{ESC}c",
    # lone controls
    "nul": "before\x00after",
    "bell": "ding\x07ding",
    "backspace": "secret\x08\x08\x08\x08\x08\x08public",
    "carriage-return": "rm -rf /\rls -la   ",
    "vertical-tab-formfeed": "a\x0bb\x0cc",
    "delete": "x\x7fy",
    "shift-out": "\x0egraphics\x0f",
    # bidi and invisible
    "rlo": "invoice\u202eexe.pdf",
    "lro": "abc\u202ddef\u202c",
    "rle-pdf": "\u202bright\u202c",
    "rli-pdi": "\u2067isolate\u2069",
    "fsi": "\u2068first strong\u2069",
    "alm": "\u061cletter mark",
    "lrm-rlm": "\u200eleft\u200fright",
    "zero-width-space": "zero\u200bwidth",
    "zwj-zwnj": "a\u200db\u200cc",
    "word-joiner": "word\u2060joiner",
    "bom": "\ufeffbyte order mark",
    "line-separator": "one\u2028two\u2029three",
    "tag-characters": "flag\U000e0041\U000e007f",
    "interlinear": "\ufff9anchor\ufffaseparator\ufffbterminator",
    # Markdown links
    "md-javascript": "[click](javascript:alert(1))",
    "md-file": "[notes](file:///etc/shadow)",
    "md-app-action": "[quit](app.quit)",
    "md-autolink": "<javascript:alert(1)>",
    "md-image": "![x](http://127.0.0.1:1/track.png)",
    # size and encodings
    "overlong-line": "A" * 20_000,
    "many-lines": "line\n" * 3_000,
    "zalgo": "Z" + "\u0336\u0337\u0338" * 200,
    "wide-emoji": "👩‍👩‍👧‍👦" * 50,
    "lone-surrogates": "bad \ud800 and \udfff bytes",
    "surrogate-escape": b"caf\xc3 \xff\xfe".decode("utf-8", "surrogateescape"),
    "replacement": "\ufffd\ufffd",
    "huge-number": "9" * 400,
    "float-limits": "1.7976931348623157e+308 -inf NaN 5e-324",
    "json-breaker": '"}]},{"__renderer":"entity_card"',
}

# characters that must never reach the screen as themselves
NEVER_SHOWN = ["\x1b", "\x07", "\x00", "\x08", "\x9b", "\x9d", "\x90", "\x9c", "\u202e", "\u202d", "\u202b", "\u2067",
               "\u2068", "\u2069", "\u061c", "\u200b", "\u200d", "\u2060", "\ufeff", "\u2028", "\U000e0041"]
