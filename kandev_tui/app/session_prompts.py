"""A session's prompts: sent, or queued while a turn runs or a request waits (recalled, sent now, removed, kept
stored), and the prompt held while the agent starts (type-ahead), given back to the prompt box when it stops."""

from __future__ import annotations

from typing import Protocol

from kandev_tui.session import SessionState
from kandev_tui.session.state import TURN_STATES

STARTING_REASON = "starting the agent… · your message is sent once it is ready"


class Prompt(Protocol):
    """The prompt box, as the queue uses it (``widgets.chrome.prompt_input.PromptInput``)."""

    text: str

    def set_reason(self, reason: str) -> None: ...
    def to_end(self) -> None: ...


class QueueView(Protocol):
    """What the prompts need of their session: its prompt box, the queue shown and stored, a turn sent or
    cancelled, and the user told that messages went back to the prompt box."""

    @property
    def prompt(self) -> Prompt: ...
    def show_queue(self, texts: list[str], offered: bool) -> None: ...
    def keep_queued(self, texts: list[str]) -> None: ...
    def start_turn(self, text: str) -> None: ...
    def cancel_turn(self) -> None: ...
    def say_not_sent(self, texts: list[str]) -> None: ...


class PromptQueue:
    """One session's messages on their way to its agent: ``held`` (sent while the agent starts: sent once it is
    ready), ``queue`` (sent while a turn runs: the next one goes when it ends), ``offered`` (the queue came back from
    the last run: not sent until the user says so), ``given_back`` (held or queued when the agent stopped: put back in
    the prompt box)."""

    def __init__(self, view: QueueView) -> None:
        self._view = view
        self.held: str | None = None
        self.queue: list[str] = []
        self.offered = False
        self.given_back: list[str] = []

    def submit(self, text: str, state: str) -> None:
        """The user's message, in the session's ``state``: sent now, held while the agent starts, or queued."""
        if state in (SessionState.STARTING, SessionState.LOGIN) or self.held is not None:
            # the agent is not ready: the message waits for it (a second one joins it), and is sent when it is
            self.hold(text)
            self._view.prompt.set_reason(STARTING_REASON)
            return
        if state in TURN_STATES or (self.queue and not self.offered):  # a turn runs: queued, sent when it ends
            self.queue.append(text)  # (in order)
            self._changed()
            return
        if self.offered:  # the ones offered again follow this turn
            self.offered = False
            self._changed()
        self._view.start_turn(text)

    def hold(self, text: str, *, first: bool = False) -> None:
        """``text`` waits for the agent to be ready (``first``: before what waits already)."""
        if self.held is None:
            self.held = text
        else:
            self.held = f"{text}\n\n{self.held}" if first else f"{self.held}\n\n{text}"

    def recall(self) -> None:
        """↑ in the empty prompt: the last queued message back in the prompt (to edit and send again, or delete)."""
        if self.queue:
            prompt = self._view.prompt
            prompt.text = self.queue.pop()
            prompt.to_end()
            self._changed()

    def send_now(self, state: str) -> None:
        """ctrl+r: the next queued message goes now: the running turn is cancelled, and it is sent once the
        cancelled turn has ended (at once when none runs)."""
        if not self.queue:
            return
        self.offered = False
        if state in TURN_STATES:
            if state != SessionState.CANCELLING:
                self._view.cancel_turn()
        elif state == SessionState.IDLE:
            self.after_state(SessionState.IDLE, False)

    def remove_next(self) -> str | None:
        """ctrl+t: the next queued message taken out of the queue, back in the prompt (after what is typed there):
        nothing is lost, it is there to edit, send or clear."""
        if not self.queue:
            return None
        text = self.queue.pop(0)
        prompt = self._view.prompt
        prompt.text = f"{prompt.text.rstrip()}\n\n{text}" if prompt.text.strip() else text
        prompt.to_end()
        self._changed()
        return text

    def restore(self, texts: list[str]) -> None:
        """What was queued when the session last ran and never sent: queued again, waiting (sent after the next
        turn ends, or now with ctrl+r)."""
        if texts:
            self.queue = list(texts) + self.queue
            self.offered = True
            self._changed()

    def unsent(self) -> list[str]:
        """The messages the user sent that never reached the agent: queued, typed ahead of its start, or given back to
        the prompt box when it stopped and still there (said on stderr once the app has closed: nothing is lost)."""
        given_back = [text for text in self.given_back if text in self._view.prompt.text]
        return ([self.held] if self.held else []) + self.queue + given_back

    def after_state(self, state: str, read_only: bool) -> None:
        """The session's state changed: the message held while the agent started is sent once the session is idle
        (then the queue, one a turn); given back to the prompt box (never lost) when the session ends or fails."""
        if self.held is None and not self.queue:
            return
        if state == SessionState.IDLE and self.held is None and self.offered:
            return  # offered again from the last run: they wait for ctrl+r, or for the next turn's end
        if state in TURN_STATES and self.held is not None:  # the first prompt (run --prompt) went first: the
            self.queue.insert(0, self.held)  # message typed while the agent started follows its turn (and
            self.held, self.offered = None, False  # the ones offered again from the last run after it)
            self._changed()
            return
        if state == SessionState.IDLE:
            if self.held is not None:
                text, self.held = self.held, None
            else:
                text = self.queue.pop(0)
                self._changed()
            self._view.start_turn(text)
        elif read_only or state in (SessionState.ERROR, SessionState.ENDED):
            texts = ([self.held] if self.held is not None else []) + self.queue
            self.held, self.queue, self.given_back = None, [], texts
            self._view.show_queue([], False)
            prompt = self._view.prompt
            prompt.text = "\n\n".join(texts) + (f"\n\n{prompt.text}" if prompt.text.strip() else "")
            self._view.say_not_sent(texts)
        elif state == SessionState.STARTING and self.held is not None:
            self._view.prompt.set_reason(STARTING_REASON)

    def _changed(self) -> None:
        if not self.queue:
            self.offered = False
        self._view.show_queue(self.queue, self.offered)
        self._view.keep_queued(self.queue)  # stored with the session: never lost if the app ends first
