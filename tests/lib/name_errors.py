"""The oracle of the names step's generated families: the generated code, run as Python."""

from __future__ import annotations

from collections.abc import Iterable


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
