"""The transcript's entry widgets, one class per kind of entry, and which draws each kind of item.

The transcript imports them when it makes its first entry (:func:`kandev_tui.widgets.transcript_view.entry_widgets`),
not with itself: an empty transcript's first frame does not wait for them (25-35 ms with their Markdown, charts and
call views). The app reads them in a thread after that frame, so the first entry does not wait either.
"""

from __future__ import annotations

from kandev_tui.transcript.items import (AGENT, AGENT_NOTICE, CHANGES, COMPACTION, ELICITATION, ERROR, NOTE, PERMISSION,
                                         PLAN, SUBAGENT, THOUGHT, TURN_END, USER)

from kandev_tui.widgets.entries.agent_message import AgentMessage
from kandev_tui.widgets.entries.changes_card import ChangesCard
from kandev_tui.widgets.entries.chart_block import ChartBlock
from kandev_tui.widgets.entries.compaction import CompactionRow
from kandev_tui.widgets.entries.subagent import SpawningCall, SubagentCard
from kandev_tui.widgets.entries.elicitation import ElicitationCard
from kandev_tui.widgets.entries.notice import Notice
from kandev_tui.widgets.entries.permission import PermissionRequest
from kandev_tui.widgets.entries.plan import Plan
from kandev_tui.widgets.entries.thought import Thought
from kandev_tui.widgets.entries.tool_call import ToolCallView
from kandev_tui.widgets.entries.tool_card import ToolCard
from kandev_tui.widgets.entries.tool_group import ToolGroup
from kandev_tui.widgets.entries.user_message import UserMessage

ITEM_WIDGETS = {USER: UserMessage, AGENT: AgentMessage, THOUGHT: Thought, PLAN: Plan,
                PERMISSION: PermissionRequest, ERROR: Notice, TURN_END: Notice, NOTE: Notice,
                ELICITATION: ElicitationCard, AGENT_NOTICE: Notice, COMPACTION: CompactionRow,
                SUBAGENT: SubagentCard, CHANGES: ChangesCard}
REQUESTS = (PermissionRequest, ElicitationCard)  # what waits for the user's answer, and takes the focus
REQUEST_SELECTOR = "PermissionRequest, ElicitationCard"

__all__ = ["AgentMessage", "ChangesCard", "ChartBlock", "CompactionRow", "ElicitationCard", "ITEM_WIDGETS", "REQUESTS", "REQUEST_SELECTOR", "SpawningCall", "SubagentCard", "Notice", "PermissionRequest", "Plan", "Thought",
           "ToolCallView", "ToolCard", "ToolGroup", "UserMessage"]
