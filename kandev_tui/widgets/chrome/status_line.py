from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from kandev_tui.session.model import quiet_text

from kandev_tui.widgets.entries.base import safe_text

STATE_STYLE = {"running": ("● working", "yellow"), "waiting": ("? waiting for you", "bold yellow"),
               "cancelling": ("◌ cancelling", "yellow"), "idle": ("○ ready", "green"), "starting": ("◌ starting", "yellow"),
               "error": ("✖ error", "red"), "ended": ("■ agent exited", "dim"), "stored": ("■ stored", "dim"),
               "replayed": ("■ replayed", "dim"), "loading": ("◌ loading", "yellow"), "connecting": ("◌ connecting", "yellow"),
               "reconnecting": ("◌ reconnecting", "bold yellow"), "login": ("? needs a login", "bold yellow")}


TITLE_AT_LEAST = 12  # columns of the session's title kept before the usage gives way


def cost_text(usage: dict) -> str:
    """What a session cost, as the agent's usage reports it ("$0.42"), or ""."""
    cost = usage.get("cost")
    if isinstance(cost, dict) and isinstance(cost.get("amount"), (int, float)):
        currency = "$" if cost.get("currency") == "USD" else f"{safe_text(str(cost.get('currency', '')), keep_newlines=False)} "
        return f"{currency}{cost['amount']:.2f}"
    return ""


class StatusLine(Static):
    """Agent, its git branch, the mode and model chosen, session title, turn state, and usage/cost when the agent
    reports them."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    agent: reactive[str] = reactive("")
    title: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")
    choices: reactive[str] = reactive("")  # the agent's mode and model, by name
    usage: reactive[dict] = reactive(dict, always_update=True)
    others: reactive[str] = reactive("")  # what the other sessions do ("+2 sessions · 1 waiting (f4)")
    branch: reactive[str] = reactive("")  # the git branch its agent works on (a worktree's, or the checkout's)
    quiet: reactive[int] = reactive(0)  # seconds the running turn has gone without a word from the agent, once
    # QUIET_AFTER have (its AppSession looks once a second while a turn runs)

    def render(self) -> Text:
        label, style = STATE_STYLE.get(self.state, (self.state, ""))
        text = Text.assemble((label, style))
        if self.quiet and self.state == "running":
            text.append(f" · {quiet_text(self.quiet)}", style="yellow")
        text.append("  ")
        if self.others:  # the other sessions, first: who waits must not be cut off, even at 45 columns
            text.append(self.others, style="bold yellow" if "waiting" in self.others else "dim")
            text.append("  ")
        text.append(safe_text(self.agent, keep_newlines=False), style="bold")
        text.append("  ")
        if self.branch:  # after the agent (a worktree's branch says which worktree), cut where it is long
            branch = safe_text(self.branch, keep_newlines=False)
            room = max(12, min(32, self.size.width // 5))
            text.append("⎇ " + (branch if len(branch) <= room else branch[:room - 1] + "…"), style="magenta")
            text.append("  ")
        if self.choices:  # a quarter of the line at most: the session's title keeps room
            room = max(12, min(48, self.size.width // 4))
            choices = safe_text(self.choices, keep_newlines=False)
            text.append(choices if len(choices) <= room else choices[:room - 1] + "…", style="cyan")
            text.append("  ")
        usage = self.usage or {}
        extra = []
        if isinstance(usage.get("used"), int) and isinstance(usage.get("size"), int) and usage["size"]:
            extra.append(f"{usage['used'] / usage['size']:.0%} of {usage['size'] // 1000}k")
        cost = cost_text(usage)
        if cost:
            extra.append(cost)
        tail = ("  " + " · ".join(extra)) if extra else ""
        width = max(1, self.size.width - 2)
        title = Text(safe_text(self.title, keep_newlines=False), style="italic")
        room = width - text.cell_len - len(tail)
        if tail and room >= TITLE_AT_LEAST and title.cell_len > room:  # the title gives way, the usage stays whole
            title.truncate(room, overflow="ellipsis")  # ("0% of 1…" said nothing)
        text.append_text(title)
        if tail:
            text.append(tail, style="dim")
        text.truncate(width, overflow="ellipsis")
        return text
