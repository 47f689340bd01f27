"""Run harness/kv_probe.py's probe for several scenarios in one process (vLLM imports once).

Runs inside a provisioned vLLM venv. stdin: a JSON list of {"layout": NAME-or-dict,
"env": {VAR: value}}; stdout: a JSON list of probe results. The environment is set per
scenario, exactly as a serve would see it (the patch reads its knobs at call time).
"""

from __future__ import annotations

import json
import os
import sys

from harness import kv_probe


def main() -> int:
    scenarios = json.load(sys.stdin)
    results = []
    with kv_probe.stdout_to_stderr() as out:
        for sc in scenarios:
            saved = dict(os.environ)
            os.environ.update({k: str(v) for k, v in sc.get("env", {}).items()})
            try:
                layout = sc["layout"]
                raw = kv_probe.load_layout(layout) if isinstance(layout, str) else layout
                results.append(kv_probe.probe(raw, bool(sc.get("serve_path"))))
            finally:
                os.environ.clear()
                os.environ.update(saved)
        out.write(json.dumps(results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
