"""The session model, headless: between the sources (a live agent, the store, a recording, a Kandev backend) and
the widgets. None of it imports Textual.

- :mod:`.model`: :class:`~.model.SessionModel`, the session as the app shows it: its source, the batches on their
  way, the transcript's entries, the states; the app implements its :class:`~.model.SessionUI`;
- :mod:`.state`: the session's states and what the prompt box is while in each (enabled, and why not);
- :mod:`.source`: the :class:`Source` protocol the app drives (a ``typing.Protocol``), :class:`NullSource` with what
  a source without a capability answers, and the :class:`SourceStatus` a source tells;
- :mod:`.background`: the asyncio loop in a thread of its own where a source reads, normalises and stores;
- :mod:`.batch`: item updates merged by key and handed to the screen in batches, by a policy with injected clocks
  (the user's input first, the UI's thread mostly free while a source streams, one batch on its way at a time);
- :mod:`.changes`: the transcript's entries, placed where items arrive, and the change sets the UI takes and the
  widget applies;
- :mod:`.layout`: where each item goes (cards, collapsed tool groups, the rest), by the renderer registry;
- :mod:`.window`: which entries are mounted, as pure functions;
- :mod:`.search`: search over immutable item versions, in a thread;
- :mod:`.parsed`: what is derived from an item version (a presentation), cached by ``(key, version)``.
"""

from .batch import Batcher
from .source import ItemsCallback, NullSource, Source, SourceStatus, StatusCallback
from .state import PromptState, SessionState, prompt_state

__all__ = ["Batcher", "ItemsCallback", "NullSource", "PromptState", "SessionState", "Source", "SourceStatus",
           "StatusCallback", "prompt_state"]
