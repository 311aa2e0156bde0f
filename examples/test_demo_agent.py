"""An agent author's transcript snapshot test, with kandev-tui's pytest plugin (the README shows it).

Here the agent is kandev-tui's own demo agent on a fresh copy of its sample workspace; point ``AGENT`` at yours.
Run it with ``pytest examples/test_demo_agent.py``; ``--kandev-update`` rewrites the snapshot in
``examples/__kandev_snapshots__/``.
"""

import sys

from kandev_tui.demo import prepare_workspace

AGENT = [sys.executable, "-m", "kandev_tui.demo.agent"]


def test_the_demo_agent_reports_the_build_with_charts(kandev_agent, tmp_path):
    workspace = prepare_workspace(tmp_path / "demo-service")
    run = kandev_agent(AGENT, "Check the build health and show me the numbers", workspace=workspace)

    assert run.exit_code == 0, run.reason
    calls = [item for item in run.items if item.kind == "tool_call"]
    assert any("show_rich_output_kandev" in item.payload["name"] for item in calls)  # it presented natively
    assert run.kinds()[-1] == "turn_end"
    run.assert_screens(size=(100, 30))  # what kandev-tui draws of it, screen by screen, as the snapshot has it
