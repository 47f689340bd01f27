"""`import xml` then a new read of `xml.dom.minidom`: a submodule read through a parent imported
alone fails on a fresh interpreter (AttributeError) unless something imported it; the names step
must refuse such a read a patch adds, and pass one the parent's own `__init__` binds (`json.decoder`,
`os.path`) or the module imports itself where it runs (`import xml.dom.minidom` at module level, or
in the function that reads it; not in another function, never called).

Generated: reads of standard-library submodules and attributes times whether the module also
imports the submodule, on radpatch's own Python and every other target under /root/.pyenv. Each
patched module is run by that target in a fresh interpreter: the proof must refuse exactly the
patches whose new read raises AttributeError there.
"""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.interpreters import OTHER_TARGETS

READS = {  # the new read, and the submodule an extra import would bind
    "xml.dom": ("xml.dom.minidom.parseString('<a/>').documentElement.tagName", "xml.dom.minidom"),
    "xml.etree": ("xml.etree.ElementTree.fromstring('<a/>').tag", "xml.etree.ElementTree"),
    "json.decoder": ("json.decoder.JSONDecodeError.__name__", "json.decoder"),
    "os.path": ("os.path.join('a', 'b')", "os.path"),
    "email.mime": ("email.mime.text.MIMEText('x').get_content_type()", "email.mime.text"),
    "concurrent.futures": ("concurrent.futures.Future.__name__", "concurrent.futures"),
    "logging.handlers": ("logging.handlers.RotatingFileHandler.__name__", "logging.handlers"),
    "importlib.util": ("importlib.util.find_spec.__name__", "importlib.util"),
}
IMPORTS = ("parent-only", "also-submodule", "submodule-in-function", "submodule-in-f")
EXES = {"own": sys.executable, **{v: str(p) for v, p in OTHER_TARGETS.items()}}
CASES = list(itertools.product(EXES, READS, IMPORTS))


def sources(read: str, imports: str) -> tuple[str, str]:
    expr, sub = READS[read]
    top = read.split(".")[0]
    head = f"import {top}\n"
    if imports == "also-submodule":
        head += f"import {sub}\n"
    before = head + "\n\ndef f():\n    return 'old'\n"
    if imports == "submodule-in-function":
        before += f"\n\ndef g():\n    import {sub}\n    return None\n"
    new = f"import {sub}\n    return {expr}" if imports == "submodule-in-f" else f"return {expr}"
    return before, before.replace("return 'old'", new)


@pytest.mark.parametrize(("exe", "read", "imports"), CASES, ids=["-".join(c) for c in CASES])
def test_a_submodule_read_nothing_imports_is_refused(exe: str, read: str, imports: str) -> None:
    before, after = sources(read, imports)
    run = subprocess.run([EXES[exe], "-I", "-c", after + "\nprint(f())\n"], capture_output=True, text=True)
    fails = run.returncode != 0
    if fails:
        assert "AttributeError" in run.stderr, run.stderr
    refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", python_env(EXES[exe]))
    why = None if refused is None else refused.why
    assert (why is not None) == fails, (why, run.stderr[-300:])
    if why is not None:
        assert "a fresh `import" in why and f"import {read}" in why, why
