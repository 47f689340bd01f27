"""One release's proof of an entry, in memory (verify runs it in worker processes).

A Job is a stack: the entry's requirements (`requires:`, in the order apply runs them) and the
entry last, each Layer holding the files it rewrites as the release's wheel has them; and candidate
Bases, releases the entry is written for (its declared range), the same files as they
have them: the first where every layer applies shows what the entry's change is. The checks:

  requires    each requirement applies to the release's files first (or the release already
              contains it, or declares it `obsolete:`); the entry is proven on the files as the
              requirements leave them, as apply leaves them
  pristine    the entry's files do not already contain its change: not as status and apply judge
              it (prove.form.carries: the round trip, and not a `with` inside its `find`), and not in any layout
              (radpatch.releases.carried: the change the rewrites make of the base is there)
  match ... idempotent   as apply: the rewrites match, then apply's proof steps, then a second
              apply is a no-op

A failing check is a Refusal (radpatch.prove.refusal), the check's name as its step. The job's
records are radpatch.releases.proof_job's, its state as the checks go radpatch.releases.proof_run's:
callers import them from there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from radpatch.errors import RefusedError
from radpatch.prove.refusal import NOT_IN_EFFECT, Cause, Refusal
from radpatch.prove.steps import STEPS, Case, Step
from radpatch.registry.model import Patch
from radpatch.releases import package_files, shadowed, surroundings
from radpatch.releases.proof_held import _contains, _holds, not_in_effect
from radpatch.releases.proof_job import Checks, File, Job, Proof
from radpatch.releases.proof_run import JobRun

PROOF_STEPS = {s.name: s.meaning for s in STEPS}  # apply's proof, step by step
MEANING = {
    "requires": (
        "the entries it requires claim the release (their own `supported:`) and apply first (or the release already "
        "contains them); the rest runs on their result"
    ),
    "pristine": (
        "the module does not already contain the change, in radpatch's layout or upstream's own (else: obsolete)"
    ),
    "match": "every rewrite matches exactly once",
    **PROOF_STEPS,
    "idempotent": (
        "the patched module classifies as applied (backward then forward reproduces it): a second apply is a no-op"
    ),
}
PROOF = tuple(MEANING)  # the checks that read the modules' text
# a rewrite does not match and no release read as a base has the rewrites apply (the verdict is
# "no match", conservatively: the release may hold the change in upstream's layout)
NO_BASE = (
    "whether it already contains the change in upstream's own layout is not told: the rewrites apply on none of "
    "the releases read as bases; verify it with a release of the declared range they apply to (`--versions`)"
)


def prove(job: Job) -> Proof:
    """Run PROOF over the job, check by check; stop at the first refusal."""
    run = JobRun(job)
    for layer in job.layers:
        for f in layer.files:
            run.data.setdefault(f.relpath, f.data)
    checks: Checks = dict.fromkeys(PROOF)
    for check in PROOF:
        refusal = _CHECKS[check](run)
        if refusal is not None:
            checks[check] = False
            return Proof(checks, refusal, tuple(dict.fromkeys(run.unchecked)))
        checks[check] = True
    return Proof(checks, None, tuple(dict.fromkeys(run.unchecked)))


def _requires(run: JobRun) -> Refusal | None:
    for index, layer in enumerate(run.job.layers[:-1]):
        if layer.declared_obsolete(layer.version):
            continue  # apply leaves it alone there
        for f in layer.files:
            memo = run.memo(layer.patch, f)
            now = run.data[f.relpath]
            try:
                run.data[f.relpath] = memo.forward(now)
            except RefusedError as exc:
                if _contains(run, index, memo, f, now):
                    continue  # the release already has it
                from radpatch.rewrite.refused import short

                return Refusal(
                    "requires",
                    f"{layer.patch.name} (required) does not apply to {f.relpath}: {short(exc)}",
                    f"verify {layer.patch.name} alone; the entry is proven only on what its requirements leave",
                    cause=Cause.REQUIREMENT,
                )
    return None


def _entry_files(run: JobRun) -> list[File]:
    """The entry's files with the bytes the requirements left."""
    return [dataclasses.replace(f, data=run.data[f.relpath]) for f in run.job.entry.files]


