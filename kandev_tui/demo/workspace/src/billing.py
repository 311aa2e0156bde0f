"""Invoice arithmetic for the demo service."""

from decimal import ROUND_HALF_UP, Decimal

RATES = {"EUR": Decimal("1.00"), "USD": Decimal("1.09")}


def total(lines: list[tuple[str, Decimal]], currency: str) -> Decimal:
    # HACK: support JPY (no minor unit)
    amount = sum(price for _, price in lines) * RATES[currency]
    return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
