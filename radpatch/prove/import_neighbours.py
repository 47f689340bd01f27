"""The import check past the patched module itself: once it imports, each module of its package on an
import cycle a new import of the patch closes, imported first (`_first_in_cycle`, cycles.py), and
the modules of its package that import it, imported after it (`_then_importers`,
import_importers.py); a failure both runs share is judged by import_failures.py (`_judge`). For
`import_check`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from radpatch.prove.cycles import closed_cycles
from radpatch.prove.import_failures import Attempt, Judged, judge
from radpatch.prove.import_importers import importers
from radpatch.prove.import_process import Served, attempt, attempts
from radpatch.prove.import_verdict import ImportCheckVerdict, Result, import_name
from radpatch.prove.plan import PlannedFile


def _judge(
    executable: str, after: Attempt, before: Attempt, patched: Served, pristine: Served, timeout: float
) -> Judged:
    """Both imports failed: whose failure it is (import_failures.judge), asking the pristine install
    to import, on its own, a module the patched import failed in."""
    names = {p: m for m, p in patched.modules.items()}
    return judge(
        after, before, patched.files, pristine.files, names, lambda m: attempt(executable, pristine, m, timeout)
    )


def _first_in_cycle(
    executable: str,
    planned: Sequence[tuple[str, PlannedFile]],
    patched: Served,
    pristine: Served,
    module: str,
    who: tuple[str, ...],
    timeout: float,
) -> ImportCheckVerdict:
    """`module` imports once patched; so must each module of its package on an import cycle a new
    import of the patch closes, imported first (each in its own subprocess, patched, then pristine
    if that fails): `b` imports `a`, the patch makes `a` import from `b`, and `import b` fails."""
    changes = [c for _, c in planned if import_name(c.module) == module]
    if not changes:
        return ImportCheckVerdict(module, who, Result.OK)
    first, last = changes[0], changes[-1]
    root = _root(first)
    if root is None:
        return ImportCheckVerdict(module, who, Result.OK)
    cycle = closed_cycles(root, module, first.before, last.after, patched.files)
    for other in cycle:
        after = attempt(executable, patched, other, timeout)
        if after.ok or after.timed_out or after.on_write:
            continue
        before = attempt(executable, pristine, other, timeout)
        judged = (
            Judged(True, after.described)
            if before.ok
            else _judge(executable, after, before, patched, pristine, timeout)
        )
        if judged.refused:  # the pristine module imports, or fails otherwise: the failure is the cycle's
            why = f"importing {other} first (it imports {module} back, a cycle the patch closes): {judged.reason}"
            return ImportCheckVerdict(module, who, Result.REFUSED, why, unpatched_imports=before.ok)
    return ImportCheckVerdict(module, who, Result.OK)


def _root(change: PlannedFile) -> Path | None:
    """The site directory `change`'s module is imported from (its top-level package's parent)."""
    depth = len(change.module.split(".")) - 1
    if change.path.name == "__init__.py" and not change.module.endswith(".__init__"):
        depth += 1  # `pkg.sub` names pkg/sub/__init__.py
    return change.path.parents[depth] if len(change.path.parents) > depth else None


def _then_importers(
    executable: str,
    planned: Sequence[tuple[str, PlannedFile]],
    patched: Served,
    pristine: Served,
    verdict: ImportCheckVerdict,
    timeout: float,
) -> ImportCheckVerdict:
    """`verdict.module` imports once patched; so must each module of its package that imports it
    (import_importers.py), imported after it in one subprocess; only if one fails, the same run
    pristine. A failure only the patch causes is a refusal naming the importer."""
    module = verdict.module
    change = next((c for _, c in planned if import_name(c.module) == module), None)
    root = _root(change) if change is not None and verdict.result is Result.OK else None
    if change is None or root is None:
        return verdict
    package = change.path.name == "__init__.py"
    found = importers(root, module, package, patched.files, set(patched.modules))
    if not found:
        return verdict
    names = found.names
    if found.unchecked or found.deeper:
        more = f"{found.unchecked} more found were not checked" if found.unchecked else ""
        farther = "farther ones were not looked for" if found.deeper else ""
        said = f"{more}, nor were farther ones looked for" if more and farther else more or farther
        verdict = replace(
            verdict,
            note=f"; of the modules that import it, {len(names)} {'was' if len(names) == 1 else 'were'} checked, "
            f"nearest first: {said}",
        )
    main, after = attempts(executable, patched, module, names, timeout)
    if main.ok and all(a.ok for a in after):
        return verdict
    base, before = attempts(executable, pristine, module, names, timeout)
    if not main.ok:  # the run ended or hung in an importer (the module imports on its own)
        if base.ok and all(b.ok for b in before):
            why = f"importing the modules that import it ({', '.join(names)}) {main.error}; unpatched, they import"
            return ImportCheckVerdict(module, verdict.patches, Result.REFUSED, why)
        why = f"the modules that import it ({', '.join(names)}) could not be checked: importing them {main.error}"
        return ImportCheckVerdict(
            module, verdict.patches, Result.INCONCLUSIVE, why + ", unpatched too", note=verdict.note
        )
    for name, a, b in zip(names, after, before if len(before) == len(after) else [None] * len(after)):
        if a.on_write:
            why = f"importing {name} after it (it imports {module}): {a.on_write}"
            return ImportCheckVerdict(module, verdict.patches, Result.INCONCLUSIVE, why, note=verdict.note)
        if a.ok or b is None:
            continue
        unpatched = f"{a.described}; unpatched, {name} imports"
        judged = Judged(True, unpatched) if b.ok else _judge(executable, a, b, patched, pristine, timeout)
        if judged.refused:  # the module itself imports: said in the reason, not as `unpatched_imports`
            why = f"importing {name} after it (it imports {module}): {judged.reason}"
            return ImportCheckVerdict(module, verdict.patches, Result.REFUSED, why)
    return verdict
