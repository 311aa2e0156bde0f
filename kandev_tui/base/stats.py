"""Counters of the work done, written by ``--stats FILE`` on exit.

``presentations_parsed``: stored calls parsed and validated (once per item version);
``charts_plotted``: full chart geometries computed (cache misses of the final frame);
``plot_frames``: plotext builds, animation frames included;
``predraw_turns``: turns of the event loop that drew agent messages ahead of their frame.
"""

from __future__ import annotations

import json
from pathlib import Path

COUNTERS: dict[str, int] = {"presentations_parsed": 0, "charts_plotted": 0, "plot_frames": 0, "predraw_turns": 0}


def bump(name: str, by: int = 1) -> None:
    COUNTERS[name] = COUNTERS.get(name, 0) + by


def reset() -> None:
    for key in COUNTERS:
        COUNTERS[key] = 0


def write(path: str | Path) -> None:
    Path(path).write_text(json.dumps(COUNTERS, indent=2) + "\n", encoding="utf-8")
