"""An enum class whose enum-ness only its bases, followed, tell (att55 F2; prove.enum_bases): the
package's files for each place the enum base may be, the registry entry that puts a payload item
into it, and the oracle (Python itself: the class's members, the package imported in a subprocess)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

KINDS = ["Enum", "IntEnum", "Flag", *(["StrEnum"] if sys.version_info >= (3, 11) else [])]
ITEMS = {  # kind -> payload item; the constant's value fits the kind (a new member must be creatable)
    "plain": lambda k: f"_rp_default_weight = {VALUE[k]}\n",
    "annotated": lambda k: f"_rp_default_weight: object = {VALUE[k]}\n",
    "method": lambda k: "def _rp_weight(self):\n    return self.value\n",
}
VALUE = {"Enum": "4", "IntEnum": "4", "Flag": "4", "StrEnum": "'w'"}
MEMBERS = {"Enum": ("1", "2"), "IntEnum": ("1", "2"), "Flag": ("1", "2"), "StrEnum": ("'fast'", "'safe'")}


def layout(where: str, kind: str) -> tuple[dict[str, str], str, str]:
    """(the package's other files, core.py's header lines, Mode's bases) for where the enum base is."""
    base = f"import enum\n\n\nclass ModeBase(enum.{kind}):\n    def describe(self):\n        return 'x'\n"
    files = {"rpmodes/base.py": base}
    if where == "same":
        return {}, base, "ModeBase"
    if where == "absolute":
        return files, "from rpmodes.base import ModeBase\n", "ModeBase"
    if where == "relative":
        return files, "from .base import ModeBase\n", "ModeBase"
    if where == "reexport":
        kinds = {"rpmodes/kinds/__init__.py": "from .base import ModeBase\n", "rpmodes/kinds/base.py": base}
        return kinds, "from rpmodes.kinds import ModeBase\n", "ModeBase"
    if where == "alias":
        return files, "import rpmodes.base as b\n", "b.ModeBase"
    if where == "two-levels":
        mid = "from rpmodes.base import ModeBase as Root\n\n\nclass Middle(Root):\n    pass\n"
        return {**files, "rpmodes/mid.py": mid}, "from rpmodes.mid import Middle\n", "Middle"
    if where == "metaclass":  # the base is not one radpatch can follow (a call): the metaclass tells
        meta = f'import enum as _e\n\nBase = getattr(_e, "{kind}")\n\n\nclass Meta(_e.EnumMeta):\n    pass\n'
        return {"rpmodes/base.py": meta}, "from rpmodes.base import Base, Meta\n", "Base, metaclass=Meta"
    return _more(where, kind, base, files)


def _more(where: str, kind: str, base: str, files: dict[str, str]) -> tuple[dict[str, str], str, str]:
    """att56 F3-F5: a star import (`__all__` respected), a nested class, a name bound more than once."""
    plain = "class EnumLikeBase:\n    def describe(self):\n        return 'x'\n"
    if where == "star":
        return files, "from rpmodes.base import *\n", "ModeBase"
    if where == "star-init":
        init = {"rpmodes/__init__.py": "from rpmodes.base import *\n"}
        return {**files, **init}, "from rpmodes import ModeBase\n", "ModeBase"
    if where in ("nested", "nested-imported"):
        kinds = f"import enum\n\n\nclass Kinds:\n    class Base(enum.{kind}):\n        pass\n"
        if where == "nested":
            return {}, kinds, "Kinds.Base"
        return {"rpmodes/base.py": kinds}, "from rpmodes.base import Kinds\n", "Kinds.Base"
    if where == "try-except":
        header = "try:\n    from rpmodes.base import ModeBase\nexcept ImportError:\n    ModeBase = object\n"
        return files, header, "ModeBase"
    if where == "if-else":
        header = (
            "import sys\n\nif sys.version_info >= (3, 0):\n    from rpmodes.base import ModeBase\n"
            "else:\n\n    class ModeBase:\n        pass\n"
        )
        return files, header, "ModeBase"
    if where == "star-plain":  # not an enum, though its name says Enum: followed, it goes in
        return {"rpmodes/base.py": plain}, "from rpmodes.base import *\n", "EnumLikeBase"
    if where == "star-excluded":  # the star import's `__all__` leaves its enum out: the plain base stays
        shadow = f'import enum\n\n__all__ = ["helper"]\n\n\nclass EnumLikeBase(enum.{kind}):\n    pass\n\n\n'
        shadow += "def helper():\n    return 1\n"
        header = "from rpmodes.plain import EnumLikeBase\nfrom rpmodes.base import *\n"
        return {"rpmodes/plain.py": plain, "rpmodes/base.py": shadow}, header, "EnumLikeBase"
    if where in ("neutral-call", "neutral-call-plain"):  # a call radpatch cannot follow, no name saying enum:
        # the target interpreter is asked (prove.enum_members)
        spelled = ", ".join(str(b) for b in kind.encode())
        value = f"getattr(_lib, bytes([{spelled}]).decode())" if where == "neutral-call" else "type('Base', (), {})"
        lib = "importlib.import_module(bytes([101, 110, 117, 109]).decode())"  # enum
        dyn = f"import importlib\n\n_lib = {lib}\nBase = {value}\n"
        return {"rpmodes/base.py": dyn}, "from rpmodes.base import Base\n", "Base"
    assert where == "not-enum"
    plain = "class ModeBase:\n    def describe(self):\n        return 'x'\n"
    return {"rpmodes/base.py": plain}, "from rpmodes.base import ModeBase\n", "ModeBase"


NOT_ENUM = [
    "not-enum",
    "star-plain",
    "star-excluded",
    "neutral-call-plain",
]  # Mode is a plain class: a constant goes in
WHERE = [
    *("same", "absolute", "relative", "reexport", "alias", "two-levels", "metaclass"),
    *("star", "star-init", "nested", "nested-imported", "try-except", "if-else", "neutral-call"),
    *NOT_ENUM,
]


def core(header: str, bases: str, kind: str, extra: str = "") -> str:
    fast, safe = MEMBERS[kind]
    return (
        f"{header}\n\nclass Mode({bases}):\n    FAST = {fast}\n    SAFE = {safe}\n\n"
        f"    def label(self):\n        return str(self.value)\n{extra}"
    )


def members(root: Path) -> list[str]:
    """The oracle: Mode's members (none: not an enum), the package imported from `root` in a fresh interpreter."""
    code = "import rpmodes.core as c; print(','.join(getattr(c.Mode, '__members__', ())))"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


ENTRY = textwrap.dedent("""\
    summary: s
    description: d
    distribution: rpmodes
    supported: ">=1.0"
    modules:
      core: rpmodes.core
    rewrites:
      - id: weight
        insert_definitions: {payload: payload.py, into: Mode}
    """)


def package(where: str, kind: str, extra: str = "") -> dict[str, str]:
    """The distribution's files: the package, its core.py's Mode with `extra` (indented lines) at its end."""
    files, header, bases = layout(where, kind)
    return {"rpmodes/__init__.py": "", **files, "rpmodes/core.py": core(header, bases, kind, extra)}


def indented(text: str) -> str:
    return "\n" + "".join("    " + ln if ln.strip() else ln for ln in text.splitlines(True))
