"""Functions and decorators from elsewhere whose effect on what they are given radpatch takes as known, by the
text that names them (as `json.dumps`, not through an import's alias): readers, which change none of it and
keep it, if at all, only to read it (a copy, a text of it, a log call, a tensor or array made from it, a
command line run, a path joined, `itertools.chain`), and wrappers, decorators that return a wrapper of the
function and run none of it when applied (`@contextmanager`, `@functools.lru_cache(...)`). For rewrite.escapes
and rewrite.later_runs; docs/safety.md lists them as an assumption.

Standard library only (`ast`)."""

from __future__ import annotations

import ast

# functions from elsewhere that only read what they are given (a copy, a text of it, a log line, a
# tensor or array made from it, a command line run, a path joined)
_READERS = frozenset(
    {
        *("json.dumps", "json.dump", "copy.copy", "copy.deepcopy", "pprint.pformat", "pprint.pprint"),
        *("torch.tensor", "torch.as_tensor", "np.array", "numpy.array", "np.asarray", "numpy.asarray"),
        *("subprocess.run", "subprocess.Popen", "subprocess.call", "subprocess.check_call", "subprocess.check_output"),
        *("os.path.join", "shlex.join", "itertools.chain"),
    }
)
# decorators from elsewhere that wrap the function they are given and run none of it when applied
_WRAPPERS = frozenset(
    {
        *("contextmanager", "contextlib.contextmanager", "asynccontextmanager", "contextlib.asynccontextmanager"),
        *("functools.wraps", "wraps", "functools.lru_cache", "lru_cache", "functools.cache", "cache"),
        *("functools.cached_property", "cached_property", "abc.abstractmethod", "abstractmethod"),
        *("typing.overload", "overload", "typing.final", "final"),
    }
)
_LOGS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def short_text(node: ast.AST) -> str:
    said = ast.unparse(node)
    return said if len(said) <= 40 else said[:37] + "..."


def reads_only(callee: ast.AST) -> bool:
    """A function from elsewhere that only reads what it is given: `_READERS`, a log call."""
    return short_text(callee) in _READERS or _logs(callee)


def wraps_only(decorator: ast.AST) -> bool:
    """A decorator from elsewhere that wraps what it is given and runs none of it (`_WRAPPERS`;
    `@functools.lru_cache(maxsize=8)`, `@functools.wraps(f)`: what the call returns)."""
    return short_text(decorator.func if isinstance(decorator, ast.Call) else decorator) in _WRAPPERS


def _logs(callee: ast.AST) -> bool:
    """`logger.info(...)`, `logging.warning(...)`: a log call formats what it is given."""
    if not isinstance(callee, ast.Attribute) or callee.attr not in _LOGS:
        return False
    root = callee.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and "log" in root.id.lower()
