"""Names a module binds across try/except (a faster library, else the standard one) are bound:
a new constant that reads one after the `try` is correct and must pass the names proof; one
placed before the `try` reads it before it exists and must be refused.

Generated: try/except shapes that bind `json` (import or assignment, in the body, the handler,
`else`, nested, with `finally`, inside an `if`) times the ways a new constant reads it. Every
module is run, with the fast library absent (the fallback path) and present (a stub module):
the proof must refuse exactly the modules that raise NameError.
"""

from __future__ import annotations

import itertools
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from radpatch.prove.names import introduced
from tests.lib.generated import sample

TRIES = {
    "import-import": "try:\n    import _rp_fastjson as json\nexcept ImportError:\n    import json\n",
    "import-from": "try:\n    from _rp_fastjson import json\nexcept ImportError:\n    import json\n",
    "import-none": "try:\n    import _rp_fastjson as json\nexcept ImportError:\n    json = None\n",
    "modulenotfound": "try:\n    import _rp_fastjson as json\nexcept ModuleNotFoundError:\n    import json\n",
    "tuple-handler": "try:\n    import _rp_fastjson as json\nexcept (ImportError, AttributeError):\n    import json\n",
    "else": "try:\n    import _rp_fastjson\nexcept ImportError:\n    import json\nelse:\n    json = _rp_fastjson\n",
    "finally": "try:\n    import _rp_fastjson as json\nexcept ImportError:\n    import json\nfinally:\n    pass\n",
    "nested": (
        "try:\n    import _rp_fastjson as json\nexcept ImportError:\n    try:\n        import _rp_other as json\n"
        "    except ImportError:\n        import json\n"
    ),
    "in-if": "if True:\n    try:\n        import _rp_fastjson as json\n    except ImportError:\n        import json\n",
    "two-handlers": (
        "try:\n    import _rp_fastjson as json\nexcept ModuleNotFoundError:\n    import json\nexcept ImportError:\n"
        "    import json\n"
    ),
}

READS = {
    "attribute": "DUMPS = json and json.dumps\n",
    "call": "NAME = getattr(json, '__name__', None)\n",
    "tuple": "BOTH = (json, 1)\n",
    "annotated": "CODEC: object = json\n",
    "class-body": "class Codec:\n    impl = json\n",
    "default": "def encode(x, impl=json):\n    return impl\n",
    "decorator-arg": "def deco(x):\n    return lambda f: f\n\n\n@deco(json)\ndef g():\n    return 1\n",
}


@contextmanager
def fast_library(present: bool) -> Iterator[None]:
    stub = types.ModuleType("_rp_fastjson")
    stub.json = stub  # type: ignore[attr-defined]
    stub.dumps = repr  # type: ignore[attr-defined]
    if present:
        sys.modules["_rp_fastjson"] = stub
    try:
        yield
    finally:
        sys.modules.pop("_rp_fastjson", None)


def fails_when_run(source: str) -> bool:
    for present in (False, True):
        with fast_library(present):
            try:
                exec(compile(source, "generated.py", "exec"), {"__name__": "generated"})
            except NameError:
                return True
    return False


CASES = sample(itertools.product(TRIES, READS, ("after", "before")))


@pytest.mark.parametrize(("shape", "read", "where"), CASES, ids=["-".join(c) for c in CASES])
def test_a_constant_reading_a_try_bound_name_passes_after_the_try_and_is_refused_before_it(
    shape: str, read: str, where: str
) -> None:
    before = "import os\n" + TRIES[shape] + "\n\ndef f():\n    return json\n"
    new = READS[read]
    after = (
        "import os\n" + TRIES[shape] + new + "\n\ndef f():\n    return json\n"
        if where == "after"
        else "import os\n" + new + TRIES[shape] + "\n\ndef f():\n    return json\n"
    )
    assert not fails_when_run(before)
    found = [p for p in introduced(before, after, "m.py") if p.name == "json"]
    assert bool(found) == fails_when_run(after) == (where == "before"), (after, found)
    if found:
        assert "before the module defines it" in found[0].describe()
