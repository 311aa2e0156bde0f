"""Hypothesis strategies for what agents and files send: any JSON value, presentation documents (charts,
metrics, files, nonsense) and stored tool outputs."""

from __future__ import annotations

from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=40,
)

# values near the contract's own shapes, so that the fuzzer gets past the first checks
short_text = st.text(max_size=130)
numbers = st.none() | st.floats(allow_nan=True, allow_infinity=True) | st.integers(min_value=-(10**400), max_value=10**400)
series = st.fixed_dictionaries({"label": short_text, "values": st.lists(numbers, max_size=6)})
chart = st.fixed_dictionaries(
    {"type": st.just("chart"), "chart_type": st.sampled_from(["line", "bar", "pie"]), "title": short_text, "summary": short_text},
    optional={
        "labels": st.lists(short_text, max_size=6),
        "series": st.lists(series, max_size=5),
        "csv": st.fixed_dictionaries({"path": st.text(max_size=20), "x_column": short_text,
                                      "series": st.lists(st.fixed_dictionaries({"column": short_text}), max_size=5)}),
    },
)
metrics = st.fixed_dictionaries({"type": st.just("metrics"), "items": st.lists(
    st.fixed_dictionaries({"label": short_text, "value": short_text | st.integers()}), max_size=7)})
file_block = st.fixed_dictionaries({"type": st.just("file"), "path": st.text(max_size=30)},
                                   optional={"repo": short_text, "mime_type": json_values})
block = chart | metrics | file_block | json_values
documents = st.fixed_dictionaries(
    {"version": st.sampled_from([1, 1.0, 2, "1", True]), "title": short_text, "blocks": st.lists(block, max_size=5)},
    optional={"description": st.none() | short_text, "extra": json_values},
)


stored_outputs = json_values | st.fixed_dictionaries(
    {"structuredContent": json_values | st.fixed_dictionaries(
        {"version": st.sampled_from([1, 2]), "resolved_charts": st.lists(json_values, max_size=3)})})
