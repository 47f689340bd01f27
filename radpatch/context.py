"""What every command gets: the selected environment and the registries, resolved on first use."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from functools import cached_property

from radpatch.install.environment import PythonEnv, python_env
from radpatch.registry.catalog import Registry


class Context:
    def __init__(self, python: str | None = None, registries: tuple[str, ...] = ()) -> None:
        self.python = python
        self.registries = registries

    @cached_property
    def env(self) -> PythonEnv:
        return python_env(self.python)

    @cached_property
    def registry(self) -> Registry:
        return Registry.discover(self.registries)

    def invocation(self, registries: Iterable[str]) -> str:
        """`radpatch` with this run's `--python` (when given) and `registries`, as a shell reads them:
        the start of a command a message tells the user to run next, on the same environment."""
        words = ["radpatch", *(["--python", self.python] if self.python else [])]
        return shlex.join([*words, *(w for r in registries for w in ("--registry", r))])
