"""The oracle of the names step's generated families: the generated code, run as Python."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable


def f_raises_name_error(
    source: str, calls: Iterable[tuple[object, ...]], expected: tuple[type[BaseException], ...] = ()
) -> bool:
    """Whether `f(*args)` of `source` (a module defining `f`) raises NameError (UnboundLocalError is
    one) for any of `calls`; an exception of a type in `expected` ends that call as the code meant to."""
    namespace: dict[str, object] = {}
    exec(compile(source, "generated.py", "exec"), namespace)
    for args in calls:
        try:
            namespace["f"](*args)  # type: ignore[operator]
        except NameError:
            return True
        except expected:
            continue
    return False


def raises_anywhere(source: str, run: Callable[[dict[str, object], int], object]) -> bool:
    """Does running `source`'s module, then `run(namespace, a)` for a = 0 and 1, raise NameError
    anywhere, a thread's included? (the stored- and kept-callback families' oracle)"""
    seen: list[type[BaseException]] = []
    hook = threading.excepthook
    threading.excepthook = lambda args: seen.append(args.exc_type)
    try:
        namespace: dict[str, object] = {}
        exec(compile(source, "generated.py", "exec"), namespace)
        for a in (0, 1):
            try:
                run(namespace, a)
            except NameError:
                return True
    finally:
        threading.excepthook = hook
    return any(issubclass(e, NameError) for e in seen)


# the kept-callback families' module prelude after `KEPT = []`: a holder object, a function that
# keeps what it is passed, one that runs a container's, and run_kept (what was kept, run once f returned)
KEEPING = """class Box:
    pass


BOX = Box()


def keep(fn):
    KEPT.append(fn)
    return fn


def other():
    return None


def run_all(cbs):
    for cb in cbs:
        cb()


def run_kept():
    kept = KEPT[:] + ([BOX.__dict__.pop("cb")] if "cb" in BOX.__dict__ else [])
    KEPT.clear()
    for fn in kept:
        fn()


"""
# how f keeps g (its store) and runs what it kept (its run), in the two families' first nine ways
KEPT_WAYS = {
    "a Thread": ("k = threading.Thread(target=g)\n", "k.start()\nk.join()\n"),
    "a partial": ("k = functools.partial(g)\n", "k()\n"),
    "a list display": ("k = [g]\n", "for cb in k:\n    cb()\n"),
    "appended to a list": ("k = []\nk.append(g)\n", "for cb in k:\n    cb()\n"),
    "stored into a dict": ("k = {}\nk['g'] = g\n", "for cb in k.values():\n    cb()\n"),
    "added to a set": ("k = set()\nk.add(g)\n", "x = [cb() for cb in k]\n"),
    "a tuple passed on": ("k = (g,)\n", "run_all(k)\n"),
    "grown with +=": ("k = []\nk += [g]\n", "for cb in k:\n    cb()\n"),
    "grown with |=": ("k = set()\nk |= {g}\n", "x = [cb() for cb in k]\n"),
}
