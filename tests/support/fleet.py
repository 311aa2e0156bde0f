"""The fleet pack's demo results (the first of each renderer) and the calls that promote a fleet card."""

from __future__ import annotations



from kandev_tui.demo import fleet as demo
from kandev_tui.packs.fleet import PACK

from .app_helpers import fleet_item

RESULTS: dict = {}  # the first demo result of each renderer of the pack
for _step in demo.STEPS:
    if isinstance(_step[3], dict) and _step[3].get("__renderer") in PACK:
        RESULTS.setdefault(_step[3]["__renderer"], _step)


def promotion_items(first_is_promoted: bool):
    digest = demo.STEPS[14]
    assert digest[1] == "fleet_digest"
    plain_call = fleet_item("p", "ping_service", {"ok": True})
    pending = fleet_item("d", "fleet_digest", status="pending")
    done = fleet_item("d", "fleet_digest", digest[3])
    order = [pending, fleet_item("p", "ping_service", status="pending")] if first_is_promoted else \
        [fleet_item("p", "ping_service", status="pending"), pending]
    return order, [plain_call, done]
