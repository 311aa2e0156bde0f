"""A session's prompts: sent, or queued while a turn runs or a request waits (recalled, sent now, removed, kept
stored), and the prompt held read-only while the session cannot take one."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from kandev_tui.session import SessionState
from kandev_tui.session.state import TURN_STATES
from kandev_tui.transcript.items import USER

if TYPE_CHECKING:
    from kandev_tui.app.session_parts import SessionParts
else:
    SessionParts = object  # a plain mixin at run time: see app_session_parts

log = logging.getLogger("kandev_tui.app.kandev_app")


class SessionPrompts(SessionParts):
    """Prompts and the queue (a part of :class:`~kandev_tui.app.session.AppSession`)."""

    def sent_messages(self) -> list[str]:
        """What the user said in this session, oldest first (the first prompt given on the command line, and a
        continued session's earlier turns, too): ↑ in the empty prompt goes back through them."""
        return [text for item in self.view.model.items.values()
                if item.kind == USER and isinstance(text := item.payload.get("text"), str)]

    def submit(self, text: str) -> None:
        """The user's message: sent now, or held while the agent starts (sent once it is ready)."""
        log.info("session %d: prompt submitted (%d characters)", self.number, len(text))
        self.view.jump_to_latest()
        if self.last_state in (SessionState.STARTING, SessionState.LOGIN) or self.held is not None:
            # the agent is not ready: the message waits for it (a second one joins it), and is sent when it is
            self.held = text if self.held is None else f"{self.held}\n\n{text}"
            self.screen.prompt.set_reason("starting the agent… · your message is sent once it is ready")
            return
        if self.last_state in TURN_STATES or (self.queue and not self.queue_offered):  # a turn runs: queued,
            self.queue.append(text)  # sent when it ends (in order)
            self._queue_changed()
            return
        if self.queue_offered:  # the ones offered again follow this turn
            self.queue_offered = False
            self._queue_changed()
        self.app.run_worker(self.send(text), name="turn", group=f"turn-{self.number}")

    def recall_queued(self) -> None:
        """↑ in the empty prompt: the last queued message back in the prompt (to edit and send again, or delete)."""
        if self.queue:
            prompt = self.screen.prompt
            prompt.text = self.queue.pop()
            prompt.move_cursor(prompt.document.end)
            self._queue_changed()

    def send_queued_now(self) -> None:
        """ctrl+r: the next queued message goes now: the running turn is cancelled, and it is sent once the
        cancelled turn has ended (at once when none runs)."""
        if not self.queue:
            return
        self.queue_offered = False
        if self.last_state in TURN_STATES:
            if self.last_state != SessionState.CANCELLING:
                self.app.run_worker(self.model.cancel(), name="cancel", group=f"cancel-{self.number}")
        elif self.last_state == SessionState.IDLE:
            self._send_held(SessionState.IDLE, False)

    def remove_queued(self) -> str | None:
        """ctrl+t: the next queued message taken out of the queue, back in the prompt (after what is typed there):
        nothing is lost, it is there to edit, send or clear."""
        if not self.queue:
            return None
        text = self.queue.pop(0)
        prompt = self.screen.prompt
        prompt.text = f"{prompt.text.rstrip()}\n\n{text}" if prompt.text.strip() else text
        prompt.move_cursor(prompt.document.end)
        self._queue_changed()
        return text

    def restore_queue(self, texts: list[str]) -> None:
        """What was queued when the session last ran and never sent: queued again, waiting (sent after the next
        turn ends, or now with ctrl+r)."""
        if texts:
            self.queue = list(texts) + self.queue
            self.queue_offered = True
            self._queue_changed()

    def _queue_changed(self) -> None:
        """The queue shown under the transcript, and stored with the session (never lost if the app ends first)."""
        if not self.queue:
            self.queue_offered = False
        self.screen.show_queue(self.queue, offered=self.queue_offered)
        if self.on_screen:
            self.app.refresh_bindings()  # ctrl+r and ctrl+t are offered while messages are queued
        self.model.keep_queued(self.queue)  # stored with the session: never lost if the app ends first

    def unsent(self) -> list[str]:
        """The messages the user sent that never reached the agent: queued, typed ahead of its start, or given back to
        the prompt box when it stopped and still there (said on stderr once the app has closed: nothing is lost)."""
        given_back = [text for text in self.given_back if text in self.screen.prompt.text]
        return ([self.held] if self.held else []) + self.queue + given_back

    def _send_held(self, state: str, read_only: bool) -> None:
        """The message held while the agent started: sent once the session is idle; given back to the prompt box
        (never lost) when the session ends or fails before."""
        if (self.held is None and not self.queue) or self.closed:  # closed: kept for unsent(), said at the exit
            return
        if state == SessionState.IDLE and self.held is None and self.queue_offered:
            return  # offered again from the last run: they wait for ctrl+r, or for the next turn's end
        if state in TURN_STATES and self.held is not None:  # the first prompt (run --prompt) went first: the
            self.queue.insert(0, self.held)  # message typed while the agent started follows its turn (and
            self.held, self.queue_offered = None, False  # the ones offered again from the last run after it)
            self._queue_changed()
            return
        if state == SessionState.IDLE:
            if self.held is not None:
                text, self.held = self.held, None
            else:
                text = self.queue.pop(0)
                self._queue_changed()
            self.app.run_worker(self.send(text), name="turn", group=f"turn-{self.number}")
        elif read_only or state in (SessionState.ERROR, SessionState.ENDED):
            texts = ([self.held] if self.held is not None else []) + self.queue
            self.held, self.queue, self.given_back = None, [], texts
            self.screen.show_queue([])
            prompt = self.screen.prompt
            prompt.text = "\n\n".join(texts) + (f"\n\n{prompt.text}" if prompt.text.strip() else "")
            self.app.notify(f"{'Your message was' if len(texts) == 1 else 'Your messages were'} not sent: the agent "
                            f"{'did not start' if self.started_turns == 0 else 'stopped'}. "
                            "It is back in the prompt box.",
                            title="Not sent", severity="warning", markup=False)
        elif state == SessionState.STARTING and self.held is not None:
            self.screen.prompt.set_reason("starting the agent… · your message is sent once it is ready")
