"""The session model, headless: between the sources (a live agent, the store, a recording, a Kandev backend) and
the widgets. None of it imports Textual.

- :mod:`.state`: the session's states and what the prompt box is while in each (enabled, and why not);
- :mod:`.source`: the :class:`Source` protocol the app drives, with its optional capabilities declared;
- :mod:`.batch`: item updates merged by key and handed to the screen in batches, by a policy with an injected
  clock (the user's input first, one batch on its way at a time);
- :mod:`.layout`: where each item goes on screen (cards, collapsed tool groups, the rest), by the renderer
  registry.
"""

from .batch import Batcher
from .source import ItemsCallback, Source, StateCallback
from .state import PromptState, SessionState, prompt_state

__all__ = ["Batcher", "ItemsCallback", "PromptState", "SessionState", "Source", "StateCallback", "prompt_state"]
