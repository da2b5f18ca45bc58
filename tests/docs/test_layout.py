"""The Layout section of docs/architecture.md stays true: every stage folder and top-level module of the
package is named there, and everything it names exists."""

from __future__ import annotations

import re

import pytest
from support import ROOT

pytestmark = pytest.mark.fast  # (tests/conftest.py's FAST names this module's old name, test_readme_layout)


def layout_block() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Layout", 1)[1]
    return section.split("```", 2)[1]


def test_every_package_folder_and_module_is_in_the_layout():
    block = layout_block()
    pkg = ROOT / "supercoder_lsp"
    folders = sorted(p.name for p in pkg.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    missing = [f for f in folders if not re.search(rf"^\s+{re.escape(f)}/", block, re.M)]
    assert not missing, f"docs/architecture.md Layout does not name: {missing}"
    modules = sorted(p.name for p in pkg.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    missing = [m for m in modules if m not in block]
    assert not missing, f"docs/architecture.md Layout does not name: {missing}"


def test_everything_the_layout_names_exists():
    block = layout_block()
    pkg = ROOT / "supercoder_lsp"
    named = set(re.findall(r"\b([a-z_]+\.(?:py|h|S|c))\b", block))
    exists = {
        p.name for d in (pkg, ROOT / "benchmarks", ROOT / "tests", ROOT / "docs") for p in d.rglob("*") if p.is_file()
    }
    assert not named - exists, f"docs/architecture.md Layout names files that do not exist: {sorted(named - exists)}"
    for top in re.findall(r"^(\S+/)", block, re.M):
        assert (ROOT / top).is_dir(), f"docs/architecture.md Layout names {top}, which does not exist"


def test_tests_are_grouped_by_stage():
    """Each test module sits in the folder of what it tests; a stage folder of the package has its tests'."""
    tests = ROOT / "tests"
    assert not list(tests.glob("test_*.py")), "a test module outside a stage folder"
    stages = {p.name for p in (ROOT / "supercoder_lsp").iterdir() if (p / "__init__.py").exists()}
    have = {p.parent.name for p in tests.glob("*/test_*.py")}
    # harness/ (the plan and the C it renders) is tested where it runs: tests/verify
    assert stages - {"harness"} <= have, f"stages without a test folder: {sorted(stages - have)}"