def _pristine(run: JobRun) -> Refusal | None:
    patch = run.job.entry.patch
    last = len(run.job.layers) - 1
    for f in _entry_files(run):
        later = shadowed.of(f, f.data)
        if later is not None and later.moved_in(f.module):
            continue  # the code that runs lives in another module: `match` says moved
        if _contains(run, last, run.memo(patch, f), f, f.data):
            return Refusal(
                "pristine",
                f"{f.relpath} already contains this change: the release is obsolete for this patch",
                "declare the releases in `obsolete:` (apply then leaves them alone), or end `supported` before them",
            )
        if later is not None and _holds(run, last, run.memo(patch, f), f, f.data):
            return Refusal(
                "pristine",
                f"{f.relpath}: {NOT_IN_EFFECT}, so the release does not carry the change (not obsolete): "
                + later.describe(),
                "read the release's code: where the change is still needed, patch the definition that runs "
                "(a `versions:` variant of the rewrite); where it is not, declare the release in `obsolete:`",
                cause=Cause.NOT_IN_EFFECT,
                file=f.file,
            )
        if not_in_effect(run, last, run.memo(patch, f), f, f.data):
            return Refusal(
                "pristine",
                f"{f.relpath}: {NOT_IN_EFFECT}, so the release does not carry the change (not obsolete)",
                "read the release's code: where the change is still needed, add a `versions:` variant of the "
                "rewrite that makes it there; where it is not, declare the release in `obsolete:`",
                cause=Cause.NOT_IN_EFFECT,
                file=f.file,
            )
    for f, wheel in zip(_entry_files(run), run.job.entry.files):
        later = shadowed.of(f, f.data)
        part = None if later is not None and later.moved_in(f.module) else _part_present(patch, f, wheel.data)
        if part is not None:
            return part
    return None


def _part_present(patch: Patch, f: File, wheel: bytes) -> Refusal | None:
    """The release's file already holds what some of the entry's rewrites add (upstream took part
    of the change), as apply judges it before planning (prove.form.present, which refuse_if_present
    asks): on the file as the requirements leave it and, as apply asks of a file radpatch has no
    record of, on the release's own bytes (code a requirement inserted is not upstream's)."""
    from radpatch.prove.form import present

    found = present(patch, f.rewrites, f.data, f.relpath)
    if found is None or (wheel != f.data and present(patch, f.rewrites, wheel, f.relpath) is None):
        return None
    rewrites, what = found
    ids = ", ".join(repr(rw.id) for rw in rewrites)
    todo = f"drop rewrite {ids} for this release with a `versions:` variant, or split the entry"
    return Refusal(
        "pristine",
        f"{f.relpath} already contains {what} (upstream took part of the change; apply refuses it): {todo}",
        f"{todo}; if the release needs none of the change, declare it in `obsolete:`",
        rewrites[0].id,
        cause=Cause.PART_PRESENT,
        file=f.file,
    )


def _match(run: JobRun) -> Refusal | None:
    patch = run.job.entry.patch
    for f in _entry_files(run):
        later = shadowed.of(f, f.data)
        if later is not None and later.moved_in(f.module):
            return shadowed.moved(patch.name, f, later)
        try:
            run.after[f.relpath] = run.memo(patch, f).forward(f.data)
        except RefusedError as exc:
            from radpatch.rewrite.refused import RewriteRefused  # loaded by the forward that raised it

            if not isinstance(exc, RewriteRefused):
                return Refusal("match", exc.message, exc.hint or "")
            cause = Cause.SCOPE_GONE if exc.scope_gone else Cause.NO_BASE if _no_base(run, f) else None
            why = f"{exc.message}\n{NO_BASE}" if cause is Cause.NO_BASE else exc.message
            return Refusal("match", why, exc.hint or "", exc.rewrite, cause=cause, file=f.file)
    return _same_code(run)


