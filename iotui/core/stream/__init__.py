"""The live stream of a run or sweep: typed events (``--json-stream``, ``iotui.api``, metrics)."""
