"""The compile probe's request (prove/target_probe) splices in the served sources and the kept code
as they were serialized once, instead of serializing about 600 kB again for every probe: the request
is the same JSON value as one json.dumps of the whole, ASCII, for generated texts, modules and paths;
and the kept code is serialized once however many probes load it."""

from __future__ import annotations

import base64
import itertools
import json
import sys
from typing import Any

import pytest

from radpatch.prove import target_probe
from tests.lib.generated import sample
from tests.lib.interpreters import OTHER_TARGETS

TEXTS = {
    "ascii": "import os\nx = 1\n",
    "non-ascii": "s = 'é – ü'  # π\n",
    "surrogate": "s = '\udcff'\n",  # a byte the text could not decode, kept as a surrogate escape
    "quotes": 's = "\\"{}}, \\\\"\n',
    "empty": "",
}
MODULES = (None, "pkg.mod")
PATHS = ((), ("/site-packages", "/opt/é"))
CODES = ("none", "kept")
CASES = sample(itertools.product(TEXTS, TEXTS, MODULES, PATHS, CODES))


@pytest.mark.parametrize(("before", "after", "module", "paths", "code"), CASES)
def test_the_request_is_the_whole_serialized_at_once(
    before: str, after: str, module: str | None, paths: tuple[str, ...], code: str
) -> None:
    modules = {"radpatch_names": {"__init__": TEXTS[before]}, "radpatch_placement": {"__init__": "x = 'é'\n"}}
    kept = {"radpatch_names": "AAAA", "radpatch_placement": "BBBB"} if code == "kept" else None
    magic = "6f0d0d0a" if kept else None
    probe = target_probe.Probe("/python", paths, module)
    after_bytes = TEXTS[after].encode("utf-8", "surrogateescape")
    served = json.dumps(modules, sort_keys=True)
    text = target_probe._code_json(("/python", "digest"), kept)
    got = target_probe._request(served, magic, text, TEXTS[before], after_bytes, TEXTS[after], "m.py", probe)
    whole = {
        "modules": modules,
        "magic": magic,
        "code": kept,
        "want_code": kept is None,
        "before": TEXTS[before],
        "after": base64.b64encode(after_bytes).decode("ascii"),
        "after_text": TEXTS[after],
        "filename": "m.py",
        "module": module,
        "paths": list(paths),
        "stdlib": sorted(sys.stdlib_module_names),
    }
    assert got.isascii() and json.loads(got) == whole
    assert json.loads(got) == json.loads(json.dumps(whole).encode("utf-8", "surrogatepass"))


def test_the_kept_code_is_serialized_once_for_every_probe_that_loads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    if not OTHER_TARGETS:
        pytest.skip("no other target Python")
    probe = target_probe.Probe(str(next(iter(OTHER_TARGETS.values()))), (), "m")
    monkeypatch.setattr(target_probe, "_code_memo", {})
    monkeypatch.setattr(target_probe, "_code_text", {}, raising=False)
    target_probe._ask(probe, "x = 1\n", b"x = 2\n", "x = 2\n", "m.py")  # compiles, keeps the code
    ((_, code),) = target_probe._code_memo.values()
    real = json.dumps
    serialized: list[int] = []

    def counting(obj: Any, *args: Any, **kwargs: Any) -> str:
        if obj is code or (isinstance(obj, dict) and any(v is code for v in obj.values())):
            serialized.append(1)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(json, "dumps", counting)
    answers = [target_probe._ask(probe, "x = 1\n", f"x = {i}\n".encode(), f"x = {i}\n", "m.py") for i in range(3, 6)]
    assert all(a.compile_error is None for a in answers)
    assert len(serialized) == 1
