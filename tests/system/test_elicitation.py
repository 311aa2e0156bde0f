"""ACP elicitation: the restricted schema read into fields (or refused with its reason), each field's checks, the
URL's host as it must be shown, and the transcript's items through a request's life (headless, no agent)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from kandev_tui.transcript import elicitation as E

# (a URL, the host a browser goes to by the WHATWG URL standard, or None where a browser would read it otherwise
# than a URL parser may, or refuse it): kandev-tui shows that host, or refuses the URL
WHATWG = [
    ("https://evil.example\\@bank.example/", None),  # a browser: evil.example (the backslash is a slash)
    ("https://evil.example\\.bank.example/", None),
    ("https://faß.de/", "xn--fa-hia.de"),  # UTS 46 nontransitional (IDNA 2003 said fass.de: another site)
    ("https://ｅｘａｍｐｌｅ.com/", "example.com"),  # full-width letters map to ASCII
    ("https://①.example/", "1.example"),
    ("https://EXAMPLE.com./a", "example.com."),
    ("https://münchen.de:8443/", "xn--mnchen-3ya.de:8443"),
    ("https://[::1]:9/", "[::1]:9"),
    ("  https://example.com/\n", "example.com"),  # the ends are trimmed, as browsers do
    ("https://example.com\t.evil/", None),  # a browser drops the tab: example.com.evil
    ("https://exa mple.com/", None),
    ("https://exa\u0085mple.com/", None),  # a C1 control
    ("https://a\u200db.example/", None),  # a joiner where UTS 46's CheckJoiners refuses it
    ("https://user:pw@example.com/", "example.com"),
    ("https://0x7f.1/", "127.0.0.1"),  # WHATWG's IPv4 parser: hexadecimal, octal, the last part filling the rest
    ("https://2130706433/", "127.0.0.1"),
    ("https://0177.0.0.1/", "127.0.0.1"),
    ("https://127.1/", "127.0.0.1"),
    ("https://1.2.3.256/", None),  # a number no browser takes
    ("https://EVIL\u3002example/", "evil.example"),  # an ideographic full stop is a dot
    ("https://evil%2Eexample/", "evil.example"),  # the host percent-decoded, as browsers do
    ("https://evil.example#@bank.example", "evil.example"),
    ("https://bank.example:443@evil.example/", "evil.example"),
    ("https:///evil.example/", None),  # a browser: evil.example; refused here (no host as Python reads it)
    ("https://1.2.3.4.5/", None),
]


@pytest.mark.parametrize("url, browser_host", WHATWG)
def test_the_host_shown_is_the_one_a_browser_goes_to_and_the_url_opened_is_the_one_shown(url, browser_host):
    host, problem = E.url_target(url)
    shown, _note = E.url_shown(url)
    if browser_host is None:
        assert host == "" and problem and shown == ""  # refused: nothing opens or is copied
    else:
        assert host == browser_host and problem == ""
        assert urlsplit(shown).netloc == browser_host  # opened and copied: the host shown, no user-info before it
