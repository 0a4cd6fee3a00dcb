"""Only what pyproject.toml cannot say: the top-level presets/ shipped inside the package.

The shipped presets live in presets/ at the top of the checkout (where people look
for them); setuptools maps that folder to the package ``iotui.presets``, so the
wheel, the sdist, ``pipx install .`` and the editable install all carry them and
``importlib.resources`` finds them. pyproject.toml's ``packages.find`` cannot add
one mapped package to the ones it finds, hence this file; everything else stays in
pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=[*find_namespace_packages(include=["iotui", "iotui.*"]), "iotui.presets"],
    package_dir={"iotui.presets": "presets"},
)
