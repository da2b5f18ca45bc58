"""The README stays a front door, and the docs site stays true: its links lead somewhere, every test it
names exists, its layers are the import contract's, and it builds with warnings as errors."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"


def _gen_reference():
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATED = set(_gen_reference().GENERATED)


def _pages() -> list[Path]:
    """The hand-written pages (the generated ones too, where they have been written)."""
    return sorted(DOCS.glob("*.md"))


def _prose(text: str) -> str:
    """Markdown without fenced code blocks and code spans, where a link is not a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"``.*?``|`[^`\n]*`", "", text)


@pytest.mark.fast
def test_the_readme_is_a_front_door_with_the_quick_start():
    text = README.read_text()
    assert len(text.splitlines()) <= 250, "README.md is the front door: move the details to docs/"
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"^make demo\b", quick, re.M), "the quick start's first command is make demo"
    assert re.search(r"^make test\b", quick, re.M), "the quick start's second command is make test"


@pytest.mark.fast
@pytest.mark.parametrize("page", [README, *(p for p in _pages())], ids=lambda p: p.name)
def test_every_relative_link_points_to_a_file(page: Path):
    links = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _prose(page.read_text()))
    missing = []
    for link in links:
        if re.match(r"[a-z][a-z0-9+.-]*:", link) or link.startswith("#"):
            continue  # a URL, or an anchor on the same page (mkdocs --strict checks those)
        target = (page.parent / link.split("#", 1)[0]).resolve()
        generated = target.parent == DOCS and target.name in GENERATED
        if not target.exists() and not generated:
            missing.append(link)
    assert not missing, f"{page.relative_to(ROOT)} links to files that do not exist: {missing}"


def _named_tests(text: str) -> list[tuple[str, str]]:
    return re.findall(r"(tests/[\w/]+\.py)::(test_\w+)", text)


@pytest.mark.fast
@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_every_test_a_page_names_exists(page: Path):
    missing = []
    for path, name in _named_tests(page.read_text()):
        file = ROOT / path
        if not file.is_file() or not re.search(rf"^(async )?def {name}\(", file.read_text(), re.M):
            missing.append(f"{path}::{name}")
    assert not missing, f"{page.name} names tests that do not exist: {missing}"


@pytest.mark.fast
def test_each_check_in_judging_names_its_test():
    """How a candidate is judged: every check (a ## section, with its ### parts) names a test that fails
    without it."""
    text = (DOCS / "judging.md").read_text()
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert len(sections) > 20
    without = [
        s.splitlines()[0]
        for s in sections
        if not _named_tests(s) and s.splitlines()[0] not in ("Reasons a candidate is rejected", "What is not checked")
    ]
    assert not without, f"docs/judging.md: checks that name no test: {without}"


@pytest.mark.fast
def test_the_architecture_draws_every_layer_of_the_import_contract():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text()).get("tool", {}).get("importlinter", {})
    layers = [c for c in contracts.get("contracts", []) if c.get("type") == "layers"]
    if not layers:
        pytest.skip("pyproject.toml states no import-linter layers contract")
    text = (DOCS / "architecture.md").read_text()
    diagram = text.split("```mermaid", 1)[1].split("```", 1)[0]
    names = {n.strip() for c in layers for layer in c["layers"] for n in layer.split("|")}
    missing = sorted(n for n in names if not re.search(rf"(?<![\w.]){re.escape(n)}(?:/|\.py)?(?![\w])", diagram))
    assert not missing, f"docs/architecture.md's diagram does not draw the layers' {missing}"


def test_benchmark_results_become_a_table_and_a_bad_file_stops_the_build(tmp_path):
    gen = _gen_reference()
    assert "No results recorded yet" in gen.benchmark_results_page(tmp_path)
    (tmp_path / "run.json").write_text(
        json.dumps(
            {
                "benchmark": "bench_lsp",
                "commit": "0123456789abcdef0123456789abcdef01234567",
                "machine": "Some CPU @ 2.0GHz",
                "date": "2026-01-31T12:00:00+00:00",
                "figures": {"first hint (s)": 2.5},
            }
        )
    )
    page = gen.benchmark_results_page(tmp_path)
    assert "## bench\\_lsp" in page and "first hint (s)" in page
    assert "| 2026-01-31T12:00:00+00:00 | `0123456789ab` | Some CPU @ 2.0GHz | 2.5 |" in page
    (tmp_path / "bad.json").write_text(json.dumps({"benchmark": "x", "figures": {}}))
    with pytest.raises(SystemExit, match="bad.json: missing or mistyped commit, machine, date"):
        gen.benchmark_results_page(tmp_path)


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    """What `make docs` runs: the generated pages (into docs/, where git ignores them), then mkdocs --strict."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    gen = subprocess.run(
        [sys.executable, str(DOCS / "gen_reference.py")], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert gen.returncode == 0, gen.stderr
    if shutil.which("git") and (ROOT / ".git").exists():
        tracked = subprocess.run(
            ["git", "check-ignore", *(f"docs/{name}" for name in sorted(GENERATED))],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert sorted(tracked.stdout.split()) == sorted(f"docs/{n}" for n in GENERATED), "a generated page git sees"
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    for page in ("judging", "options", "limits", "architecture", "benchmark-results"):
        assert (site / page / "index.html").is_file(), page