def _same_code(run: JobRun) -> Refusal | None:
    """Each rewrite changes the same code here as on the nearest release the entry claims where every
    layer applies (radpatch.releases.surroundings): a pattern that still matches once may match other code."""
    from radpatch.rewrite.runner import steps

    patch = run.job.entry.patch
    for ref in run.job.reference:
        got = run.on_base(ref)
        if got is None:
            continue  # the rewrites do not apply there: the next nearest
        theirs = {f.file: f for f in ref.files[-1]}
        for f in _entry_files(run):
            other = theirs.get(f.file)
            if other is None or f.file not in got[-1]:
                continue
            try:
                mismatch = surroundings.compare(
                    steps(patch, other.rewrites, got[-1][f.file][0], other.relpath),
                    steps(patch, f.rewrites, f.data, f.relpath),
                )
            except RefusedError:
                continue
            if mismatch is not None:
                return Refusal(
                    "match",
                    f"{mismatch.describe(ref.version)} ({f.relpath})",
                    "anchor the rewrite on the code it was written for (a longer `find`, or `within:`), "
                    "or write a `versions:` variant of it for this release",
                    mismatch.rewrite,
                    cause=Cause.OTHER_CODE,
                    file=f.file,
                )
        return None
    return None


def _no_base(run: JobRun, f: File) -> bool:
    """Bases were read for the release (verify's second proof) and on none of them does every layer
    apply: whether the release holds the change in upstream's layout was not told (not: it does not)."""
    return run.job.searched and run.change(len(run.job.layers) - 1, f.file) is None


def _proof_step(name: str) -> Callable[[JobRun], Refusal | None]:
    """One of apply's proof steps (prove.steps.STEPS), on this release's module, as its own check."""
    step = next(s for s in STEPS if s.name == name)

    def check(run: JobRun) -> Refusal | None:
        for f in _entry_files(run):
            if name in ("names", "placement") and f.site is not None:
                with package_files.written(f.site) as site:
                    refusal = _one(run, step, f, (site,))
            else:
                refusal = _one(run, step, f, ())
            if refusal is not None:
                return refusal
        return None

    return check


def _one(run: JobRun, step: Step, f: File, site: tuple[str, ...]) -> Refusal | None:
    """One proof step on one of the release's files (`site`: its package's other modules, written out)."""
    patch, name = run.job.entry.patch, step.name
    m = run.memo(patch, f)
    case = Case(
        patch,
        f.rewrites,
        f.data,
        run.after[f.relpath],
        f.relpath,
        None,
        m.forward,
        m.backward,
        module=f.module,
        stars=f.stars,
        version=run.job.python,
        site=site,
    )
    refusal = step.check(case)
    if refusal is not None:
        return Refusal(name, refusal.why, refusal.hint)
    run.unchecked += [f"{f.relpath}: {what}" for what in step.unchecked(case)]
    return None


def _idempotent(run: JobRun) -> Refusal | None:
    patch = run.job.entry.patch
    for f in _entry_files(run):
        if not run.memo(patch, f).reads_patched(run.after[f.relpath]):
            return Refusal(
                "idempotent",
                f"the patched {f.relpath} does not classify as applied (backward then forward does not reproduce it): "
                "a second apply would not be a no-op",
                "a rewrite's result must be what its undo finds: check each rewrite's `with`/`code`",
            )
    return None


_CHECKS: dict[str, Callable[[JobRun], Refusal | None]] = {
    "requires": _requires,
    "pristine": _pristine,
    "match": _match,
    **{name: _proof_step(name) for name in PROOF_STEPS},
    "idempotent": _idempotent,
}
