"""``iotui import``, ``iotui compare`` and ``iotui export`` on the command line."""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w

from iotui.commands import compare, export, importer
from iotui.core.records.files import load_record
from iotui.core.records.history_index import query, sync
from tests.conftest import FIO_FIXTURES, FIXTURES

SEAWEEDFS = FIXTURES / "import" / "seaweedfs-fio-3.42-normal.txt"


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="iotui")
    subparsers = parser.add_subparsers()
    for module in (compare, importer, export):
        module.register(subparsers)
    args = parser.parse_args(argv)
    return args.handler(args)


def imported(tmp_path: Path, *names: str) -> list[Path]:
    runs = tmp_path / "runs"
    assert run_cli(["import", *[str(FIO_FIXTURES / n) for n in names], "--runs-dir", str(runs)]) == 0
    return sorted(runs.glob("*.toml"))


def test_import_saves_records_and_refuses_bad_files_with_a_sentence(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("just some notes\n")
    runs = tmp_path / "runs"
    code = run_cli(["import", str(SEAWEEDFS), str(bad), str(FIO_FIXTURES / "randrw-rate200-json+.txt"), "--runs-dir", str(runs)])
    out, err = capsys.readouterr()
    assert code == 1
    assert f"{bad}: no fio JSON document" in err and "Traceback" not in err
    saved = sorted(runs.glob("*.toml"))
    assert len(saved) == 7  # six text blocks and one JSON run: the bad file did not stop the others
    records = [load_record(path) for path in saved]
    assert all(record.status == "imported" for record in records)
    assert {record.run["source"] for record in records} == {str(SEAWEEDFS), str(FIO_FIXTURES / "randrw-rate200-json+.txt")}
    assert "page cache" in out  # the 4k sequential read's warning is shown
    assert len(list(runs.glob("*.fio.json"))) == 1  # fio's report is kept beside the JSON import


def test_import_again_replaces_the_same_record(tmp_path: Path, capsys) -> None:
    first = imported(tmp_path, "randread-sigint-json+.txt")
    second = imported(tmp_path, "randread-sigint-json+.txt")
    assert first == second
    assert "replaced" in capsys.readouterr().out


def test_compare_json_per_direction_and_metric(tmp_path: Path, capsys) -> None:
    paths = imported(tmp_path, "randread-ramp-json+.txt", "randread-sigint-json+.txt")
    capsys.readouterr()
    assert run_cli(["compare", *map(str, paths), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    iops = doc["metrics"]["read"]["iops"]
    a, b = (load_record(p).summary["read"]["iops"] for p in paths)
    assert iops["a"] == a and iops["b"] == b
    assert iops["delta"] == pytest.approx(b - a)
    assert iops["delta_pct"] == pytest.approx((b - a) / a * 100)
    assert iops["verdict"] in ("better", "worse", "same within noise")


def test_compare_by_name_in_runs_dir_and_with_a_reference(tmp_path: Path, capsys) -> None:
    [path] = imported(tmp_path, "randread-sigint-json+.txt")
    capsys.readouterr()
    code = run_cli(["compare", path.name, "ref:openbsd-numjobs-randread:8", "--runs-dir", str(tmp_path / "runs"), "--format", "markdown"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| read IOPS |" in out and "440k" in out
    assert "host.system" in out  # unknown (import) vs OpenBSD: the set-up differs


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"schema = 1\n[run\n", "not valid TOML"),
        (tomli_w.dumps({"schema": 7}).encode(), "newer iotui"),
        (b"\xff\xfe garbage", "not UTF-8"),
    ],
)
def test_compare_names_a_bad_record_and_still_compares_the_rest(tmp_path: Path, capsys, content: bytes, expected: str) -> None:
    paths = imported(tmp_path, "randread-ramp-json+.txt", "randread-sigint-json+.txt")
    bad = tmp_path / "bad.toml"
    bad.write_bytes(content)
    capsys.readouterr()
    code = run_cli(["compare", *map(str, paths), str(bad)])
    out, err = capsys.readouterr()
    assert code == 1
    assert str(bad) in err and expected in err
    assert "Traceback" not in err
    assert "read IOPS" in out


def test_compare_bad_key_names_the_key(tmp_path: Path, capsys) -> None:
    [path] = imported(tmp_path, "randread-sigint-json+.txt")
    broken = tmp_path / "broken.toml"
    broken.write_text(path.read_text().replace("iops = ", 'iops = "fast" #', 1))
    capsys.readouterr()
    assert run_cli(["compare", str(path), str(broken)]) == 1
    err = capsys.readouterr().err
    assert str(broken) in err and "sections[0].read.iops" in err


def test_compare_needs_two_runs(tmp_path: Path, capsys) -> None:
    [path] = imported(tmp_path, "randread-sigint-json+.txt")
    capsys.readouterr()
    assert run_cli(["compare", str(path)]) == 1
    assert "at least two runs" in capsys.readouterr().err


def test_compare_plot_uses_its_own_figures(tmp_path: Path, capsys) -> None:
    import plotext

    paths = imported(tmp_path, "randread-ramp-json+.txt", "randread-sigint-json+.txt")
    plotext.clear_figure()
    before = plotext.build()
    capsys.readouterr()
    assert run_cli(["compare", *map(str, paths), "--plot"]) == 0
    out = capsys.readouterr().out
    for title in ("IOPS over time", "p99 completion latency over time", "IOPS (summary)"):
        assert title in out
    assert "a read" in out and "b read" in out
    assert "\x1b[" not in out  # no colour codes when stdout is not a terminal
    assert plotext.build() == before  # plotext's module-level figure was never touched


def test_compare_plot_and_json_do_not_mix(tmp_path: Path, capsys) -> None:
    paths = imported(tmp_path, "randread-ramp-json+.txt", "randread-sigint-json+.txt")
    assert run_cli(["compare", *map(str, paths), "--plot", "--format", "json"]) == 2
    assert "--plot" in capsys.readouterr().err


def test_export_reference_reproduces_the_study_table(capsys) -> None:
    assert run_cli(["export", "ref:openbsd-numjobs-randwrite", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| numjobs=8 | 8 | 1,259.1 | 323,439 | 95.72 | - | Approaching write peak |" in out
    assert out.count("\n") == 2 + 6


def test_export_csv_to_file_and_missing_record(tmp_path: Path, capsys) -> None:
    paths = imported(tmp_path, "randrw-rate200-json+.txt")
    target = tmp_path / "table.csv"
    assert run_cli(["export", *map(str, paths), "--format", "csv", "-o", str(target)]) == 0
    lines = target.read_text().splitlines()
    assert lines[0] == "run,direction,bw_mib_s,iops,lat_mean_us,lat_p99_us" and len(lines) == 3
    assert lines[1].startswith("rw,read,") and lines[2].startswith("rw,write,")
    assert run_cli(["export", str(tmp_path / "nope.toml")]) == 1
    err = capsys.readouterr().err
    assert "nope.toml: no such record" in err


def test_list_references(capsys) -> None:
    assert run_cli(["export", "--list-references"]) == 0
    out = capsys.readouterr().out
    assert "ref:seaweedfs-fuse-blocksize" in out and "read-4k" in out


@pytest.mark.skipif(importlib.util.find_spec("iotui.cli") is None, reason="the iotui dispatcher is not there yet")
def test_python_dash_m_iotui_dispatches_the_commands(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "import", str(FIO_FIXTURES / "randread-sigint-json+.txt"), "--runs-dir", str(runs)],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "--runs-dir", str(runs), "export", next(runs.glob("*.toml")).name, "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    [row] = json.loads(result.stdout)
    assert row["run"] == "sig" and row["iops"] > 0


def test_compare_plot_labels_its_axes_with_the_figure_and_unit(tmp_path: Path, capsys) -> None:
    import re

    paths = imported(tmp_path, "randread-ramp-json+.txt", "randread-sigint-json+.txt")
    capsys.readouterr()
    assert run_cli(["compare", *map(str, paths), "--plot"]) == 0
    out = capsys.readouterr().out
    value_labels = re.findall(r"^\s*(\S+)┤", out, re.M)
    assert value_labels
    # Written as iotui writes figures (12.5k, 3.29ms), never a raw number such as 40673.5.
    assert not [label for label in value_labels if re.fullmatch(r"\d{3,}(\.\d+)?", label)], value_labels
    assert any(label.endswith("k") for label in value_labels)
    assert any(label.endswith(("ms", "µs")) for label in value_labels)
    assert "0 s" in out and "seconds since the run started" in out


def test_import_dir_reads_every_regular_file_recursively_without_following_links(tmp_path: Path, capsys) -> None:
    reports = tmp_path / "reports"
    (reports / "2016" / "deep").mkdir(parents=True)
    (reports / "2016" / "deep" / "normal.txt").write_bytes((FIXTURES / "import" / "fio-3.33" / "two-groups-normal.txt").read_bytes())
    (reports / "terse.txt").write_bytes((FIXTURES / "import" / "fio-3.33" / "two-groups-terse-v5.txt").read_bytes())
    (reports / "notes.md").write_text("what we measured\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "run.json").write_bytes((FIO_FIXTURES / "randrw-rate200-json+.txt").read_bytes())
    (reports / "link-to-outside").symlink_to(outside, target_is_directory=True)
    (reports / "link.json").symlink_to(outside / "run.json")
    runs = tmp_path / "runs"
    code = run_cli(["import", str(reports), "--runs-dir", str(runs)])
    out, err = capsys.readouterr()
    assert code == 1  # notes.md is not fio output: one sentence, and the rest imported
    assert err.count("\n") == 1 and f"{reports / 'notes.md'}: no fio JSON document" in err
    records = [load_record(path) for path in sorted(runs.glob("*.toml"))]
    assert sorted(Path(r.run["source"]).name for r in records) == ["normal.txt", "terse.txt"]
    assert all(len(r.sections) == 2 for r in records)  # one record per fio run, a section per group


def test_import_indexes_its_records_through_one_index_connection(tmp_path: Path, monkeypatch, capsys) -> None:
    from iotui.core.records import history_index

    opened: list[Path] = []
    real_connect = history_index._connect

    def counting_connect(runs_dir: Path):
        opened.append(runs_dir)
        return real_connect(runs_dir)

    monkeypatch.setattr(history_index, "_connect", counting_connect)
    runs = tmp_path / "runs"
    sources = [SEAWEEDFS, FIO_FIXTURES / "randrw-rate200-json+.txt", FIXTURES / "import" / "fio-3.33" / "two-groups-normal.txt"]
    assert run_cli(["import", *map(str, sources), "--runs-dir", str(runs)]) == 0
    saved = sorted(path.name for path in runs.glob("*.toml"))
    assert len(saved) == 8
    assert len(opened) == 1  # one connection for the eight records, not one each
    monkeypatch.setattr(history_index, "_connect", real_connect)
    listed, total = history_index.query(runs)  # no sync: in the index as the command ends
    assert total == 8 and sorted(run.path.name for run in listed) == saved
    assert sync(runs).parsed == 0


def test_an_interrupted_import_leaves_its_saved_records_findable(tmp_path: Path, monkeypatch, capsys) -> None:
    real_import = importer.import_fio_runs
    calls: list[Path] = []

    def interrupted_on_the_third_file(path: Path):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_import(path)

    monkeypatch.setattr(importer, "import_fio_runs", interrupted_on_the_third_file)
    runs = tmp_path / "runs"
    sources = [SEAWEEDFS, FIO_FIXTURES / "randrw-rate200-json+.txt", FIO_FIXTURES / "randread-sigint-json+.txt"]
    with pytest.raises(KeyboardInterrupt):
        run_cli(["import", *map(str, sources), "--runs-dir", str(runs)])
    saved = sorted(path.name for path in runs.glob("*.toml"))
    assert len(saved) == 7
    sync(runs)  # what History does as it opens
    listed, total = query(runs)
    assert total == 7 and sorted(run.path.name for run in listed) == saved
    assert not [run for run in listed if run.error]


@pytest.mark.parametrize("command", ["compare", "export"])
def test_a_sweep_record_is_named_as_one_with_where_its_points_are(tmp_path: Path, capsys, command: str) -> None:
    # It said "the table [run] is missing or is not a table." of the sweep record iotui itself wrote.
    (record,) = imported(tmp_path, "randread-sigint-json+.txt")
    sweep = tmp_path / "runs" / "20261127-060646-quick-4bc15505.sweep.toml"
    sweep.write_text('[sweep]\npreset = "quick"\nkeys = ["iodepth"]\n')
    capsys.readouterr()
    assert run_cli([command, str(record), str(sweep)]) == 1
    error = capsys.readouterr().err
    assert "[run] is missing" not in error
    assert f"{sweep}: a sweep record" in error and f"iotui show {sweep} --json" in error
