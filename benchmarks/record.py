"""A benchmark run kept as a results file (benchmarks/results/NAME-DATE.json, the form docs/benchmarks.md
gives), from which `make docs` generates the Benchmark results page: the commit, the machine and the
date travel with the figures."""

from __future__ import annotations

import json
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def commit() -> str:
    root = Path(__file__).resolve().parents[1]
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def save(benchmark: str, figures: dict[str, float | int | str], folder: Path = RESULTS) -> Path:
    """Write one run's figures; returns the file."""
    now = datetime.now(UTC).replace(microsecond=0)
    data = {
        "benchmark": benchmark,
        "commit": commit(),
        "machine": machine(),
        "date": now.isoformat(),
        "figures": figures,
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{benchmark}-{now.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(f"recorded: {path}")
    return path
