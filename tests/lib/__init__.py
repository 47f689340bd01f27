"""Helpers shared by the tests, in one place; tests import these and conftest fixtures, never each other.

- site: a fake site-packages (Site) with a dist-info whose RECORD hashes its files; RECORD hashes
- registry: the one registry writer (an entry's YAML and its payloads); the loader tests' toy entry
- wheels: the one wheel builder (a wheel laid out as a backend writes it; a project built by its
  own backend; a release fetched from the package index)
- interpreters: the real target Pythons under /root/.pyenv, and generated modules run by one
- generated: a generated family's cases, all of them or a sample (RADPATCH_TEST_SAMPLE)
- venvs: venvs made without pip, and pip acting on them from this interpreter
- processes: running a command and asserting it succeeded
- installed: a target pip-installed from a real wheel into a venv, radpatch run as its own process
- vllm_release: a provisioned CPU vLLM release (harness/) with radpatch aimed at it
- rewrites: a patch of given operations, planned on a literal module, checked whole
- reach: what the placement proof says no run reaches, and which lines run (the reachability tests)
- overlaps: the toy entry the overlap tests write, written and loaded
- vllm_files: real vLLM module files (tests/fixtures/vllm) installed into a fake site-packages
- fifo: a FIFO in place of a file, to prove radpatch never blocks reading one
- index_server: a loopback package index that logs every request and byte, for `radpatch verify`
- toy, sources: the toy distribution and patch; literal modules the rewrite tests share
- package_imports: a package written under a temp site, the names proof's verdict on a change of it
  and the truth, its import in a fresh interpreter (the import-cycle and importer tests)
- fallback_entry: the patched-fallback tests' entry on rpfb.core and their oracle (its value() as the
  target imports it)
- timeout_toy: the toy `replace` entry of the not-in-effect tests and its reference, the release run
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]  # the checkout under test
