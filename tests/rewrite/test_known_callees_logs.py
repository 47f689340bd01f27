"""Log calls as readers (rewrite.known_callees, att62 F5 and F11): a call on a logger (a name `log`, `logging`,
or ending in `logger`) formats what it is given, vLLM's `logger.warning_once(...)` too; a name merely holding
"log" (`catalog`, `logits_table`) is not a logger; a log call keeps what it is given in the record's `args`,
which a handler or filter the module installs gets (handlers from elsewhere are taken to read it). The
oracle imports the original and the patched module in a fresh interpreter (tests/lib/later_values)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, assert_refused_where_undone, verdict

_LOGGER = "import logging\n\nlogger = logging.getLogger(__name__)\n"
READS = {
    "warning_once": _LOGGER + 'logger.warning_once = logger.warning\nlogger.warning_once("cfg %s", CFG)',
    "info with two arguments": _LOGGER + 'logger.info("cfg %s %s", CFG, 1)',
    "a private logger": 'import logging\n\n_log = logging.getLogger("x")\n_log.debug("cfg %s", CFG)',
}
UNDOES = {
    "catalog.error": "class _Catalog:\n    def error(self, d):\n        d.clear()\n\n\ncatalog = _Catalog()\n"
    "catalog.error(CFG)",
    "a handler changing record.args": _LOGGER + "class _H(logging.Handler):\n    def emit(self, r):\n"
    '        r.args["timeout"] = 1\n\n\nlogger.addHandler(_H())\nlogger.setLevel(logging.INFO)\n'
    'logger.info("%(retries)s", CFG)',
}


@pytest.mark.parametrize("case", list(READS))
def test_a_log_call_reads_the_value(tmp_path: Path, case: str) -> None:
    refused, took, before = verdict(tmp_path, EDITS["set_item"], READS[case])
    assert took, before
    assert refused is None, f"refused, but the log call only formats the value: {refused}"


@pytest.mark.parametrize("case", list(UNDOES))
def test_what_only_looks_like_a_log_call_is_followed_or_refused(tmp_path: Path, case: str) -> None:
    assert_refused_where_undone(tmp_path, EDITS["set_item"], UNDOES[case], True)
