"""Find registry directories and load patches from them.

Registries, in order: the one shipped with radpatch, then each `--registry DIR`, then each
directory in RADPATCH_REGISTRY (os.pathsep-separated). A patch's name is its file's stem and
must be unique across all registries.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import RegistryError, UsageError
from radpatch.registry import series
from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch

_PACKAGE = Path(__file__).resolve().parents[1]  # radpatch/


def shipped_registry() -> Path:
    """registry/ inside the wheel (radpatch/_shipped) or, in a source checkout, beside radpatch/."""
    installed = _PACKAGE / "_shipped" / "registry"
    return installed if installed.is_dir() else _PACKAGE.parent / "registry"


def registry_dirs(extra: tuple[str, ...] = ()) -> list[Path]:
    env = [p for p in os.environ.get("RADPATCH_REGISTRY", "").split(os.pathsep) if p]
    dirs = [shipped_registry()]
    for raw in [*extra, *env]:
        path = Path(raw).expanduser()
        if not path.is_dir():
            source = "--registry" if raw in extra else "RADPATCH_REGISTRY"
            raise UsageError(
                f"registry directory {raw!r} (from {source}) does not exist", "give a directory holding NAME.yaml files"
            )
        dirs.append(path.resolve())
    return list(dict.fromkeys(dirs))


@dataclass(frozen=True)
class Registry:
    files: dict[str, Path]  # patch name -> its YAML file

    @classmethod
    def discover(cls, extra: tuple[str, ...] = ()) -> Registry:
        files: dict[str, Path] = {}
        problems: list[str] = []
        for d in registry_dirs(extra):
            for f in sorted(d.glob("*.y*ml")):
                if f.suffix not in (".yaml", ".yml"):
                    continue
                if f.stem in files:
                    problems.append(
                        f"{f}: patch name {f.stem!r} is already defined by {files[f.stem]}; rename one of the files"
                    )
                else:
                    files[f.stem] = f
        if problems:
            raise RegistryError(problems)
        return cls(files)

    def names(self) -> list[str]:
        return sorted(self.files)

    def load(self, name: str) -> Patch:
        """The entry `name`; a `requires:` cycle it reaches is its registry error (every command says it)."""
        p = self._load_plain(name)
        series.refuse_cycles([p], self._load_plain)
        return p

    def _load_plain(self, name: str) -> Patch:
        """The entry `name`, its `requires:` not followed (refuse_cycles's own reads)."""
        if name not in self.files:
            known = ", ".join(self.names()) or "none"
            raise UsageError(
                f"unknown patch {name!r}; known patches: {known}",
                "`radpatch list` shows them; add registries with --registry DIR",
            )
        return load_patch(self.files[name])

    def load_valid(self) -> list[Patch]:
        """Every entry of the registries that loads: another entry's problems are not the business
        of a command about these (`show`'s dependents, `revert`'s check of them)."""
        out: list[Patch] = []
        for name in self.names():
            try:
                out.append(self.load(name))
            except RegistryError:
                continue
        return out

    def load_many(self, names: tuple[str, ...] | list[str]) -> list[Patch]:
        """Load each named patch; report the problems of every invalid file at once."""
        patches: list[Patch] = []
        problems: list[str] = []
        hints: set[str] = set()
        for name in dict.fromkeys(names):
            try:
                patches.append(self._load_plain(name))
            except RegistryError as exc:
                problems.extend(exc.problems)
                hints.add(exc.hint)
        try:
            series.refuse_cycles(patches, self._load_plain)  # each cycle once, from the first entry on it named
        except RegistryError as exc:
            problems.extend(exc.problems)
            hints.add(exc.hint)
        if problems:  # one hint kept when every problem has the same
            raise RegistryError(problems, *(hints if len(hints) == 1 else ()))
        return patches
