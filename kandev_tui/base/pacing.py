"""Every timing constant of the way an agent's output reaches the screen, and of the user going first, in one place.

Each is used where its mechanism is (named below); this module imports nothing of kandev-tui, so the lowest layer
(the ACP transport, the pipeline) reads its constants here without reaching up to the UI. The user's input clock,
which only the UI may read, is :mod:`kandev_tui.ui.user_input`. Timeouts of one operation (git, ending an agent, an
MCP connection left idle) stay with the operation. Nothing polls: a transcript covered by another screen (the help,
another session) waits, with no timer, until it is shown again (``session/batch.py``'s ``UNTIL_SHOWN``).

Figures are from the benchmarks (``benchmarks/stream.py``: key latency and drain during a flood;
``benchmarks/terminal.py``: the agent's last frame to tmux showing it), with the commit that measured them.

============================  ==========  ===========================================  ==================================================
constant                      value       mechanism (where)                            why this value (measured)
============================  ==========  ===========================================  ==================================================
``YIELD_AFTER``               4 ms        the ACP transport gives its event loop a     a key's task waits one slice of reading at most;
                                          turn after this much reading                 with 4 ms the flood's key latency fell from
                                          (``acp/transport.py``)                       0.42-0.65 s toward 0.1 s (d0bfae7)
``YIELD_EVERY``               256 frames  ... or after this many frames                16 frames: every turn polled the selector and gave
                                                                                       the interpreter's lock to the drawing UI thread;
                                                                                       256: terminal.py 20,000/1,000/200 median 0.41 s →
                                                                                       0.18 s (98ce7df)
``GIVE_WAY_AT_MOST``          50 ms       while the user's input is on its way to the  sessions.py, 8 agents flooding, worst key: 45-93 ms
                                          screen the transport pauses at its turns,    without (5 runs over 50 ms of 6), 20-148 ms with
                                          this long at most (``user_input.py``)        (2 over of 9); as long as FRAME_WAITS_AT_MOST
``GIVE_WAY_STEP``             2 ms        ... looking again this often                 not measured: a tenth of a frame
``BATCH_SECONDS``             50 ms       the pipeline commits and hands on a batch    one transaction per batch, not per frame: a
                                          of items at least this often while frames    50,000-chunk flood headless 163 s → 7.5 s (e16ddda);
                                          keep coming (``transcript/pipeline.py``)     the last batch goes at the first idle turn
``BATCH_ITEMS``               512 items   ... or once this many items changed          bounds one transaction (same commit)
``STORE_LONG_TEXT_EVERY``     1 s         an open message over ``LONG_TEXT`` is        each store writes it whole: a 1 MB answer stored 20
                                          stored at most this often (shown at every    times a second cost its reader a third of its time
                                          batch)                                       (8d51284); a hard crash loses at most 1 s of it
``TERMINAL_FLUSH_EVERY``      100 ms      a client terminal's output frames            not measured: ten frames a second reads as live,
                                          (``acp/terminals.py``)                       a `yes` floods no more than that
``FLUSH_SECONDS``             1/30 s      item updates go on screen in batches at      not measured: a frame every other 60 Hz refresh,
                                          most this often (``session/batch.py``)       smooth to the eye
``UI_SHARE``                  1/3         while a source streams, the UI thread        not measured as such: the rest keeps keys and
                                          works at most this share of the time         repaints served; with it the source's thread keeps
                                                                                       up (see ``BUSY_WAIT_AT_MOST``)
``BUSY_WAIT_AT_MOST``         0.25 s      ... but a batch waits at most this long      0.1 s: a batch costing a frame of charts (60-80 ms)
                                          after the last one                           broke the share and the source's thread fell
                                                                                       0.3-0.45 s behind; 0.25 s: terminal.py 20,000/1,000/
                                                                                       200 0.71 → 0.36 s (6ebe8eb)
``SETTLE_AT_MOST``            1 s         the next batch waits for the last one's      one batch on its way at a time: key latency median
                                          widgets to be mounted and parsed, at most    0.42-0.65 s → 0.09-0.11 s (937ae28)
                                          this long
``INPUT_FIRST``               150 ms      after a key, click or wheel turn the         the input's effect is drawn first (ebd0904); longer
                                          agent's output waits (``user_input.py``)     than one frame of a flood (30-120 ms)
``FRAME_WAITS_AT_MOST``       50 ms       a frame of the transcript waits at most      a key no longer waits behind a 30 ms frame of the
                                          this long for an input still on its way,     flood (67ccafa)
                                          for entries being mounted, for messages
                                          drawn ahead of it
``FIRST_FRAME_WAIT``          0.5 s       the agents start once the first frame is     a screen shown before the first frame held the
                                          drawn, or after this long at most            agents back until closed (c00782f)
``PREDRAW_SLICE``             4 ms        messages drawn ahead of their frame per      a frame drew a screen of Markdown at once (5-30 ms
                                          event-loop turn (``transcript_view/``)       of a 30-120 ms frame), and a key waited for it
                                                                                       (f8e46c5)
``DRAW_SLICE``                4 ms        a long message's blocks not drawn yet are    1 MB of Markdown takes Rich about 4 s to draw: a key
                                          drawn this much at a time                    waits one slice at most (8d51284)
``DRAW_AGAIN``                10 ms       ... with this pause between slices           the pause lets input and frames in (same commit)
``DRAW_AGAIN_FLOODING``       50 ms       ... while the session floods, only those in  drawing the blocks above the screen during a flood
                                          view, looked at after this pause             took 40% of the interpreter from its reader:
                                                                                       stream.py long, the tenths after the first
``CHART_SLICE``               4 ms        charts coming into view are plotted this     plotext takes 10-30 ms a chart: an escape back to
                                          much at a time, one at least, the rest       a flooding transcript waited for the charts that
                                          DRAW_AGAIN later (``transcript_view/``)      came into view meanwhile (49 ms, sessions.py)
``KEY_HELD_AT_MOST``          1 s         the terminal's keys wait behind a key on     a key's flight takes a few turns of the event loop
                                          its way through the focused widget and its   (tens of ms on a busy machine); this only keeps a
                                          ancestors this long at most                  handler that hangs from freezing the keyboard
                                          (``key_order.py``)                           (not measured)
``INPUT_DRAWN_WITHIN``        0.2 s       after an input, its screen draws at its      Textual's 60 Hz update timer made closing the help
                                          first idle moment (``textual_hooks.py``)     wait 12-20 ms (0662916)
``CURSOR_BLINKS_FOR``         10 s        the prompt's cursor blinks this long after   GTK's cursor-blink-timeout: a blink redraws the
                                          a key or the focus, then stays shown         screen twice a second (19 of 73 timer ticks of 8
                                          (``prompt_input.py``)                        idle sessions in 10 s); sessions.py 8: idle CPU
                                                                                       1.71-1.83% blinking, 0.18-0.20% once still
``LISTS_AT_MOST_EVERY``       50 ms       the sessions' rows (sidebar, list, "+2 ·      each showing redrew the sidebar and looked at every
                                          1 waiting f4") follow state changes at most  key: 1.8 ms, 61 times in sessions.py 8 (40 of them
                                          this often (``app/lists.py``)                state changes while the agents start and stream)
``CALL_OUT_EVERY``            2 s         the user is called (a notice, the bell, the  30 demo sessions, each asking for a permission at
                                          title, a desktop notification) at once, then once: 29 notices stacked over the transcript, 29
                                          at most this often: what comes meanwhile is  bells and 29 desktop notifications
                                          said in one call (``app/attention.py``)
``SAY_WHY_AGAIN_AFTER``       5 s         keys typed where the prompt takes nothing    typed into a read-only session, keys went nowhere
                                          (read-only, a login) say why once a notice   and the reason, cut at the prompt's border at 80
                                          this often (``screens/transcript.py``)       columns, never showed whole; one notice per key
                                                                                       would stack a word's worth
``LOOK_EVERY``                1 s         while something happens (an input, items),   the rows' "+N new" within a second; idle, two 1 s
                                          the app looks this often at the sessions'    timers cost sessions.py 8 5.3-5.7% CPU on a VM
                                          rows and a due full collection; idle, it     whose wakes are slow (3-7 ms for a 72-call look);
                                          has no timer (``app/lifecycle.py``)          no timer: 0.24-0.44%
``GC_QUIET_SECONDS``          2 s         a full garbage collection waits for this     not measured: a pause of a full pass (tens of ms
                                          much quiet (``gcpolicy.py``)                 with a big session) is not felt then
``GC_FULL_AT_LEAST_EVERY``    60 s        ... but runs at least this often             not measured: memory stays bounded in a flood
``QUIET_AFTER``               30 s        a running turn whose agent has said nothing  OpenCode, its model API out of reach, retried for
                                          this long says so: the status line and the   a minute, and the session said only "working"; a
                                          list's row (``app/session_quiet.py``), and   tool's call is often quiet for seconds, rarely for
                                          headless a line on stderr, again each time   half a minute (not measured)
                                          as long (``runner.py``)
============================  ==========  ===========================================  ==================================================
"""

