"""The transcript's entry widgets, one class per kind of entry, and which draws each kind of item.

The transcript imports them when it makes its first entry (:func:`kandev_tui.widgets.transcript_view.entry_widgets`),
not with itself: an empty transcript's first frame does not wait for them (25-35 ms with their Markdown, charts and
call views). The app reads them in a thread after that frame, so the first entry does not wait either.
"""

from __future__ import annotations

from kandev_tui.transcript import items as K

from .agent_message import AgentMessage
from .changes_card import ChangesCard
from .chart_block import ChartBlock
from .compaction import CompactionRow
from .subagent import SpawningCall, SubagentCard
from .elicitation import ElicitationCard
from .notice import Notice
from .permission import PermissionRequest
from .plan import Plan
from .thought import Thought
from .tool_call import ToolCallView
from .tool_card import ToolCard
from .tool_group import ToolGroup
from .user_message import UserMessage

ITEM_WIDGETS = {K.USER: UserMessage, K.AGENT: AgentMessage, K.THOUGHT: Thought, K.PLAN: Plan,
                K.PERMISSION: PermissionRequest, K.ERROR: Notice, K.TURN_END: Notice, K.NOTE: Notice,
                K.ELICITATION: ElicitationCard, K.AGENT_NOTICE: Notice, K.COMPACTION: CompactionRow,
                K.SUBAGENT: SubagentCard, K.CHANGES: ChangesCard}
REQUESTS = (PermissionRequest, ElicitationCard)  # what waits for the user's answer, and takes the focus
REQUEST_SELECTOR = "PermissionRequest, ElicitationCard"

__all__ = ["AgentMessage", "ChangesCard", "ChartBlock", "CompactionRow", "ElicitationCard", "ITEM_WIDGETS", "REQUESTS", "REQUEST_SELECTOR", "SpawningCall", "SubagentCard", "Notice", "PermissionRequest", "Plan", "Thought",
           "ToolCallView", "ToolCard", "ToolGroup", "UserMessage"]
