"""The module's own import of a submodule binds a new read of it only when it surely runs first
(`import xml` then a new `xml.dom.minidom...`): at module level, not under `if TYPE_CHECKING:` or
`if False:`, on every branch, above a module-level read; in the function holding the read, above
it; never in a def that a later def of the same name replaces. And `from xml import dom` then a new
`dom.minidom...` is the same read, spelled through a name a `from` import binds to a module.

Generated: each placement of the module's import (and each `from` spelling) times radpatch's own
Python and the other targets under /root/.pyenv. The target runs each patched module in a fresh
interpreter: the proof must refuse exactly the patches whose new read raises AttributeError there.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample
from tests.lib.interpreters import OTHER_TARGETS

READ = "xml.dom.minidom.parseString('<a/>').documentElement.tagName"
F = "\n\ndef f():\n    return 'old'\n"
TC = "import xml\nfrom typing import TYPE_CHECKING\n\n"
IN_F = "import sys\nimport xml\n\n\ndef f():\n"
# each: the module before the patch, holding `return 'old'` (replaced by the new read) or `X = 'old'`
PLACEMENTS = {
    "type-checking": TC + "if TYPE_CHECKING:\n    import xml.dom.minidom\n" + F,
    "type-checking-alias": "import xml\nimport typing\n\nif typing.TYPE_CHECKING:\n    import xml.dom.minidom\n" + F,
    "if-false": "import xml\n\nif False:\n    import xml.dom.minidom\n" + F,
    "one-branch": "import sys\nimport xml\n\nif sys.platform == 'nope':\n    import xml.dom.minidom\n" + F,
    "both-branches": (
        "import sys\nimport xml\n\nif sys.platform == 'nope':\n    import xml.dom.minidom\n"
        "else:\n    from xml.dom import minidom\n" + F
    ),
    "else-of-type-checking": (TC + "if TYPE_CHECKING:\n    pass\nelse:\n    import xml.dom.minidom\n" + F),
    "module-level": "import xml\nimport xml.dom.minidom\n" + F,
    "module-level-below-f": "import xml\n" + F + "\n\nimport xml.dom.minidom\n",
    "in-try": "import xml\n\ntry:\n    import xml.dom.minidom\nexcept ImportError:\n    pass\n" + F,
    "in-loop": "import xml\n\nfor _ in ():\n    import xml.dom.minidom\n" + F,
    "replaced-def": IN_F + "    import xml.dom.minidom\n    return 1\n" + F,
    "platform-defs": (
        "import sys\nimport xml\n\nif sys.version_info < (3, 0):\n\n    def f():\n        import xml.dom.minidom\n"
        "        return 1\n\nelse:\n\n    def f():\n        return 'old'\n"
    ),
    "platform-defs-undecided": (
        "import sys\nimport xml\n\nif sys.platform == 'nope':\n\n    def f():\n        import xml.dom.minidom\n"
        "        return 1\n\nelse:\n\n    def f():\n        return 'old'\n"
    ),
    "read-under-platform-test": IN_F + "    if sys.platform != 'nope':\n        return 'old'\n    return 0\n",
    "read-under-hasattr": IN_F + "    if hasattr(xml, 'dom'):\n        return 'old'\n    return 0\n",
    "read-under-branch-import": (
        IN_F + "    if sys.platform != 'nope':\n        from xml.dom import minidom as _m\n\n        return 'old'\n"
        "    return 0\n"
    ),
    "dead-in-f": IN_F + "    if False:\n        from xml.dom import minidom as _m\n    return 'old'\n",
    "in-f-above": IN_F + "    import xml.dom.minidom\n    return 'old'\n",
    "in-f-below": IN_F + "    x = 'old'\n    from xml.dom import minidom as _m\n    return x\n",
    "in-f-loop": IN_F + "    for _ in ():\n        from xml.dom import minidom as _m\n    return 'old'\n",
    "in-f-branch-above": (
        IN_F + "    if xml:\n        from xml.dom import minidom as _m\n    else:\n"
        "        from xml.dom.minidom import parseString as _p\n"
        "    return 'old'\n"
    ),
    "module-read-above-import": "import xml\n\nX = 'old'\nimport xml.dom.minidom\n\n\ndef f():\n    return X\n",
    "module-read-below-import": "import xml\nimport xml.dom.minidom\n\nX = 'old'\n\n\ndef f():\n    return X\n",
    "class-body-import": "import xml\n\n\nclass K:\n    import xml.dom.minidom\n" + F,
}
SPELLINGS = {  # a name a `from` import binds, then a new read through it
    "from-xml-dom": ("from xml import dom\n", "dom.minidom.parseString('<a/>').documentElement.tagName"),
    "from-xml-dom-imported": (
        "from xml import dom\nimport xml.dom.minidom\n",
        "dom.minidom.parseString('<a/>').documentElement.tagName",
    ),
    "from-xml-etree": ("from xml import etree as et\n", "et.ElementTree.fromstring('<a/>').tag"),
    "from-email-mime": ("from email import mime\n", "mime.text.MIMEText('x').get_content_type()"),
    "from-concurrent-futures": ("from concurrent import futures\n", "futures.Future.__name__"),
    "from-xml-dom-minidom": ("from xml.dom import minidom\n", "minidom.parseString('<a/>').documentElement.tagName"),
    "from-os-path": ("from os import path\n", "path.join('a', 'b')"),
}
EXES = {"own": sys.executable, **{v: str(p) for v, p in OTHER_TARGETS.items()}}
CASES = sample(itertools.product(EXES, [*PLACEMENTS, *SPELLINGS]))
target_env = functools.cache(python_env)


def sources(case: str) -> tuple[str, str]:
    if case in SPELLINGS:
        head, read = SPELLINGS[case]
        before = head + F
        return before, before.replace("return 'old'", f"return {read}")
    before = PLACEMENTS[case]
    old = "X = 'old'" if "X = 'old'" in before else "'old'"
    new = f"X = {READ}" if old == "X = 'old'" else READ
    return before, before.replace(old, new, 1)


@pytest.mark.parametrize(("exe", "case"), CASES, ids=["-".join(c) for c in CASES])
def test_only_an_import_that_surely_runs_first_binds_the_read(exe: str, case: str) -> None:
    before, after = sources(case)
    run = fresh_run(EXES[exe], after + "\nprint(f())\n")
    fails = run.returncode != 0
    if fails:
        assert "AttributeError" in run.stderr, run.stderr
    refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target_env(EXES[exe]))
    why = None if refused is None else refused.why
    assert (why is not None) == fails, (why, run.stderr[-300:])
    if why is not None:
        assert "a fresh `import" in why and "add_import: import " in why, why


@pytest.mark.parametrize(("exe", "case"), CASES, ids=["-".join(c) for c in CASES])
def test_the_module_s_own_file_does_not_count_as_another_module_of_its_package(
    exe: str, case: str, tmp_path: Path
) -> None:
    """The same cases as toyq/m.py installed (the before on disk): its own import statements bind
    the read only as above, never as "another module of the package imports it"."""
    before, after = sources(case)
    (tmp_path / "toyq").mkdir()
    (tmp_path / "toyq" / "__init__.py").write_text("")
    (tmp_path / "toyq" / "m.py").write_text(after)
    run_it = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import toyq.m; print(toyq.m.f())"
    run = fresh_run(EXES[exe], run_it)
    (tmp_path / "toyq" / "m.py").write_text(before)
    env = target_env(EXES[exe])
    env = dataclasses.replace(env, paths=(tmp_path, *env.paths))
    refused = names_check.names_refusal(before.encode(), after.encode(), "toyq/m.py", env, module="toyq.m")
    why = None if refused is None else refused.why
    assert (why is not None) == (run.returncode != 0), (why, run.stderr[-300:])
