"""pytest plugin loaded into vLLM's own unit tests (``-p vllm_tests_plugin``) by harness/vllm_own_tests.py.

Runs in a provisioned vLLM venv, never in radpatch's process; stdlib + pytest + vLLM only.
Two jobs:

* Stand in for the one fixture of vLLM's root ``tests/conftest.py`` that its KV-cache planning
  tests use, ``caplog_vllm``.  That conftest is not loaded (``--noconftest``): it imports vLLM's
  whole engine, model runners and test assets (tblib, PIL, hub helpers) at collection time,
  which a CPU venv holding only the planning code's dependencies cannot import.  The fixture is
  rewritten here from its documented behaviour: let the "vllm" logger propagate to the root
  logger for the test, and capture at INFO.
* Record, per test, what vLLM's KV-cache planning did: every call of the function
  kv_group_size patches (``_get_kv_cache_groups_uniform_page_size``: the layer buckets it was
  given, the groups it returned, and the blocks a request needs in them, from vLLM's own
  ``spec.max_memory_usage_bytes``), and every ``get_kv_cache_config_from_groups`` (the blocks
  the test's memory gives and the token capacity vLLM's
  ``get_max_concurrency_for_kv_cache_config`` computes for it).  The wrappers pass every call
  through unchanged; recording errors are swallowed, never raised into vLLM.  The record and
  each test's outcome go to the JSON file named by ``$RADPATCH_VLLM_TESTS_RECORD``.
"""

from __future__ import annotations

import functools
import importlib
import json
import logging
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

RECORD_ENV = "RADPATCH_VLLM_TESTS_RECORD"
PATCHED_FUNCTION = "_get_kv_cache_groups_uniform_page_size"

_current: list[str] = []  # nodeid of the running test
_configs: list[Any] = []  # vllm_config of the enclosing get_kv_cache_groups call
_events: dict[str, dict[str, list[dict[str, Any]]]] = {}
_outcomes: dict[str, str] = {}
_info: dict[str, Any] = {}


