"""The oracle of the later-change families (tests/rewrite/ops/test_later_*.py): the original and the
patched module imported in a fresh interpreter of this Python, and the value a name ends with in
each compared (issue 21, att51 #4; later53 folded the families' four copies into this one).

What is compared of the value: a dict, list, set, tuple or scalar as it is; a class's bases (their
names) and metaclass; a function's `__defaults__` and `__kwdefaults__`; any other object's
attributes (`vars`). The name is read from class `K` when the module has one (the class-body
scope), else from the module."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.lib.fresh_runs import fresh_run

_RUN = """
import importlib, sys
sys.path.insert(0, sys.argv[1])
def state(v):
    if isinstance(v, type):
        return [b.__name__ for b in v.__bases__], type(v).__name__
    if callable(v) and hasattr(v, "__defaults__"):
        return v.__defaults__, v.__kwdefaults__
    return v if isinstance(v, (dict, list, set, tuple, int, float, str, type(None))) else vars(v)
def value(name):
    try:
        m = importlib.import_module(name)
    except Exception:
        return "raised"
    return state(getattr(getattr(m, "K", m), sys.argv[2]))
a, b = value("original"), value("patched")
back = sys.argv[3] == "remove" and b != "raised" and eval(sys.argv[4]) in b  # a removed element or key put back
if sys.argv[3] == "add" and "raised" not in (a, b):
    back = b.count(eval(sys.argv[4])) <= a.count(eval(sys.argv[4]))  # an element added taken again (att56 F6)
print("same" if a == "raised" or b == "raised" or a == b or back else "differs", a == "raised")
"""


def took_effect(
    tmp: Path,
    original: str,
    patched: str,
    name: str,
    removed: str | None = None,
    added: str | None = None,
) -> bool | None:
    """Whether the patched module ends with another value of `name` than the original (None: the
    original does not import; False: the patched one does not either). For a removal, `removed` (the
    element or key, as Python text) must stay out of it too (att52 #2a: one put back undoes it). For a
    list element `added` (as Python text), the edit must be in effect (att56 F6: `FLAGS.pop()` takes a
    "c" added last): the element there more times than in the original's value."""
    (tmp / "original.py").write_text(original)
    (tmp / "patched.py").write_text(patched)
    edit = ["remove", removed] if removed else ["add", added] if added else ["differs"]
    out = fresh_run(sys.executable, _RUN, [str(tmp), name, *edit])
    assert out.returncode == 0, out.stderr
    said, broken = out.stdout.split()
    return None if broken == "True" else said == "differs"
