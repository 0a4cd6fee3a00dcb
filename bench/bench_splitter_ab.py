#!/usr/bin/env python3
"""The status splitter of another revision against this one, alternately in one process.

Times what the splitter does with a 1,024-job json+ stream fed in 64 KiB pieces (finding each
document's end, the live decode, the document handed out), this tree's splitter and an older
``status.py`` in turn, so a busy moment of a shared machine hits both:

    git show HEAD~1:iotui/core/fio/status.py > /tmp/status_old.py
    python bench/bench_splitter_ab.py /tmp/status_old.py [--pairs 25] [--jobs 1024]

The stream is made as bench_parse_large.py makes it (a real 32-job capture widened).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_parse_large  # noqa: E402
from iotui.core.fio import status as this_status  # noqa: E402


def load_other(path: Path, name: str = "status_other"):
    """Another revision's module from its file, under ``name`` beside this tree's."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and typed dicts look their module up
    spec.loader.exec_module(module)
    return module


def per_document_ms(module, stream: bytes) -> float:
    splitter = module.StatusSplitter(live=True)
    documents = 0
    started = time.perf_counter()
    for offset in range(0, len(stream), 65536):
        documents += sum(1 for item in splitter.feed(stream[offset : offset + 65536]) if hasattr(item, "doc"))
    elapsed = time.perf_counter() - started
    assert documents == 2, documents
    return elapsed / documents * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="an older iotui/core/fio/status.py")
    parser.add_argument("--pairs", type=int, default=25)
    parser.add_argument("--jobs", type=int, default=1024)
    args = parser.parse_args()
    other = load_other(args.other)
    stream = bench_parse_large.wide_stream(args.jobs)
    theirs: list[float] = []
    ours: list[float] = []
    for _ in range(args.pairs):
        theirs.append(per_document_ms(other, stream))
        ours.append(per_document_ms(this_status, stream))
    ratios = [mine / old for mine, old in zip(ours, theirs)]
    print(f"{args.jobs} jobs, {len(stream) // 2:,} bytes per document, {args.pairs} pairs")
    print(f"  {args.other}: median {statistics.median(theirs):.1f} ms per document (best {min(theirs):.1f})")
    print(f"  this tree: median {statistics.median(ours):.1f} ms per document (best {min(ours):.1f})")
    print(f"  this tree / other, pair by pair: median {statistics.median(ratios):.2f} "
          f"(from {min(ratios):.2f} to {max(ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
