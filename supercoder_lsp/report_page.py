"""`supercoder report`: one static HTML page (no server, no script) and a Markdown summary of a run's
reports (`supercoder optimize -o`) and of `supercoder apply -o`: every function's verdict, speedup and
95% interval, evidence level and coverage, a plot of the speedups with their intervals (inline SVG, log
scale), the end-to-end table of the builds, and each best candidate's assembly as a file beside it."""

from __future__ import annotations

import math
import re
from pathlib import Path

import jinja2

from . import __version__

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("supercoder_lsp", "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", "--".join(parts)).strip("-")


def _evidence(headline: str) -> str:
    if "proven equal" in headline:
        return "proven"
    return "tested" if headline else "-"


def _row(rep: dict, f: dict) -> dict:
    best = f.get("best") or {}
    shown = best or max(
        (c for c in f.get("candidates", []) if c.get("speedup") and c.get("speedup_ci")),
        key=lambda c: c["speedup"],
        default={},
    )
    cov = f.get("coverage") or {}
    file = Path(rep.get("file", "?")).name
    return {
        "id": "fn-" + _slug(file, f["name"]),
        "file": file,
        "name": f["name"],
        "verdict": "faster" if best else "no win" if f.get("status") == "done" else (f.get("status") or "-"),
        "detail": f.get("detail") or "",
        "headline": best.get("headline") or "",
        "evidence": _evidence(best.get("headline") or ""),
        "speedup": shown.get("speedup"),
        "ci": shown.get("speedup_ci"),
        "label": shown.get("label") or "",
        "features": ", ".join(shown.get("features") or []),
        "coverage": f"{cov['percent']}% of {cov['lines']} lines" if cov.get("lines") else "-",
        "inputs": f.get("harness") or "",
        "win": bool(best),
        "candidates": f.get("candidates", []),
        "asm_file": f"asm/{_slug(file, f['name'])}.s" if best.get("assembly") else None,
        "asm": best.get("assembly"),
    }


def plot(rows: list[dict], width: int = 720, row_h: int = 26) -> dict:
    """Geometry of the speedup plot: each function's point and 95% interval on a log axis, 1.0 marked."""
    timed = [r for r in rows if r["speedup"] and r["ci"]]
    lo = min([0.5] + [r["ci"][0] for r in timed])
    hi = max([2.0] + [r["ci"][1] for r in timed])
    left, right = 220, width - 20
    a, b = math.log(lo / 1.1), math.log(hi * 1.1)

    def x(v: float) -> float:
        return round(left + (math.log(max(v, 1e-9)) - a) / (b - a) * (right - left), 1)

    ticks = [t for t in (0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128) if lo / 1.1 <= t <= hi * 1.1]
    marks = []
    for i, r in enumerate(timed):
        y = 30 + i * row_h
        marks.append({"y": y, "x": x(r["speedup"]), "x0": x(r["ci"][0]), "x1": x(r["ci"][1]), "row": r})
    return {
        "width": width,
        "height": 50 + len(timed) * row_h,
        "left": left,
        "one": x(1.0),
        "ticks": [{"x": x(t), "label": f"{t:g}x"} for t in ticks],
        "marks": marks,
    }


def write_report(reports: list[dict], applies: list[dict], out: Path) -> tuple[Path, Path]:
    """index.html, report.md and asm/*.s in `out`; returns the page and the Markdown."""
    rows = [_row(rep, f) for rep in reports for f in rep.get("functions", [])]
    out.mkdir(parents=True, exist_ok=True)
    (out / "asm").mkdir(exist_ok=True)
    for r in rows:
        if r["asm_file"]:
            (out / r["asm_file"]).write_text(r["asm"])
    ctx = {
        "version": __version__,
        "reports": reports,
        "rows": rows,
        "wins": [r for r in rows if r["win"]],
        "plot": plot(rows),
        "applies": applies,
        "machine": next((rep.get("environment", {}).get("cpu_model") for rep in reports), None) or "",
    }
    page = out / "index.html"
    page.write_text(_ENV.get_template("report.html.j2").render(**ctx))
    md = out / "report.md"
    md.write_text(_ENV.get_template("report.md.j2").render(**ctx))
    return page, md
