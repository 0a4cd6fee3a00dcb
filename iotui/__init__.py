"""iotui: a terminal console for storage benchmarking with real fio."""

__version__ = "0.1.0"
