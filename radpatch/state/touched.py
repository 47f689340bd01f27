"""What an applied entry changes, kept in its record (`PatchRecord.touches`): per rewrite, its
module and its `registry.touch.Touch`es as the entry said them when it was applied. A later run
whose registries no longer hold the entry (a second build stage with another `--registry`) still
compares a new entry with it (prove.overlaps.applied), instead of trusting that they do not overlap.

Records written before this was kept have no `touches` (None): what such an entry changes is
unknown, and apply refuses to stack another entry on its file without its registry.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING

from radpatch.registry.touch import Touch

if TYPE_CHECKING:
    from packaging.version import Version

    from radpatch.registry.model import Patch


@dataclass(frozen=True)
class Touched:
    rewrite: str  # the rewrite's id
    module: str  # the module it changed on the installed release
    touch: Touch


def of(patch: Patch, version: Version) -> tuple[Touched, ...]:
    """What the entry's rewrites that apply to `version` change, module by module."""
    out: list[Touched] = []
    for rw in patch.rewrites_for(version):
        choice = patch.module(rw.file).module_for(version)
        if choice is None:
            continue
        module = choice.module.removesuffix(".__init__")
        out.extend(Touched(rw.id, module, t) for t in rw.op.touches())
    return tuple(out)


def plain(touched: tuple[Touched, ...] | None) -> list[dict[str, object]] | None:
    if touched is None:
        return None
    return [{"rewrite": t.rewrite, "module": t.module, "touch": asdict(t.touch)} for t in touched]


_FIELDS = {f.name: f.type for f in fields(Touch)}


def parse(raw: object) -> tuple[Touched, ...] | None:
    """The `touches` of a record entry (None when it has none); TypeError when malformed."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise TypeError("touches is not a list")
    out: list[Touched] = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("touch"), dict):
            raise TypeError(f"touch {item!r}")
        rewrite, module, t = item.get("rewrite"), item.get("module"), dict(item["touch"])
        if not isinstance(rewrite, str) or not isinstance(module, str) or set(t) - set(_FIELDS):
            raise TypeError(f"touch {item!r}")
        for name in ("part", "defines", "statements", "names"):
            names = t.get(name, [])
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise TypeError(f"touch {name} {names!r}")
            t[name] = tuple(names)
        for name in ("role", "scope", "key"):
            if not isinstance(t.get(name), str):
                raise TypeError(f"touch {name} {t.get(name)!r}")
        out.append(Touched(rewrite, module, Touch(**t)))
    return tuple(out)
