"""The shipped presets (TOML files beside this one), installed as the package ``iotui.presets``.

A package so that ``importlib.resources`` finds the folder in every kind of install;
the presets themselves are the ``*.toml`` files (docs/presets.md).
"""
