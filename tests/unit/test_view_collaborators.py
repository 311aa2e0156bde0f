"""The transcript view's collaborators alone, each over a stand-in for the scrolling view and the window it reads:
the following (only the user stops it; what lies below is said once per change), the request's kept keys, the charts
left alone while the terminal is out of view. What they do in a mounted view is the app tests' and the scale tests'."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kandev_tui.widgets.transcript_view.charts import ChartPlotter
from kandev_tui.widgets.transcript_view.following import Follower
from kandev_tui.widgets.transcript_view.requests import RequestFocus


class View:
    def __init__(self, scroll_y: float = 0, max_scroll_y: float = 100) -> None:
        self.scroll_y, self.max_scroll_y = scroll_y, max_scroll_y
        self.after: list[Any] = []
        self.show_vertical_scrollbar = True
        self.ended = 0

    def call_after_refresh(self, callback: Any, *args: Any) -> None:
        self.after.append(callback)

    def scroll_end(self, **options: Any) -> None:
        self.ended += 1


class Window:
    def __init__(self, lo: int = 0, hi: int = 10, entries: int = 10, more_at_source: bool = False) -> None:
        self.lo, self.hi, self.entries = lo, hi, list(range(entries))
        self.loading = False
        self.more_at_source = more_at_source
        self.asked: list[str] = []

    def load_earlier(self) -> None:
        self.asked.append("earlier")

    def load_later(self) -> None:
        self.asked.append("later")

    def ask_for_older(self) -> None:
        self.asked.append("older")


def follower(view: View, window: Window) -> tuple[Follower, list[str | None], list[bool]]:
    said: list[str | None] = []
    charts: list[bool] = []
    return Follower(view, window, said.append, lambda: charts.append(True)), said, charts  # type: ignore[arg-type]


def test_only_the_user_stops_the_following_and_what_lies_below_is_said_once_per_change():
    view, window = View(scroll_y=100), Window(lo=0, hi=10, entries=30)
    follow, said, _ = follower(view, window)
    follow.follow()
    assert view.ended == 1
    follow.scrolled(100, 60)  # the view moved (its window, its content): still following
    assert follow.following and said == []
    follow.went_up()  # the user
    assert not follow.following and said == ["more"]
    follow.came_below()
    follow.came_below()
    assert said == ["more", "new"]
    follow.follow()
    assert view.ended == 1  # not following: output does not move the view


def test_at_the_top_more_is_mounted_above_else_older_items_are_asked_from_the_source():
    view, window = View(scroll_y=0), Window(lo=5, hi=15, entries=15)
    follow, _, charts = follower(view, window)
    follow.set_following(False)
    follow.scrolled(10, 0)
    assert window.asked == ["earlier"] and charts == [True]
    window.lo, window.more_at_source = 0, True
    follow.more_above()
    assert window.asked == ["earlier", "older"]


def test_a_transcript_that_fits_keeps_following_and_the_end_follows_again():
    view, window = View(scroll_y=0, max_scroll_y=0), Window(lo=0, hi=3, entries=3)
    follow, said, _ = follower(view, window)
    follow.set_following(False)  # nothing to leave: it all fits
    assert follow.following and said == []
    view.max_scroll_y = 50
    follow.set_following(False)
    view.scroll_y = 50
    follow.scrolled(10, 50)  # the user went back down to the end
    assert follow.following


def test_keys_typed_for_a_request_not_mounted_yet_are_kept_in_order_and_only_then():
    requests = RequestFocus(SimpleNamespace(app=None))  # type: ignore[arg-type]
    assert not requests.keep("1", "1")  # nothing waits for them
    requests.kept = []
    assert requests.keep("1", "1") and requests.keep("a", "a")
    assert requests.kept == [("1", "1"), ("a", "a")]


def test_charts_are_not_plotted_while_the_terminal_is_out_of_view():
    view = SimpleNamespace(size=SimpleNamespace(height=40), children=[object()])
    ChartPlotter(view, visible=lambda: False).check()  # type: ignore[arg-type]  # looks at nothing: no error