@pytest.fixture()
def caplog_vllm(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> Iterator[pytest.LogCaptureFixture]:
    """vLLM's records reach pytest's caplog: propagate them for the test, capture at INFO."""
    logger_module = importlib.import_module("vllm.logger")
    default_config = getattr(logger_module, "DEFAULT_LOGGING_CONFIG", None)
    if isinstance(default_config, dict) and "vllm" in default_config.get("loggers", {}):
        # a first engine init re-applies this dict and would switch propagation off mid-test
        monkeypatch.setitem(default_config["loggers"]["vllm"], "propagate", True)
    monkeypatch.setattr(logging.getLogger("vllm"), "propagate", True)
    with caplog.at_level(logging.INFO):
        yield caplog


# ------------------------------------------------------------------------------ recording


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _spec_summary(spec: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": type(spec).__name__}
    for name in ("block_size", "num_kv_heads", "head_size", "sliding_window", "page_size_bytes"):
        value = getattr(spec, name, None)
        if isinstance(value, (int, str)) and not isinstance(value, bool):
            out[name] = value
    return out


def _buckets(kv_cache_spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Layers per distinct spec, in first-seen order (vLLM buckets by spec equality)."""
    counts: dict[Any, int] = {}
    for spec in kv_cache_spec.values():
        counts[spec] = counts.get(spec, 0) + 1
    return [{**_spec_summary(spec), "layers": n} for spec, n in counts.items()]


def _blocks_per_request(groups: list[Any], cfg: Any) -> int | None:
    try:
        total = 0
        for group in groups:
            spec = group.kv_cache_spec
            need, page = spec.max_memory_usage_bytes(cfg), spec.page_size_bytes
            if not isinstance(need, int) or not isinstance(page, int) or page <= 0:
                return None
            total += _cdiv(need, page)
        return total
    except Exception:  # noqa: BLE001  (a test's stand-in config may lack what the spec reads)
        return None


def _add(kind: str, event: dict[str, Any]) -> None:
    if _current:
        _events.setdefault(_current[-1], {}).setdefault(kind, []).append(event)


def _record_plan(kv_cache_spec: dict[str, Any], groups: Any, cfg: Any, buckets: list[dict[str, Any]]) -> None:
    try:
        sizes = [len(g.layer_names) for g in groups]
        _add(
            "plans",
            {
                "buckets": buckets,
                "groups": len(sizes),
                "group_size": max(sizes, default=0),
                "blocks_per_request": _blocks_per_request(list(groups), cfg) if cfg is not None else None,
            },
        )
    except Exception:  # noqa: BLE001, S110  (recording never breaks a vLLM test)
        pass


def _record_capacity(cfg: Any, kv_config: Any) -> None:
    try:
        utils = importlib.import_module("vllm.v1.core.kv_cache_utils")
        tokens: int | None = None
        try:
            conc = utils.get_max_concurrency_for_kv_cache_config(cfg, kv_config)
            tokens = int(float(conc) * int(cfg.model_config.max_model_len))
        except Exception:  # noqa: BLE001  (recording never breaks a vLLM test)
            tokens = None
        _add(
            "capacities",
            {"groups": len(kv_config.kv_cache_groups), "num_blocks": int(kv_config.num_blocks), "tokens": tokens},
        )
    except Exception:  # noqa: BLE001, S110  (recording never breaks a vLLM test)
        pass


def _wrap_outer(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def get_kv_cache_groups(vllm_config: Any, kv_cache_spec: Any, *args: Any, **kwargs: Any) -> Any:
        _configs.append(vllm_config)
        try:
            return fn(vllm_config, kv_cache_spec, *args, **kwargs)
        finally:
            _configs.pop()

    return get_kv_cache_groups


def _wrap_inner(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def planner(kv_cache_spec: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            buckets = _buckets(kv_cache_spec)
        except Exception:  # noqa: BLE001  (recording never breaks a vLLM test)
            buckets = []
        groups = fn(kv_cache_spec, *args, **kwargs)
        # the patched function takes vllm_config (its second parameter); upstream's does not
        cfg = args[0] if args else kwargs.get("vllm_config")
        if cfg is None and _configs:
            cfg = _configs[-1]
        _record_plan(kv_cache_spec, groups, cfg, buckets)
        return groups

    return planner


def _wrap_config(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def get_kv_cache_config_from_groups(vllm_config: Any, *args: Any, **kwargs: Any) -> Any:
        kv_config = fn(vllm_config, *args, **kwargs)
        _record_capacity(vllm_config, kv_config)
        return kv_config

    return get_kv_cache_config_from_groups


def _planning_module() -> Any:
    for name in ("vllm.v1.core.kv_cache_planning", "vllm.v1.core.kv_cache_utils"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(mod, PATCHED_FUNCTION):
            return mod
    raise RuntimeError(f"no vLLM module defines {PATCHED_FUNCTION}")


def pytest_configure(config: pytest.Config) -> None:
    # before collection: test modules that `from ... import get_kv_cache_groups` bind the wrapper
    mod = _planning_module()
    inner = getattr(mod, PATCHED_FUNCTION)
    _info.update(
        {
            "module": mod.__name__,
            "patched_signature": "vllm_config" in inner.__code__.co_varnames[: inner.__code__.co_argcount],
        }
    )
    setattr(mod, PATCHED_FUNCTION, _wrap_inner(inner))
    mod.get_kv_cache_groups = _wrap_outer(mod.get_kv_cache_groups)
    if hasattr(mod, "get_kv_cache_config_from_groups"):
        mod.get_kv_cache_config_from_groups = _wrap_config(mod.get_kv_cache_config_from_groups)
    vllm = importlib.import_module("vllm")
    _info["vllm_version"] = getattr(vllm, "__version__", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    _current.append(item.nodeid)
    try:
        yield
    finally:
        _current.pop()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """One outcome per test: error (setup/teardown failed), failed, skipped or passed."""
    previous = _outcomes.get(report.nodeid)
    if report.failed:
        outcome = "failed" if report.when == "call" else "error"
    elif report.skipped:
        outcome = "skipped"
    else:
        outcome = "passed"
    if previous in ("failed", "error") or (previous == "skipped" and outcome == "passed"):
        return
    _outcomes[report.nodeid] = outcome


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _outcomes[report.nodeid] = "error"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    tests = {nodeid: {"outcome": outcome, **_events.get(nodeid, {})} for nodeid, outcome in _outcomes.items()}
    data = {**_info, "exitstatus": int(exitstatus), "tests": tests}
    tmp = f"{path}.tmp"
    with open(tmp, "w") as fh:
        json.dump(data, fh, sort_keys=True)
    os.replace(tmp, path)
