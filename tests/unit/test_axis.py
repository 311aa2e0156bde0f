"""Axis tick formatting, exactly as spec §7 states it."""

from __future__ import annotations

import pytest

from kandev_tui.presentation import format_x_ticks, format_y_tick


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"), (-0.0, "0"), (1, "1"), (12.345, "12.35"), (-3.14159, "-3.14"), (999.994, "999.99"),
        (999.995, "1,000"), (1000, "1K"), (1049, "1K"), (1050, "1.1K"), (1100, "1.1K"), (2400, "2.4K"),
        (-12_500, "-12.5K"), (999_949, "999.9K"), (999_950, "1M"), (1_300_000, "1.3M"),
        (1_500_000_000, "1.5B"), (1e12, "1T"), (1e15, "1,000T"), (0.0042, "0.0042"),
        (0.00012, "0.00012"), (0.00012345, "0.00012"), (0.009999, "0.01"), (0.01, "0.01"),
        (-0.005, "-0.005"), (0.5, "0.5"), (100, "100"), (1.7976931348623157e308, "1.8e308"),
        (-1.7976931348623157e308, "-1.8e308"), (1.234e-10, "1.2e-10"),
    ],
)
def test_y_ticks(value, text):
    assert format_y_tick(value) == text


def test_x_ticks_dates_without_time_when_days_differ():
    assert format_x_ticks(["2026-08-12", "2026-08-13T23:00:00Z"]) == ["Aug 12", "Aug 13"]


def test_x_ticks_with_time_when_two_labels_share_a_utc_day():
    labels = ["2026-08-12T14:30:00Z", "2026-08-12T18:00:00+02:00", "2026-08-13T01:00:00.123456789-01:00"]
    assert format_x_ticks(labels) == ["Aug 12, 14:30", "Aug 12, 16:00", "Aug 13, 02:00"]


def test_x_ticks_offsets_move_to_utc_day():
    assert format_x_ticks(["2026-08-12T23:30+00:00", "2026-08-12T23:30-01:00"]) == ["Aug 12", "Aug 13"]


@pytest.mark.parametrize("odd", ["2026-02-30", "2026-08-12T14:30", "2026-08-12 14:30Z", "26-08-12", "2026-8-12", "api"])
def test_one_non_iso_label_switches_to_categories(odd):
    assert format_x_ticks(["2026-08-12", odd]) == ["2026-08-12", odd if len(odd) <= 16 else odd[:15] + "…"]


def test_non_ascii_digits_are_not_dates():
    assert format_x_ticks(["٢٠٢٦-08-12"]) == ["٢٠٢٦-08-12"]


def test_category_ticks_clip_to_16_code_points():
    assert format_x_ticks(["a" * 16, "b" * 17, "é" * 20]) == ["a" * 16, "b" * 15 + "…", "é" * 15 + "…"]
