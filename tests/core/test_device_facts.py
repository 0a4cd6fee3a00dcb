"""Device and host facts from a sysfs tree: the selected scheduler, read-ahead, write cache, firmware, governor."""

from __future__ import annotations

from pathlib import Path

from iotui.core.host.device_facts import cpu_governor, disk_facts, selected_scheduler, target_device_facts


def _disk(root: Path) -> Path:
    disk = root / "devices" / "pci0000:00" / "nvme" / "nvme0n1"
    (disk / "queue").mkdir(parents=True)
    (disk / "device").mkdir()
    (disk / "queue" / "scheduler").write_text("[none] mq-deadline kyber\n")
    (disk / "queue" / "read_ahead_kb").write_text("128\n")
    (disk / "queue" / "write_cache").write_text("write back\n")
    (disk / "queue" / "rotational").write_text("0\n")
    (disk / "device" / "model").write_text("Samsung SSD 980 PRO 1TB                 \n")
    (disk / "device" / "firmware_rev").write_text("5B2QGXA7\n")
    return disk


def test_selected_scheduler_is_the_bracketed_one() -> None:
    assert selected_scheduler("mq-deadline kyber [bfq] none") == "bfq"
    assert selected_scheduler("none") == "none"
    assert selected_scheduler("") is None


def test_disk_facts_from_sysfs(tmp_path: Path) -> None:
    facts = disk_facts(_disk(tmp_path))
    assert facts == {"scheduler": "none", "read_ahead_kb": 128, "write_cache": "write back", "rotational": False,
                     "model": "Samsung SSD 980 PRO 1TB", "firmware": "5B2QGXA7"}
    assert disk_facts(None) == {}


def test_a_fact_sysfs_lacks_is_absent(tmp_path: Path) -> None:
    disk = _disk(tmp_path)
    (disk / "device" / "firmware_rev").unlink()
    (disk / "queue" / "write_cache").unlink()
    facts = disk_facts(disk)
    assert "firmware" not in facts and "write_cache" not in facts


def test_governor_and_a_real_target(tmp_path: Path) -> None:
    cpufreq = tmp_path / "devices" / "system" / "cpu" / "cpu0" / "cpufreq"
    cpufreq.mkdir(parents=True)
    (cpufreq / "scaling_governor").write_text("performance\n")
    assert cpu_governor(tmp_path) == "performance"
    assert cpu_governor(tmp_path / "none") is None
    facts = target_device_facts(tmp_path)  # this machine's real sysfs: whatever it offers, typed
    assert all(isinstance(facts[k], str) for k in ("scheduler", "write_cache", "model", "firmware") if k in facts)
    assert isinstance(facts.get("read_ahead_kb", 0), int)
