"""A sweep of more than CONFIRM_POINTS (10,000) points asks first in the app; 'n' runs nothing.

The threshold is lowered for the test so the plan stays small; the command line's test
(tests/fault/test_smuggling.py) uses the real 10,000 with a 10,201-point plan.
"""

from __future__ import annotations

from iotui.core.sweep import plan as sweep_plan
from iotui.ui.screens.confirm import ConfirmScreen
from iotui.ui.screens.sweep import SweepScreen
from tests.ui.helpers import screen_text
from tests.ui.test_sweep_screen import SweepReplayServices, _app, _open_sweep


async def test_a_sweep_over_the_threshold_asks_before_it_starts(tmp_path, monkeypatch) -> None:
    assert sweep_plan.CONFIRM_POINTS == 10_000
    monkeypatch.setattr(sweep_plan, "CONFIRM_POINTS", 3)
    services = SweepReplayServices(tmp_path / "runs", [(1, 1)])
    app = _app(tmp_path, services)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_sweep(pilot)  # numjobs=1,2,4,8: four points
        assert screen.setup is not None and len(screen.setup.points) == 4
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.dialog_id == "points-dialog"
        assert "This sweep has 4 points." in screen_text(app) and "Run them all? (y / n)" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, SweepScreen) and services.runners == [] and not app.run_in_progress()
