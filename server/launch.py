"""Launch `vllm serve` for the SuperCoder model, and check that it answers.

    python server/launch.py --dry-run                      # print the exact command
    python server/launch.py                                # start it, wait until healthy
    python server/launch.py --tensor-parallel-size 4       # one replica over 4 GPUs
    python server/launch.py --check http://gpu-box:8000    # health-check a running server

Clients point at it with `supercoder optimize --proposer openai --base-url
http://gpu-box:8000/v1 --model supercoder`, or the language server settings
`baseUrl` and `model`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(path: Path) -> dict:
    return tomllib.loads(path.read_text())


def command(cfg: dict) -> list[str]:
    m, s, p = cfg["model"], cfg["server"], cfg["parallel"]
    argv = [
        "vllm",
        "serve",
        m["name"],
        "--served-model-name",
        m["served_name"],
        "--host",
        s["host"],
        "--port",
        str(s["port"]),
        "--dtype",
        m["dtype"],
        "--max-model-len",
        str(m["max_model_len"]),
        "--tensor-parallel-size",
        str(p["tensor_parallel_size"]),
        "--pipeline-parallel-size",
        str(p["pipeline_parallel_size"]),
        "--gpu-memory-utilization",
        str(p["gpu_memory_utilization"]),
    ]
    if p["pipeline_parallel_size"] > 1:
        argv += ["--distributed-executor-backend", "ray"]  # several nodes: start a Ray cluster first
    if os.environ.get(s.get("api_key_env", "")):
        argv += ["--api-key", os.environ[s["api_key_env"]]]
    return argv


def healthy(base: str, served_name: str, timeout: float = 5.0) -> tuple[bool, str]:
    """GET /health answers 200 and /v1/models lists the served model."""
    base = base.rstrip("/").removesuffix("/v1")
    try:
        with urllib.request.urlopen(f"{base}/health", timeout=timeout) as r:
            if r.status != 200:
                return False, f"/health answered {r.status}"
        with urllib.request.urlopen(f"{base}/v1/models", timeout=timeout) as r:
            models = [m.get("id") for m in json.load(r).get("data", [])]
    except (urllib.error.URLError, OSError, ValueError) as e:
        return False, f"{base} does not answer: {e}"
    if served_name not in models:
        return False, f"{base} serves {models}, not '{served_name}'"
    return True, f"{base} is healthy and serves '{served_name}'"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, default=HERE / "serve.toml")
    ap.add_argument("--model")
    ap.add_argument("--port", type=int)
    ap.add_argument("--tensor-parallel-size", type=int)
    ap.add_argument("--pipeline-parallel-size", type=int)
    ap.add_argument("--dry-run", action="store_true", help="print the command and exit")
    ap.add_argument("--check", metavar="URL", help="only health-check a running server")
    ap.add_argument("--wait", type=float, default=900, help="seconds to wait for a new server to become healthy")
    a = ap.parse_args(argv)
    cfg = load(a.config)
    if a.model:
        cfg["model"]["name"] = a.model
    if a.port:
        cfg["server"]["port"] = a.port
    if a.tensor_parallel_size:
        cfg["parallel"]["tensor_parallel_size"] = a.tensor_parallel_size
    if a.pipeline_parallel_size:
        cfg["parallel"]["pipeline_parallel_size"] = a.pipeline_parallel_size
    if a.check:
        ok, why = healthy(a.check, cfg["model"]["served_name"])
        print(why)
        return 0 if ok else 1
    argv_ = command(cfg)
    if a.dry_run:
        print(" ".join(argv_))
        return 0
    if not shutil.which("vllm"):
        print("vllm is not installed here: pip install vllm (needs a CUDA GPU)", file=sys.stderr)
        return 3
    proc = subprocess.Popen(argv_)
    url = f"http://127.0.0.1:{cfg['server']['port']}"
    deadline = time.monotonic() + a.wait
    while time.monotonic() < deadline and proc.poll() is None:
        ok, why = healthy(url, cfg["model"]["served_name"])
        if ok:
            print(f"{why}; clients: --proposer openai --base-url {url}/v1 --model {cfg['model']['served_name']}")
            return proc.wait()
        time.sleep(5)
    print(
        "the server did not become healthy" if proc.poll() is None else f"vllm exited with {proc.returncode}",
        file=sys.stderr,
    )
    proc.terminate()
    return 1


if __name__ == "__main__":
    sys.exit(main())
