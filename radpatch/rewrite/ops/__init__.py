"""The rewrite operations: one module each (or one per family: decorators, bodies), found here.

A module of this package holds its operation whole: the spec (a frozen dataclass subclassing
registry.model.Operation: its YAML key, FIELDS, EXAMPLE and docstring), how it finds its anchor,
how it applies, its inverse, how it describes itself, and the hooks the pipeline asks it
(`scope_name`, `may_be_present`, `REPEATABLE`, `read`/`build` for checks the loader cannot make
from the fields alone). The loader, the JSON Schema, the reference in docs/registry.md and the
runner find the operations through OPERATIONS: adding one is adding a module (and its tests).

Loading a registry imports these modules, so their top level is light (stdlib, registry.model,
registry.code, rewrite.source); libcst and the matching code load when forward() or inverse() first
runs.
`common` is the one module that is not an operation: their shared libcst helpers.

forward(src, op) applies one rewrite; inverse(src, op) undoes it structurally: the result is
AST-equal to the code before (the exact original bytes come from the copy radpatch keeps).
Both raise matching.MatchFailure (with a hint fitting the cause) unless their anchor is found.
"""

from __future__ import annotations

import importlib
import pkgutil

from radpatch.registry.model import Operation
from radpatch.rewrite.source import Source

_HELPERS = frozenset({"common"})  # modules of this package that are not operations


def _discover() -> dict[str, type[Operation]]:
    """YAML key -> the spec it loads into, from every operation module of this package, by key."""
    found: dict[str, type[Operation]] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name in _HELPERS or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Operation)
                and value.__module__ == module.__name__
                and "KEY" in vars(value)
            ):
                for key in value.keys():
                    if key in found:  # a programming error of radpatch's own, caught by any test
                        raise ImportError(f"{key!r} is declared by {found[key].__module__} and {module.__name__}")
                    found[key] = value
    return dict(sorted(found.items()))


OPERATIONS: dict[str, type[Operation]] = _discover()


def forward(src: Source, op: Operation) -> Source:
    from radpatch.rewrite.ops.common import code_errors

    with code_errors():
        if getattr(op, "occurrence", None) == "all":
            return _every(src, op, undo=False)
        return op.forward(src)


def inverse(src: Source, op: Operation) -> Source:
    from radpatch.rewrite.ops.common import code_errors

    with code_errors():
        if getattr(op, "occurrence", None) == "all":
            return _every(src, op, undo=True)
        return op.inverse(src)


def _every(src: Source, op: Operation, undo: bool) -> Source:
    """`occurrence: all`: the edit once per match, the last match first (so editing one leaves the
    matches before it where they were, and counting them again finds the same ones). No match is
    the operation's own refusal. An operation whose edit replaces what it matched (CONSUMES) is
    refused where its result is in the code already: undoing every match of its result would
    undo that code too."""
    from radpatch.rewrite.matching import MatchFailure
    from radpatch.rewrite.ops.common.match_probe import picking, probe

    run = op.inverse if undo else op.forward
    found = probe(lambda: run(src))
    if found is None:  # it chose among no matches (delete's inverse puts back every deleted statement itself)
        return run(src)
    if not found:
        return run(src)  # the refusal that no match gives
    if not undo and op.CONSUMES:
        try:
            there = probe(lambda: op.inverse(src))
        except MatchFailure:
            there = []
        if there is None or there:
            lines = ", ".join(str(line) for line, _ in there or [])
            raise MatchFailure(
                "the rewrite's result is in the code already"
                + (f" (line {lines})" if lines else "")
                + ": with `occurrence: all`, undoing it would change that code too",
                "list the matches to change by number instead: one rewrite per `occurrence: N`",
            )
    for index in range(len(found), 0, -1):
        with picking(index):
            src = run(src)
    return src
