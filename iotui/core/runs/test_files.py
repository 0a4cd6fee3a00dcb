"""The files a run writes: iotui's private test directory in the target and fio's test files in it.

Created before fio starts (exclusively: never a file that already exists) and
removed after every ending, a failure or a stop included.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from iotui.core.runs import test_dir
from iotui.core.runs.plan import RunPlan

TEST_FILE_PREFIX = test_dir.PRIVATE_DIR_PREFIX
TEST_FILE_SUFFIX = ".fio-test"


class TestFileError(Exception):
    """The test files cannot be made; str() says what happened and what to do."""

    __test__ = False  # not a pytest class


class TestFiles:
    """A plan's private directory and test files: ``create()`` before the run, ``remove()`` after it.

    ``log`` takes one sentence for the run's messages (a leftover removed, a file that would not go).
    """

    __test__ = False  # not a pytest class

    def __init__(self, plan: RunPlan, log: Callable[[str], None]) -> None:
        self.plan = plan
        self.log = log
        self.created_files: list[Path] = []
        self.created_private_dir: Path | None = None

    def planned(self) -> list[Path]:
        if self.plan.test_file is None:
            return []
        if self.plan.private_dir is not None:
            return list(self.plan.test_files)
        return list(self.plan.test_files) or [self.plan.test_file]

    def create(self) -> None:
        """The private test directory (exclusive, 0700) with its marker, subdirectories and shared file."""
        private_dir = self.plan.private_dir
        if private_dir is not None:
            for removed in test_dir.remove_leftovers(private_dir.parent):
                self.log(f"Removed {removed}, a test directory left behind by an earlier run that did "
                         "not end (power loss or a killed iotui).")
            try:
                test_dir.create_private_dir(private_dir, self.plan.private_subdirs)
            except test_dir.TestDirError as error:
                raise TestFileError(str(error)) from None
            self.created_private_dir = private_dir
        for test_file in self.planned():
            try:
                # Exclusive create: never take over a file that already exists.
                descriptor = os.open(test_file, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                raise TestFileError(
                    f"{test_file} already exists; iotui will not overwrite a file it did not create."
                ) from None
            except OSError as error:
                raise TestFileError(
                    f"Cannot create the test file in {test_file.parent} ({error.strerror}); "
                    "choose a target directory you can write to."
                ) from None
            os.close(descriptor)
            self.created_files.append(test_file)

    def remove(self) -> None:
        for test_file in self.created_files:
            try:
                test_file.unlink()
            except FileNotFoundError:
                pass
            except OSError as error:
                self.log(f"Could not remove the test file {test_file}: {error.strerror}.")
        self.created_files = []
        private_dir, self.created_private_dir = self.created_private_dir, None
        if private_dir is not None:
            problem = test_dir.remove_private_dir(private_dir)
            if problem:
                self.log(problem)
