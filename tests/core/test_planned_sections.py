"""The sections a run will have, as the live view names them: fio's reporting groups in order."""

from __future__ import annotations

from iotui.core.presets.estimate import PlannedSection, planned_sections
from iotui.core.presets.files import find_preset
from iotui.core.presets.model import JobSection, Preset


def test_the_desktop_preset_plans_eight_sections_of_five_seconds() -> None:
    planned = planned_sections(find_preset("desktop"))
    assert [section.name for section in planned] == [
        "seq1m-q8t1-read", "seq1m-q8t1-write", "seq1m-q1t1-read", "seq1m-q1t1-write",
        "rnd4k-q32t1-read", "rnd4k-q32t1-write", "rnd4k-q1t1-read", "rnd4k-q1t1-write",
    ]
    assert {section.seconds for section in planned} == {5.0}


def test_a_job_file_without_stonewall_is_one_section_and_a_size_bound_one_has_no_seconds() -> None:
    jobs = (JobSection("a", {"runtime": "4"}), JobSection("b", {"runtime": "6", "ramp_time": "1"}),
            JobSection("c", {"stonewall": "1"}))
    preset = Preset("f", "f", "", "", {"rw": "read"}, jobs, serial=False)
    assert planned_sections(preset) == [PlannedSection("a", 7.0), PlannedSection("c", None)]
