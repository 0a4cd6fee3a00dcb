#!/usr/bin/env bash
# Set up iotui on a Debian/Ubuntu machine: fio from the OS packages, a
# virtual environment in .venv, iotui installed into it (editable).
#   bash scripts/bootstrap.sh          # the app
#   bash scripts/bootstrap.sh --test   # the app, the test extras, and sysbench
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
[ "${1:-}" = "--test" ] && with_tests=1

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

packages=(fio)
[ "$with_tests" -eq 1 ] && packages+=(sysbench)
missing=()
for package in "${packages[@]}"; do
  command -v "$package" >/dev/null 2>&1 || missing+=("$package")
done
python3 -m venv --help >/dev/null 2>&1 && python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "Please install: ${missing[*]} (see README: fio on Fedora, Arch, macOS, FreeBSD)" >&2
    exit 1
  fi
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
if [ "$with_tests" -eq 1 ]; then
  .venv/bin/python -m pip install -q -e '.[test]'
else
  .venv/bin/python -m pip install -q -e .
fi
echo "iotui is set up: $(.venv/bin/iotui --version), $(fio --version)" >&2
