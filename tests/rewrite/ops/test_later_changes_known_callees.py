"""Functions and decorators from elsewhere whose effect radpatch knows (rewrite.known_callees), by what the
module's imports make of their names: real vLLM 0.34.0 refused a set_item on a cache a function decorated
`@contextmanager` fills (`_pinned` in deepseek_v41's mxfp8.py; the decorator was taken for code that may run the
function) and an add_element on a list passed to `torch.tensor`.

Generated: the container edits of tests/lib/escape_edits x a function of the module that undoes the edit (or its
twin, another key or element) x how it is reached: decorated by a wrapper (WRAPPERS), or the value passed at
import to a reader (READERS), or to a call radpatch cannot know (UNKNOWN: `subprocess.run`, whose result keeps the
list as `.args`; a reader's name imported from elsewhere or bound again, att61 F8/F9), which refuses; and the
controls, which must refuse where the edit is undone: a decorator of the same name the module defines itself or
imports from elsewhere, and that calls the function, a decorator expression that calls it; beside a reader, the
value passed to a function of the module that undoes the edit. The oracle imports the original and the patched
module in a fresh interpreter (tests/lib/later_values): a wrapper runs nothing and a reader changes nothing, so
the edit applies and takes effect."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, verdict
from tests.lib.generated import sample

_USE = "def _use():\n    try:\n        {s}\n    except Exception:\n        pass\n"
WRAPPERS = {  # (imports, decorator line): `_use` decorated, then the decorated name called nowhere
    "contextmanager": ("from contextlib import contextmanager", "@contextmanager"),
    "cache (from functools)": ("from functools import cache", "@cache"),
    "contextlib.contextmanager": ("import contextlib", "@contextlib.contextmanager"),
    "functools.lru_cache(...)": ("import functools", "@functools.lru_cache(maxsize=None)"),
    "functools.cache": ("import functools", "@functools.cache"),
    "functools.wraps(...)": ("import functools\n\n\ndef _other():\n    pass", "@functools.wraps(_other)"),
    "abstractmethod": ("from abc import abstractmethod", "@abstractmethod"),
    "typing.overload": ("import typing", "@typing.overload"),
}
READERS = {  # (imports, the call at import, given the value itself as {v})
    "os.path.join": ("import os", "os.path.join('a', {v})"),
    "shlex.join": ("import shlex", "shlex.join({v})"),
    "itertools.chain": ("import itertools", "ALL = list(itertools.chain({v}, ['z']))"),
    "chain (from itertools)": ("from itertools import chain", "ALL = list(chain({v}, ['z']))"),
    "json.dumps as imported": ("import json as j", "j.dumps(sorted({v}))"),
    "max of it": ("", "M = max({v})"),
}
# not known: what the call gives back holds the value (`.args`), or the name is imported from elsewhere or
# bound again; refused wherever the value goes there (its own function undoing the edit or not)
UNKNOWN = {
    "subprocess.run": ("import subprocess, sys", "subprocess.run({v}, executable=sys.executable, capture_output=True)"),
    "json from elsewhere": ("import pprint as json", "json.dumps({v})"),
    "json.dumps bound again": ("import json\n\njson.dumps = repr", "json.dumps({v})"),
    "max of several": ("", "M = max({v}, [], key=len)"),  # gives back the value itself (att61 F5)
    "dict holding it": ("", "D = dict(k={v})"),
}
# controls: the function does run (a decorator of that name the module defines, one given as an expression)
CONTROLS = {
    "own contextmanager": ("def contextmanager(f):\n    f()\n    return f", "@contextmanager"),
    "decorator expression": ("", "@(lambda f: f() or f)"),
    "contextmanager from elsewhere": ("from operator import call as contextmanager", "@contextmanager"),
}
KEYS = ("undo", "twin")
EDITED = [e for e in EDITS if e in ("set_item", "add_element list", "add_element set", "remove_element set")]


def later_text(edit: str, how: str, key: str) -> str:
    e = EDITS[edit]
    statement = (e.undo if key == "undo" else e.twin).format(v=e.name)
    use = _USE.format(s=f"global {e.name}\n        {statement}")
    if how in READERS or how in UNKNOWN:
        imports, call = {**READERS, **UNKNOWN}[how]
        mutate = f"\n\ndef _reader(x):\n    _use()\n    return x\n\n\n_reader({e.name})" if key == "undo" else ""
        call = f"try:\n    {call.format(v=e.name)}\nexcept Exception:\n    pass"  # a dict is no command line
        return f"{imports}\n\n\n{use}\n\n{call}\n{mutate}\n"
    imports, line = {**WRAPPERS, **CONTROLS}[how]
    return f"{imports}\n\n\n{line}\n{use}"


CASES = sample([(e, h, k) for e in EDITED for h in [*WRAPPERS, *READERS, *UNKNOWN, *CONTROLS] for k in KEYS])


@pytest.mark.parametrize(("edit", "how", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_a_known_wrapper_or_reader_leaves_the_value_alone(tmp_path: Path, edit: str, how: str, key: str) -> None:
    if how == "contextmanager from elsewhere" and sys.version_info < (3, 11):
        pytest.skip("operator.call is new in Python 3.11")
    later = later_text(edit, how, key)
    refused, took, before = verdict(tmp_path, EDITS[edit], later)
    assert took is not None, f"the original does not import:\n{before}"
    if how in CONTROLS and key == "undo":
        assert not took, f"the oracle: the control runs the function that undoes the edit\n{before}"
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"
    elif how in UNKNOWN:
        assert refused is not None, f"applied, but radpatch cannot know what the call does with the value:\n{before}"
    elif how in READERS and key == "undo":
        # the reader changes nothing, but the module's own function the value is passed to does undo it
        assert not took and refused is not None, f"applied, but the module ends with the same value:\n{before}"
    else:
        assert took, f"the oracle: the edit is undone\n{before}"
        assert refused is None, f"refused, but the edit takes effect: {refused}\n{before}"
