"""`except E as f:` binds f and deletes it when the handler ends: a def `f` the patch changes before
such a handler (in the same scope) is gone, or replaced, after any run that raises E.

Generated: handler spellings (one name, a tuple of errors, a second handler, with else or finally,
a handler that reads the error) and controls (another name, no name, a handler in a function
body), at module level, inside `if True:` and in a class body (method f), for a run that raises
and one that does not. Every patched module is imported in a subprocess: the proof must refuse each
patch whose def does not run on some run, and accept every control, whose def always runs.
"""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from radpatch.rewrite.ops.replace import Replace
from tests.lib.def_runs import patched, refusal, runs
from tests.lib.generated import sample

HANDLERS = {  # the try statement after the def; RAISE: whether its body raises ValueError
    "as": "except ValueError as f:\n    pass\n",
    "tuple": "except (KeyError, ValueError) as f:\n    pass\n",
    "second-handler": "except KeyError:\n    pass\nexcept ValueError as f:\n    pass\n",
    "with-else": "except ValueError as f:\n    pass\nelse:\n    pass\n",
    "with-finally": "except ValueError as f:\n    pass\nfinally:\n    pass\n",
    "reads-error": "except ValueError as f:\n    _seen = repr(f)\n",
}
CONTROLS = {
    "other-name": "except ValueError as e:\n    pass\n",
    "no-name": "except ValueError:\n    pass\n",
}
PLACES = ("module", "in-if", "class")
CASES = sample(itertools.product([*HANDLERS, *CONTROLS, "in-function"], PLACES))


def source(handler: str, place: str, raises: bool) -> str:
    body = "def f():\n    return 'old'\n\n\n"
    if handler == "in-function":
        tail = "def _k():\n    try:\n        raise ValueError\n    except ValueError as f:\n        pass\n"
    else:
        tail = "try:\n    if RAISE:\n        raise ValueError\n" + {**HANDLERS, **CONTROLS}[handler]
    block = body + tail
    if place == "in-if":
        block = "if True:\n" + textwrap.indent(block, "    ")
    elif place == "class":
        block = "class C:\n" + textwrap.indent(block, "    ")
    return f"RAISE = {raises}\n\n\n" + block


SHOWS = {"class": "mod.C.f() == 'new'"}
OP = Replace("C.f", "'old'", "'new'")


def op(place: str) -> Replace:
    return OP if place == "class" else Replace("f", "'old'", "'new'")


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], list[object]]:
    modules: dict[str, tuple[str, str]] = {}
    where: dict[tuple[str, str], list[str]] = {}
    for n, (handler, place, raises) in enumerate((*c, r) for c in CASES for r in (True, False)):
        text = patched(op(place), source(handler, place, raises), f"rp_exc_{n}")
        assert text is not None and "'new'" in text
        modules[f"rp_exc_{n}"] = (text, SHOWS.get(place, "mod.f() == 'new'"))
        where.setdefault((handler, place), []).append(f"rp_exc_{n}")
    found = runs(modules, Path(tmp_path_factory.mktemp("except")))
    return {case: [found[p] for p in pkgs] for case, pkgs in where.items()}


@pytest.mark.parametrize(("handler", "place"), CASES, ids=["-".join(c) for c in CASES])
def test_a_handler_that_unbinds_the_def_refuses(
    truth: dict[tuple[str, str], list[object]], handler: str, place: str
) -> None:
    ran = truth[handler, place]
    said = refusal(op(place), source(handler, place, True))
    if handler in HANDLERS:
        assert not all(r is True for r in ran), ran  # the raising run loses the patched def
        assert said is not None and "`f`" in said and "replaces" in said, said
    else:
        assert all(r is True for r in ran), ran
        assert said is None, said
