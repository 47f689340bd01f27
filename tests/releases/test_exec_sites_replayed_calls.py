"""An exec's reads on a module whose walk runs again an unknown call it first reached while running
a function again (vLLM 0.33.0's vllm/model_executor/warmup/jit_warmup.py, cut to the statements that
reach it): `port` stopped with an internal error (IndexError in rewrite.later_runs) on every
release carrying that file (tests/releases/test_real_port_vouched_exec.py, real tier)."""

from __future__ import annotations

import ast

from radpatch.releases import exec_sites

JIT_WARMUP = """\
@dataclass(frozen=True)
class WarmupChoices:
    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", values)


def _expand_warmup_values(values: WarmupValues) -> tuple[Any, ...]:
    if isinstance(values, WarmupChoices):
        return values.values


@dataclass(frozen=True)
class _WarmupPredicateTrace:
    def matches(self, kwargs: Mapping[str, Any]) -> bool:
        return bool(_eval_dispatch_expr(self.return_expr, dispatch_values, self.globals))


class VllmJitKernel(Generic[CompileKeyT], ABC):
    def _trace_dispatch(self, dispatch):
        def traced(*input_groups, _when=None, **kwargs):
            expanded = tuple(_expand_warmup_input_rows(g.rows, input_names) for g in input_groups)
            axes = tuple((n, _expand_warmup_values(v)) for n, v in kwargs.items() if n in input_names)
        return traced

    def _expand_warmup_cases(self, cases_fn, *args, _value_expander=_expand_warmup_values, **kwargs):
        exec(compile(ast.Module(body=[case_function], type_ignores=[]), "<jit-warmup>", "exec"), case_globals)

    @abstractmethod
    def compile(self, compile_key: CompileKeyT) -> None:
        raise NotImplementedError
"""


def test_an_unknown_call_reached_while_a_function_runs_again_is_run_again_too() -> None:
    (site,) = exec_sites.sites("vllm/model_executor/warmup/jit_warmup.py", ast.parse(JIT_WARMUP))
    assert site.scope == "VllmJitKernel._expand_warmup_cases"
    assert "case_globals" in site.code
