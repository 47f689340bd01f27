"""The placement step: a definition the patch adds shadows the module's own, a rewrite lands in dead
or unreachable code, or a later star import or dynamic store rebinds what it changed (the placement
package's analysis), and which rewrite shows it."""

from __future__ import annotations

import ast
from collections.abc import Callable

from radpatch.errors import RefusedError
from radpatch.gcpause import pausing
from radpatch.install.environment import PythonEnv
from radpatch.prove import enum_members, guarded_imports, names, placement, star_exports
from radpatch.prove.analysis import analysis_of, forward, on_target, other_python
from radpatch.prove.names.import_lookup import resolved
from radpatch.prove.names_check import own_modules
from radpatch.prove.refusal import FALLBACK_HINT, PLACEMENT_HINT, REBIND_HINT, UNREACHABLE_HINT, Refusal
from radpatch.registry.model import Patch, Rewrite, creates

_PLACEMENT_HINTS = {
    "shadowed": PLACEMENT_HINT,
    "dead_changes": PLACEMENT_HINT,
    "unreachable_changes": UNREACHABLE_HINT,
    "rebound_changes": REBIND_HINT,
    "fallback_changes": FALLBACK_HINT,
}


def _rebound_check(
    python: PythonEnv | None,
    me: tuple[str, bool] | None,
    stars: tuple[star_exports.ModuleSource, ...] | None = None,
    own: tuple[str, ...] = (),
) -> Callable[[placement.Placement, placement.Placement], list[str]]:
    """placement.rebound_changes, with what a later star import binds told by one rule
    (star_exports): its module read from the target's path (apply), or from `stars`, the modules
    verify read from the release's wheel. Without either, or for a module of `own` (the patch's
    modules: their planned text is not what the files hold), a star import after the change is refused."""
    star_binds: placement.StarBinds | None = None
    read: star_exports.Read | None = None
    submodule: star_exports.Submodule = star_exports.no_submodule_known
    if python is not None:
        read, submodule = star_exports.path_reader([str(p) for p in python.paths], own)
    elif stars is not None:
        read = star_exports.wheel_reader(stars, own)
    if read is not None:
        reader = read

        def star_binds(star: tuple[int, str | None], name: str) -> bool | None:
            base = resolved(ast.ImportFrom(module=star[1], names=[], level=star[0]), me)
            return None if base is None else star_exports.star_binds(reader, base, name, submodule)

    def rebound_changes(before: placement.Placement, after: placement.Placement) -> list[str]:
        return placement.rebound_changes(before, after, star_binds)

    return rebound_changes


def _unreachable_check(
    version: tuple[int, int] | None,
) -> Callable[[placement.Placement, placement.Placement], list[str]]:
    """placement.unreachable_changes, with the tests on the Python version decided for the target's
    `version` (placement.target_version): a branch dead on the target is dead code, as `if False:` is."""
    if version is None:
        return placement.unreachable_changes

    def unreachable_changes(before: placement.Placement, after: placement.Placement) -> list[str]:
        return placement.unreachable_changes(
            placement.with_version(before, version), placement.with_version(after, version)
        )

    return unreachable_changes


def _fallback_check(
    python: PythonEnv | None, me: tuple[str, bool] | None
) -> Callable[[placement.Placement, placement.Placement], list[str]]:
    """The handlers of a guarded import (`try: from fast import f` / `except ImportError: def f`) the
    patch changes, leaving the import alone, where the target interpreter, asked in a subprocess
    (guarded_imports), says the import succeeds: the changed code never runs there. Undecided is
    refused too, saying why. Without a target (verify) the check is left open."""

    def fallback_changes(before: placement.Placement, after: placement.Placement) -> list[str]:
        if python is None:
            return []
        found = (
            _fallback_refusal(python, f, me) for f in placement.changed_fallbacks(before.fallbacks, after.fallbacks)
        )
        return [said for said in found if said]

    return fallback_changes


def _fallback_refusal(python: PythonEnv, f: placement.Fallback, me: tuple[str, bool] | None) -> str | None:
    """What refuses a patch of fallback `f`, or None where the target runs it."""
    runs, said = guarded_imports.handler_runs(python, f, me)
    if runs:
        return None
    imports = "; ".join(f"`{i}`" for i in f.imports[f.given :])
    caught = ", ".join(f.caught) or "everything"
    where = (
        f"its code is in the fallback at line {f.handler_line} (the handler of the `try:` at line {f.line}, "
        f"catching {caught}), which runs only where {imports} fails"
    )
    if runs is False:
        return f"{where}; on the target {said}, so the patched fallback never runs"
    return f"{where}; whether it fails on the target is not told ({said})"


