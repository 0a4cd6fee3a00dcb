SWEEP_SUFFIX = ".sweep.toml"
"""A sweep record's file name ends so (``core/sweep/record.py`` writes and reads them); here, so that
commands telling a sweep's name from a run's need none of the sweep machinery."""