from __future__ import annotations

# the ACP transport (acp/transport.py)
YIELD_AFTER = 0.004
YIELD_EVERY = 256
GIVE_WAY_AT_MOST = 0.05
GIVE_WAY_STEP = 0.002
# the pipeline (transcript/pipeline.py)
BATCH_SECONDS = 0.05
BATCH_ITEMS = 512
LONG_TEXT = 64 * 1024  # characters of an open message from which it is stored at most every STORE_LONG_TEXT_EVERY
STORE_LONG_TEXT_EVERY = 1.0
# client terminals (acp/terminals.py)
TERMINAL_FLUSH_EVERY = 0.1
# the batch on its way to the screen (session/batch.py)
FLUSH_SECONDS = 1 / 30
UI_SHARE = 1 / 3
BUSY_WAIT_AT_MOST = 0.25
SETTLE_AT_MOST = 1.0
# the user goes first (user_input.py, the transcript's frames)
INPUT_FIRST = 0.15
FRAME_WAITS_AT_MOST = 0.05
FIRST_FRAME_WAIT = 0.5
PREDRAW_SLICE = 0.004
DRAW_SLICE = 0.004
DRAW_AGAIN = 0.01
DRAW_AGAIN_FLOODING = 0.05
CHART_SLICE = 0.004
# Textual's frame loop (textual_hooks.py)
INPUT_DRAWN_WITHIN = 0.2
# keys in the order they were typed (key_order.py)
KEY_HELD_AT_MOST = 1.0
# the prompt (widgets/chrome/prompt_input.py)
CURSOR_BLINKS_FOR = 10.0
# the sessions' rows (app/lists.py)
LISTS_AT_MOST_EVERY = 0.05
# calling the user (app/attention.py)
CALL_OUT_EVERY = 2.0
# a key typed where the prompt takes nothing (screens/transcript.py)
SAY_WHY_AGAIN_AFTER = 5.0
# the app's look at its sessions' rows and the collector, while something happens (app/lifecycle.py)
LOOK_EVERY = 1.0
# garbage collection (gcpolicy.py)
GC_QUIET_SECONDS = 2.0
GC_FULL_AT_LEAST_EVERY = 60.0
# a running turn's silence (app/session_quiet.py, sources/runner.py)
QUIET_AFTER = 30.0
