"""Axis tick formatting (spec §7), exactly as the contract states it.

x ticks: when *every* label is an ISO-8601 date (``YYYY-MM-DD``) or date-time
with ``Z`` or ``±HH:MM`` (seconds and a fraction optional), ticks are UTC dates
``Aug 12``, or ``Aug 12, 14:30`` when any two labels share a UTC day. Otherwise
every tick is a category, clipped to 16 code points (15 + ``…``).

y ticks: ``|v| ≥ 1000`` compact with at most one decimal (``1.1K``, ``-12.5K``,
``1.3M``, ``1.5B``, ``1T``); ``0 < |v| < 0.01`` two significant digits;
otherwise at most two decimals with grouping. Beyond what those forms can show
(``|v| ≥ 999,999.95T`` or ``|v| < 1e-9``) two significant digits in e-notation
(``1.7e308``, ``5e-324``) keep ticks short. Rounding is half away from zero
on the shortest decimal form of the number, as ``Intl.NumberFormat`` does.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

MAX_CATEGORY_TICK = 16
_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$",
    re.ASCII,
)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_SUFFIXES = ((Decimal(10) ** 12, "T"), (Decimal(10) ** 9, "B"), (Decimal(10) ** 6, "M"), (Decimal(10) ** 3, "K"))


def parse_iso_label(label: str) -> datetime | None:
    """The UTC instant of an ISO-8601 date or date-time label, else None."""
    m = _ISO.match(label)
    if not m:
        return None
    year, month, day, hour, minute, second, fraction, zone = m.groups()
    try:
        moment = datetime(
            int(year), int(month), int(day),
            int(hour or 0), int(minute or 0), int(second or 0),
            int((fraction or "0")[:6].ljust(6, "0")),
            tzinfo=timezone.utc,
        )
        if zone and zone != "Z":
            sign = 1 if zone[0] == "+" else -1
            offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
            if offset >= timedelta(hours=24):
                return None
            moment -= sign * offset
    except (ValueError, OverflowError):
        return None
    return moment


def clip_category(label: str) -> str:
    """A category tick: at most 16 code points (the first 15 and ``…``)."""
    if len(label) <= MAX_CATEGORY_TICK:
        return label
    return label[: MAX_CATEGORY_TICK - 1] + "…"


def format_x_ticks(labels: list[str]) -> list[str]:
    """Tick texts for the x labels of one chart (see the module docstring)."""
    moments = [parse_iso_label(label) for label in labels]
    if not labels or any(m is None for m in moments):
        return [clip_category(label) for label in labels]
    days = {m.date() for m in moments}  # type: ignore[union-attr]
    with_time = len(days) < len(moments)
    out = []
    for m in moments:
        assert m is not None
        text = f"{_MONTHS[m.month - 1]} {m.day}"
        if with_time:
            text += f", {m.hour:02d}:{m.minute:02d}"
        out.append(text)
    return out


def _round(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _plain(value: Decimal, group: bool = True) -> str:
    text = f"{value:,f}" if group else f"{value:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in {"-0", ""} else text


@lru_cache(maxsize=4096)
def format_y_tick(value: float) -> str:
    """The y-axis text for ``value`` (see the module docstring)."""
    number = float(value)
    if not math.isfinite(number):
        return str(number)
    if number == 0:
        return "0"
    exact = Decimal(repr(number))
    magnitude = abs(exact)
    sign = "-" if number < 0 else ""
    if magnitude >= Decimal("999999.95e12"):
        # beyond what the compact form can show usefully (it would read 1,000,000T)
        mantissa, exponent = f"{number:.1e}".split("e")
        return f"{mantissa.replace('.0', '')}e{int(exponent)}"
    if magnitude >= 1000:
        for index, (scale, suffix) in enumerate(_SUFFIXES):
            if magnitude >= scale or suffix == "K":
                scaled = _round(magnitude / scale, 1)
                # 999.95K rounds to 1000K: Intl moves up to the next unit (1M)
                if scaled >= 1000 and index > 0:
                    bigger_scale, bigger = _SUFFIXES[index - 1]
                    scaled, suffix = _round(magnitude / bigger_scale, 1), bigger
                return f"{sign}{_plain(scaled)}{suffix}"
    if magnitude < Decimal("1e-9"):
        # two significant digits still, but in e-notation: 0.000000000000…5 is unreadable
        mantissa, exponent = f"{number:.1e}".split("e")
        return f"{mantissa.replace('.0', '')}e{int(exponent)}"
    if magnitude < Decimal("0.01"):
        first = magnitude.adjusted()  # position of the first significant digit
        rounded = _round(magnitude, -first + 1)
        return sign + _plain(rounded, group=False)
    return sign + _plain(_round(magnitude, 2))
