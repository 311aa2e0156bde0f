"""Each fleet card's body as a Rich renderable (no Textual): drawn to the width it is given.

Every string from a result goes through :func:`kandev_tui.base.sanitize.visible` and into
``rich.text.Text`` as plain text, so markup and escapes in agent data stay inert.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text

from kandev_tui.base.sanitize import visible

from . import models as M

HEALTH_STYLE = {"healthy": "green", "degraded": "yellow", "down": "red", "unknown": "bright_black"}
HEALTH_MARK = {"healthy": "●", "degraded": "◐", "down": "○", "unknown": "◌"}
HEALTH_RANK = {"down": 0, "degraded": 1, "unknown": 2, "healthy": 3}
MAX_SHOWN = 50  # rows drawn in a list card; the rest are counted
SPARKS = "▁▂▃▄▅▆▇█"


def plain(value: Any, limit: int = 500) -> str:
    """Agent text, inert, on one line, at most ``limit`` characters."""
    text = visible(value if isinstance(value, str) else str(value), keep_newlines=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cell(value: Any, limit: int = 500) -> Text:
    """Agent text for a table cell: a ``Text``, never a string (Rich parses strings in cells as markup)."""
    return Text(plain(value, limit))


def dot(health: str) -> Text:
    return Text(HEALTH_MARK[health], style=HEALTH_STYLE[health])


def health_word(health: str) -> Text:
    return Text.assemble(dot(health), " ", (health, HEALTH_STYLE[health]))


def more(count: int, noun: str) -> Text:
    return Text(f"+{count} more {noun}", style="dim italic")


def now() -> datetime:
    return datetime.now(timezone.utc)


def _scalar(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return plain(value, 80)


KEY_ATTRIBUTES = ("ip", "address", "version", "host", "region")


def entity(result: M.EntityResult) -> Group:
    head = Text.assemble(dot(result.health), " ", (plain(result.slug, 120), "bold"), "  ",
                         (f" {plain(result.type, 40)} ", "reverse"), "  ", (result.health, HEALTH_STYLE[result.health]))
    if result.state:
        head.append(f" · {plain(result.state, 60)}", style="dim")
    lines: list[Any] = [head]
    ordered = sorted(result.attributes.items(), key=lambda kv: (KEY_ATTRIBUTES.index(kv[0].lower())
                                                                if kv[0].lower() in KEY_ATTRIBUTES else 99, kv[0]))
    if ordered:
        attrs = Text()
        for index, (key, value) in enumerate(ordered[:8]):
            if index:
                attrs.append("   ")
            attrs.append(plain(key, 30) + " ", style="dim")
            attrs.append(_scalar(value))
        if len(ordered) > 8:
            attrs.append(f"   +{len(ordered) - 8} more", style="dim italic")
        lines.append(attrs)
    if result.last_checked is not None:
        lines.append(Text(f"last checked {M.relative_time(result.last_checked, result.as_of or now())}", style="dim"))
    return Group(*lines)


class StackedBar:
    """One horizontal bar split by health, as wide as the card; a non-zero count gets at least one cell."""

    def __init__(self, counts: list[tuple[str, int]]) -> None:
        self.counts = [(h, c) for h, c in counts if c > 0]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(len(self.counts), options.max_width)
        total = sum(c for _, c in self.counts) or 1
        cells = [max(1, round(width * c / total)) for _, c in self.counts]
        while sum(cells) > width:  # rounding up small segments may overshoot: trim the widest
            cells[cells.index(max(cells))] -= 1
        if cells:
            cells[cells.index(max(cells))] += width - sum(cells)
        bar = Text()
        for (health, _), size in zip(self.counts, cells):
            bar.append("█" * size, style=HEALTH_STYLE[health])
        yield bar


def _legend(counts: list[tuple[str, int]]) -> Text:
    legend = Text()
    for index, (health, count) in enumerate(counts):
        if index:
            legend.append("   ")
        legend.append_text(dot(health))
        legend.append(f" {count:,} {health}")
    return legend


def health_summary(result: M.HealthSummaryResult) -> Group:
    counts = [("healthy", result.healthy), ("degraded", result.degraded), ("down", result.down)]
    if result.unknown:
        counts.append(("unknown", result.unknown))
    if result.is_empty:
        return Group(Text("No entities reported.", style="dim italic"))
    return Group(StackedBar(counts), _legend(counts), Text(f"{result.total:,} entities", style="dim"))


class FitTable:
    """A table that drops its least important columns when they cannot all fit the width.

    ``columns`` are ``(header, min_width, ratio)`` in display order, and ``keep`` lists the
    column indexes from most to least important.
    """

    def __init__(self, columns: list[tuple[str, int, int]], rows: list[list[Any]], keep: list[int]) -> None:
        self.columns, self.rows, self.keep = columns, rows, keep

    def shown(self, width: int) -> list[int]:
        chosen = list(self.keep)
        while len(chosen) > 1 and sum(self.columns[i][1] for i in chosen) + (len(chosen) - 1) > width:
            chosen.pop()
        return sorted(chosen)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        shown = self.shown(options.max_width)
        table = Table(box=box.SIMPLE_HEAD, expand=True, pad_edge=False, show_edge=False, padding=(0, 1))
        for index in shown:
            header, min_width, ratio = self.columns[index]
            table.add_column(Text(header), no_wrap=True, overflow="ellipsis", min_width=min_width, ratio=ratio or None)
        for row in self.rows:
            table.add_row(*[row[i] for i in shown])
        yield table


def lxc_list(result: M.LxcListResult) -> Any:
    if result.is_empty:
        return Text("No LXCs.", style="dim italic")
    rows = [[cell(lxc.name, 120), cell(lxc.host, 80), cell(lxc.ip, 60), health_word(lxc.health), cell(lxc.status, 40)]
            for lxc in result.lxcs[:MAX_SHOWN]]
    table = FitTable([("name", 10, 3), ("host", 6, 2), ("IP", 11, 2), ("health", 10, 0), ("status", 7, 2)], rows,
                     keep=[0, 3, 4, 2, 1])
    return Group(table, more(len(result.lxcs) - MAX_SHOWN, "LXCs")) if len(result.lxcs) > MAX_SHOWN else table


ENTITY_COLUMNS = ("slug", "type", "health", "state")


def sort_entities(rows: list[M.EntityRow], column: str, descending: bool) -> list[M.EntityRow]:
    """Rows ordered by one column; health sorts by severity (down first), ties by slug."""
    def key(row: M.EntityRow) -> tuple[Any, str]:
        if column == "health":
            return (HEALTH_RANK[row.health], row.slug.casefold())
        return (str(getattr(row, column)).casefold(), row.slug.casefold())

    return sorted(rows, key=key, reverse=descending)


def sort_label(column: str, descending: bool) -> str:
    return f"{column} {'▼' if descending else '▲'}"


def entity_table(result: M.EntityListResult, column: str = "slug", descending: bool = False) -> Any:
    if result.is_empty:
        return Text("No entities.", style="dim italic")
    headers = [sort_label(name, descending) if name == column else name for name in ENTITY_COLUMNS]
    rows = [[cell(row.slug, 120), cell(row.type, 40), health_word(row.health), cell(row.state, 40)]
            for row in sort_entities(list(result.entities), column, descending)[:MAX_SHOWN]]
    table = FitTable([(headers[0], 10, 3), (headers[1], 8, 2), (headers[2], 10, 0), (headers[3], 8, 2)], rows,
                     keep=[0, 2, 1, 3])
    count = len(result.entities)
    return Group(table, more(count - MAX_SHOWN, "entities")) if count > MAX_SHOWN else table


def knowledge(result: M.KnowledgeResult) -> Any:
    if result.is_empty:
        return Text("No knowledge found.", style="dim italic")
    parts: list[Any] = []
    for index, entry in enumerate(result.results[:10]):
        block = Text()
        block.append(plain(entry.title, 200), style="bold")
        if entry.excerpt:
            excerpt = visible(entry.excerpt, keep_newlines=False)
            block.append("\n" + (excerpt if len(excerpt) <= 240 else excerpt[:239] + "…"))
        if entry.tags:
            block.append("\n" + "  ".join("#" + plain(tag, 40) for tag in entry.tags[:8]), style="cyan")
        if index:
            parts.append(Text(""))
        parts.append(block)
    if len(result.results) > 10:
        parts.append(more(len(result.results) - 10, "results"))
    return Group(*parts)


def _number(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.3g}" if abs(value) >= 1000 or abs(value) < 0.01 else f"{value:.2f}".rstrip("0").rstrip(".")


class Sparkline:
    """Bucket values as ▁…█ cells: up to four cells per bucket, or the maximum of several buckets per cell."""

    def __init__(self, values: list[float | None]) -> None:
        self.values = values

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        values = self.values
        if len(values) > width:  # several buckets per cell: keep peaks
            per = len(values) / width
            binned: list[float | None] = []
            for cell in range(width):
                chunk = [v for v in values[int(cell * per):int((cell + 1) * per) or 1] if v is not None]
                binned.append(max(chunk) if chunk else None)
            values = binned
        elif len(values) * 2 <= width:  # few buckets: widen each so the line fills the card
            per = min(4, width // len(values))
            values = [v for v in values for _ in range(per)]
        present = [v for v in values if v is not None]
        lo, hi = (min(present), max(present)) if present else (0.0, 0.0)
        span = hi - lo
        text = Text(style="cyan")
        for value in values:
            if value is None:
                text.append(" ")
            else:
                text.append(SPARKS[int((value - lo) / span * (len(SPARKS) - 1)) if span else 3])
        yield text


def _stamp(at: datetime, all_same_day: bool) -> str:
    return at.strftime("%H:%M") if all_same_day else at.strftime("%m-%d %H:%M")


def metric_chart(result: M.MetricSeriesResult) -> Any:
    unit = f" {plain(result.unit, 40)}" if result.unit else ""
    if result.is_empty:
        return Text(f"{plain(result.metric, 120)}: no data in this window.", style="dim italic")
    values = result.values
    head = Text.assemble((plain(result.metric, 120), "bold"), (f" ({unit.strip()})" if unit else "", "dim"), "  ",
                         (f"{len(result.buckets)} buckets · min {_number(min(values))} · max {_number(max(values))} · "
                          f"last {_number(values[-1])}", "dim"))
    same_day = len({b.t.date() for b in result.buckets}) == 1
    if len(result.buckets) <= 12:  # few buckets: a small bar chart with a row per bucket
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(no_wrap=True, style="dim")
        table.add_column(ratio=1)
        table.add_column(no_wrap=True, justify="right")
        top = max(abs(v) for v in values) or 1
        for bucket in result.buckets:
            if bucket.value is None:
                table.add_row(Text(_stamp(bucket.t, same_day)), Text("no data", style="dim italic"), Text(""))
            else:
                table.add_row(Text(_stamp(bucket.t, same_day)), _Bar(abs(bucket.value) / top),
                              Text(_number(bucket.value) + unit))
        return Group(head, table)
    span = Text(f"{_stamp(result.buckets[0].t, same_day)} → {_stamp(result.buckets[-1].t, same_day)}", style="dim")
    return Group(head, Sparkline([b.value for b in result.buckets]), span)


class _Bar:
    def __init__(self, fraction: float) -> None:
        self.fraction = fraction

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        cells = self.fraction * options.max_width
        whole = int(cells)
        yield Text("█" * whole + ("▌" if cells - whole >= 0.5 else "") or "▏", style="cyan")


def hops_label(hops: int) -> str:
    return "direct" if hops == 0 else f"{hops} hop{'s' if hops != 1 else ''}"


def blast_radius(result: M.BlastRadiusResult) -> Any:
    head = Text.assemble("If ", (plain(result.root, 120), "bold"), " fails: ")
    if result.is_empty:
        head.append("nothing else is affected.", style="green")
        return head
    head.append(f"{len(result.impacted)} entit{'y' if len(result.impacted) == 1 else 'ies'} affected")
    parts: list[Any] = [head]
    groups: dict[int, list[M.Impacted]] = {}
    for entry in result.impacted:
        groups.setdefault(entry.hops, []).append(entry)
    for hops in sorted(groups):
        members = groups[hops]
        line = Text.assemble((f"{hops_label(hops)} ({len(members)})", "bold"), "  ")
        for index, entry in enumerate(members[:MAX_SHOWN]):
            if index:
                line.append("  ")
            line.append_text(dot(entry.health))
            line.append(" " + plain(entry.slug, 80))
        if len(members) > MAX_SHOWN:
            line.append(f"  +{len(members) - MAX_SHOWN} more", style="dim italic")
        parts.append(line)
    return Group(*parts)


def change_log(result: M.ChangeLogResult) -> Any:
    if result.is_empty:
        return Text("No changes in this window.", style="dim italic")
    entries = sorted(result.entries, key=lambda e: e.at)
    same_day = len({e.at.date() for e in entries}) == 1
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(no_wrap=True, style="dim")
    table.add_column(no_wrap=True, style="cyan")
    table.add_column(ratio=1)
    shown = entries[-MAX_SHOWN:]
    for index, entry in enumerate(shown):
        text = Text()
        if entry.actor:
            text.append(plain(entry.actor, 60) + " ", style="bold")
        if entry.entity:
            text.append(plain(entry.entity, 80) + " ", style="italic")
        text.append(plain(entry.summary, 400))
        table.add_row(Text(_stamp(entry.at, same_day)), Text("●" if index == len(shown) - 1 else "│"), text)
    if len(entries) > MAX_SHOWN:
        return Group(more(len(entries) - MAX_SHOWN, "earlier changes"), table)
    return table


def fleet_snapshot(result: M.FleetSnapshotResult) -> Any:
    if result.is_empty:
        return Text("The snapshot has no entities.", style="dim italic")
    tiles = [("healthy", result.healthy, HEALTH_STYLE["healthy"]), ("degraded", result.degraded, HEALTH_STYLE["degraded"]),
             ("down", result.down, HEALTH_STYLE["down"]), ("drift", result.drift, "magenta" if result.drift else "dim")]
    if result.unknown:
        tiles.insert(3, ("unknown", result.unknown, HEALTH_STYLE["unknown"]))
    grid = Table.grid(padding=(0, 2), expand=False)
    for _ in tiles:
        grid.add_column(justify="center", no_wrap=True)
    grid.add_row(*[Text(f"{count:,}", style=f"bold {style}") for _, count, style in tiles])
    grid.add_row(*[Text(name, style="dim") for name, _, _ in tiles])
    parts: list[Any] = [grid]
    if result.taken_at is not None:
        parts.append(Text(f"taken {result.taken_at.strftime('%Y-%m-%d %H:%M UTC')}", style="dim"))
    return Group(*parts)


DRAW: dict[str, Callable[..., Any]] = {
    "entity_card": entity, "health_summary": health_summary, "lxc_list": lxc_list, "entity_table": entity_table,
    "knowledge_results": knowledge, "metric_chart": metric_chart, "blast_radius": blast_radius,
    "change_log": change_log, "fleet_snapshot": fleet_snapshot,
}