def _on_target(
    python: PythonEnv, me: tuple[str, bool] | None, found: tuple[tuple[str, str], ...]
) -> list[tuple[str, str]]:
    """What the target interpreter's placement checks found (prove/target_probe), with the fallbacks
    it hands back (`fallback_candidates`) asked of the target as fallback_changes does."""
    out = []
    for check_name, said in found:
        if check_name != "fallback_candidates":
            out.append((check_name, said))
            continue
        refusal = _fallback_refusal(python, placement.Fallback.from_json(said), me)
        if refusal:
            out.append(("fallback_changes", refusal))
    return out


def _placed(
    check: Callable[[placement.Placement, placement.Placement], list[str]],
    before: bytes,
    after: bytes,
    me: tuple[str, bool] | None = None,
) -> list[str]:
    old, new = analysis_of(before, me).placement, analysis_of(after, me).placement
    return [] if old is None or new is None else check(old, new)


def _unparsable(before: bytes, after: bytes, me: tuple[str, bool] | None) -> bool:
    return bool({analysis_of(before, me).unparsed, analysis_of(after, me).unparsed} & {"SyntaxError", "ValueError"})


@pausing
def placement_refusal(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    before: bytes,
    after: bytes,
    filename: str,
    python: PythonEnv | None = None,
    module: str | None = None,
    stars: tuple[star_exports.ModuleSource, ...] | None = None,
    target_version: tuple[int, int] | None = None,
    site: tuple[str, ...] = (),
) -> Refusal | None:
    """A definition the patch adds shadows the module's own, or a rewrite lands in dead code. A module
    in a newer grammar than radpatch's own Python reads is judged by the target interpreter. A module
    the rewrites create is written whole: it has no code of its own to shadow or leave dead (a name
    defined twice in it is the author's, as Python runs it), so it is not checked. `target_version`:
    the target's major.minor when there is no interpreter (verify), for the tests on the version;
    `site`: verify's directory of the package's other modules (an enum base another module defines)."""
    if creates(rws):
        return None
    me = names.module_of(module, filename)  # the key the names step analysed both versions under: one parse each
    paths = [str(p) for p in python.paths] if python is not None else list(site)
    member = enum_members.enum_refusal(
        rws, before, filename, me, star_exports.path_reader(paths)[0], enum_members.asker(python, me)
    )
    if member is not None:
        return member
    old, new = analysis_of(before, me), analysis_of(after, me)
    if (old.placement is None or new.placement is None) and other_python(python) and _unparsable(before, after, me):
        assert python is not None
        found_there = _on_target(python, me, on_target(python, before, after, filename, module).placement)
        if not found_there:
            return None
        k: int | None = len(rws)
        if len(rws) > 1:
            try:
                k = placement.first_failing(
                    len(rws),
                    lambda k: bool(
                        _on_target(
                            python,
                            me,
                            on_target(
                                python, before, forward(patch, rws[:k], before, filename), filename, module
                            ).placement,
                        )
                    ),
                )
            except RefusedError:  # a prefix radpatch's own Python cannot run: name the last rewrite
                k = len(rws)
        check_name, said = found_there[0]
        hint = _PLACEMENT_HINTS.get(check_name, PLACEMENT_HINT)
        if not rws:
            return Refusal("placement", f"the patched {filename}: {said}", hint)
        rw = rws[(k or len(rws)) - 1]
        return Refusal("placement", f"rewrite {rw.id!r} ({rw.location}) on {filename}: {said}", hint, rw.id)
    if old.placement is None or new.placement is None:
        why = (
            f"the patched {filename} cannot be parsed by radpatch's own Python to check where its code lands "
            f"({old.unparsed or new.unparsed})"
        )
        return Refusal("placement", why, PLACEMENT_HINT)
    version = (python.version[0], python.version[1]) if python is not None else target_version
    checks = (placement.shadowed, placement.dead_changes, _unreachable_check(version), _fallback_check(python, me))
    for check in (*checks, _rebound_check(python, me, stars, own_modules(patch))):
        found = check(old.placement, new.placement)
        if found:  # which rewrite: the first prefix of them that shows it (only on this refusal path)
            rw = _first_showing(check, patch, rws, before, filename, me)
            why = f"rewrite {rw.id!r} ({rw.location}) on {filename}: {found[0]}"
            return Refusal("placement", why, _PLACEMENT_HINTS[check.__name__], rw.id)
    return None


def _first_showing(
    check: Callable[[placement.Placement, placement.Placement], list[str]],
    patch: Patch,
    rws: tuple[Rewrite, ...],
    before: bytes,
    filename: str,
    me: tuple[str, bool] | None = None,
) -> Rewrite:
    """The rewrite that shows what `check` found: the first that, applied with those before it, is flagged
    (the last rewrite if no prefix is)."""
    k = placement.first_failing(
        len(rws), lambda k: bool(_placed(check, before, forward(patch, rws[:k], before, filename), me))
    )
    return rws[(k or len(rws)) - 1]
