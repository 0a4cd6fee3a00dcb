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
# The remote-command tests log in over the loopback sshd with each of these as the login shell.
[ "$with_tests" -eq 1 ] && packages+=(dash zsh fish tcsh)
# The iotui serve test drives a real headless Chromium. Debian packages it; on Ubuntu the
# package only installs a snap, which cannot run there (the test says so and skips).
os_id=$(. /etc/os-release 2>/dev/null && echo "${ID:-}")
if [ "$with_tests" -eq 1 ] && [ "$os_id" != "ubuntu" ]; then
  packages+=(chromium)
fi
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

# The multi-host tests start their own sshd on loopback; they need the ssh
# programs, never a running system sshd. The package's post-install script
# would start and enable one: a policy-rc.d that says no (only for this
# install; an existing one is kept) prevents the start, and the service is
# disabled after.
install_without_starting() {
  local policy=/usr/sbin/policy-rc.d created=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
    as_root chmod 755 "$policy"
    created=1
    trap 'as_root rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
  if [ "$created" -eq 1 ]; then
    as_root rm -f "$policy"
    trap - EXIT
  fi
  if command -v systemctl >/dev/null 2>&1; then
    as_root systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
  fi
  if command -v service >/dev/null 2>&1; then
    as_root service ssh stop >/dev/null 2>&1 || true
  fi
}

if [ "$with_tests" -eq 1 ]; then
  ssh_missing=()
  command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1 || ssh_missing+=(openssh-client)
  [ -x /usr/sbin/sshd ] || ssh_missing+=(openssh-server)
  if [ "${#ssh_missing[@]}" -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1; then
      install_without_starting "${ssh_missing[@]}"
    else
      echo "The multi-host tests need: ${ssh_missing[*]} (they are skipped without them)" >&2
    fi
  fi
fi

# The --metrics test scrapes a run with a real Prometheus it starts itself on a loopback port;
# the package's own service is neither started nor left enabled.
if [ "$with_tests" -eq 1 ] && ! command -v prometheus >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    install_without_starting prometheus
    if command -v systemctl >/dev/null 2>&1; then
      as_root systemctl disable --now prometheus.service prometheus-node-exporter.service >/dev/null 2>&1 || true
    fi
  else
    echo "The --metrics test needs prometheus (it is skipped without it)" >&2
  fi
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
if [ "$with_tests" -eq 1 ]; then
  .venv/bin/python -m pip install -q -e '.[test]'
else
  # With orjson and msgspec (the fast extra): a live run reads a large status document the fast
  # way (README, "Install"); two small wheels.
  .venv/bin/python -m pip install -q -e '.[fast]'
fi
# An editable install leaves iotui's own modules uncompiled; compiled once here, the app's
# start does not compile them again each time (where PYTHONDONTWRITEBYTECODE forbids
# keeping them, it would every time): bench/README.md, first paint.
.venv/bin/python -m compileall -q iotui >/dev/null || true
# pytest rewrites each test module's asserts as it imports it and keeps the result in
# __pycache__, unless PYTHONDONTWRITEBYTECODE forbids: then each of the suite's workers parses and
# rewrites every test module again at every run (collection: 13 s of CPU per worker instead of
# 5.6). One collection here, allowed to write, keeps them; an edited module is rewritten again.
if [ "$with_tests" -eq 1 ]; then
  PYTHONDONTWRITEBYTECODE= .venv/bin/python -m pytest --collect-only -q -n 0 -p no:cacheprovider >/dev/null || true
fi
echo "iotui is set up: $(.venv/bin/iotui --version), $(fio --version)" >&2
