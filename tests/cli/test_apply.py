"""What a whole project gains: `supercoder apply` applies a project's verified wins, rebuilds it with its own
build, runs its tests and times its own workload against the -O3 build, -march=native and PGO side by side;
`supercoder report` makes one static page of it, checked in a real headless browser."""

from __future__ import annotations

import html.parser
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support import FIXTURES, supercoder

PROJECT = FIXTURES / "project" / "bits"  # a library (Makefile), its tests (make check) and a workload (bench)
BUILD = ["--build", "make", "--test", "make check", "--workload", "./bench 200000"]


def git(d: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(d), "-c", "user.name=t", "-c", "user.email=t@localhost", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> tuple[Path, Path]:
    """The project in a git work tree, and `supercoder optimize -o` run on its library's bit loop."""
    d = tmp_path_factory.mktemp("proj") / "bits"
    shutil.copytree(PROJECT, d)
    git(d, "init", "-q")
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "the project")
    rep = d.parent / "bits.json"
    p = supercoder(
        "optimize", "bits.c", "-f", "bits_set", "-p", "compilers", "-n", "4", "--inputs", "3000", "--no-cache",
        "-o", str(rep), cwd=d,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    return d, rep


def test_apply_times_the_projects_workload_with_the_wins_flags_and_pgo_side_by_side(project, tmp_path):
    d, rep = project
    out = tmp_path / "apply.json"
    patch = tmp_path / "wins.patch"
    # the flags reach the build where it says {cflags} (several words: -O3 -march=native, the PGO flags)
    build = ("--build", "make CFLAGS='{cflags}'", *BUILD[2:])
    p = supercoder("apply", str(rep), *build, "--runs", "6", "--patch", str(patch), "-o", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    res = json.loads(out.read_text())
    names = [b["name"] for b in res["builds"]]
    assert names == ["-O3 (reference)", "wins applied", "-O3 -march=native", "PGO"], names
    assert all(b["tests"] == "passed" for b in res["builds"]), res["builds"]
    # a loop of up to 64 steps against one popcnt per call: no machine's noise hides it end to end
    applied = res["builds"][1]
    assert applied["verdict"] == "faster" and applied["speedup_ci"][0] > 1.5, applied
    assert "popcnt" in applied["runs_on"] and "load time" in applied["runs_on"]
    assert "this one's extensions" in res["builds"][2]["runs_on"]
    assert "-fprofile-use" in res["builds"][3]["cflags"] and res["builds"][3]["speedup"], res["builds"][3]
    assert [w["function"] for w in res["wins"]] == ["bits_set"] and res["wins"][0]["kind"] == "attribute"
    for line in ("wins applied", "-O3 -march=native", "PGO", "speedup (95% CI)"):
        assert line in p.stdout
    # the user's tree is untouched; the patch applies to it and adds the attribute
    assert git(d, "status", "--porcelain") == ""
    text = patch.read_text()
    assert '+__attribute__((target_clones("popcnt", "default")))' in text
    git(d, "apply", "--check", str(patch))

    # the report page of the run, in a real browser
    page_dir = tmp_path / "report"
    p = supercoder("report", str(rep), str(out), "-o", str(page_dir), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    check_page_in_browser(page_dir, tmp_path)
    p = supercoder("report", str(rep), str(out), "-o", str(page_dir), "--markdown", cwd=tmp_path)
    assert "| `bits.c: bits_set` | faster |" in p.stdout and "| wins applied | passed |" in p.stdout, p.stdout


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])


def check_page_in_browser(page_dir: Path, tmp: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None:
        pytest.skip("no Chromium here (apt-get install chromium): the report page is not rendered")
    url = (page_dir / "index.html").as_uri()
    flags = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp / 'chrome'}"]
    dom = subprocess.run([*flags, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    page = _Page()
    page.feed(dom)
    assert "speedup-plot" in page.ids, dom[:2000]  # the plot is there, with a point and an interval per function
    circles = [a for t, a in page.tags if t == "circle" and a.get("class") == "point"]
    whiskers = [a for t, a in page.tags if t == "line" and a.get("class") == "ci"]
    assert len(circles) == 1 and len(whiskers) == 1
    assert float(whiskers[0]["x1"]) <= float(circles[0]["cx"]) <= float(whiskers[0]["x2"])
    assert dom.count("<tr>") >= 1 + 1 + 5, "functions, the end-to-end table's four builds"
    for href in page.hrefs:  # every link leads somewhere
        if href.startswith("#"):
            assert href[1:] in page.ids, href
        else:
            target = page_dir / href
            assert target.is_file() and target.stat().st_size > 0, href
    assert any(h.endswith(".s") and "popcnt" in (page_dir / h).read_text() for h in page.hrefs)
    shot = tmp / "report.png"
    subprocess.run([*flags, f"--screenshot={shot}", "--window-size=1200,1400", url], capture_output=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 20_000  # rendered, not a blank page


def test_a_win_is_applied_only_to_the_c_it_was_verified_on(project, tmp_path):
    d, rep = project
    (d / "bits.c").write_text((d / "bits.c").read_text().replace("c++;", "c += 1;"))
    try:
        p = supercoder("apply", str(rep), *BUILD, "--runs", "3", "--no-native", "--no-pgo", cwd=tmp_path)
    finally:
        git(d, "checkout", "bits.c")
    assert "leave  bits.c:bits_set  its C changed since the report" in p.stdout, p.stdout + p.stderr
    assert not (tmp_path / "supercoder-apply.patch").exists()


def test_wins_that_break_the_projects_tests_or_workload_are_not_written(project, tmp_path):
    d, rep = project
    # the project's own checks that fail once the attribute is in: nothing is written, exit 5
    p = supercoder(
        "apply", str(rep), "--build", "make", "--test", "make check && ! grep -q target_clones bits.c",
        "--workload", "./bench 100000", "--runs", "3", "--no-native", "--no-pgo", "--branch", "wins", cwd=tmp_path,
    )  # fmt: skip
    assert p.returncode == 5, p.stdout + p.stderr
    assert "not written: with the wins applied, the tests failed" in p.stderr
    # a workload that dies (or prints otherwise) in a build gets no figure, never a speedup
    p = supercoder(
        "apply", str(rep), "--build", "make", "--workload", "./bench 100000 && ! grep -q target_clones bits.c",
        "--runs", "3", "--no-native", "--no-pgo", "--branch", "wins", "-o", str(tmp_path / "a.json"), cwd=tmp_path,
    )  # fmt: skip
    assert p.returncode == 5, p.stdout + p.stderr
    applied = json.loads((tmp_path / "a.json").read_text())["builds"][1]
    assert applied["speedup"] is None and applied["verdict"].startswith("no figure: a workload run exited 1")
    # one that writes other bytes to a file with the wins applied (exit 0, the same stdout) gets none either
    p = supercoder(
        "apply", str(rep), "--build", "make", "--workload",
        "./bench 100000; grep -c target_clones bits.c > count.txt || true",
        "--runs", "3", "--no-native", "--no-pgo", "-o", str(tmp_path / "b.json"), cwd=tmp_path,
    )  # fmt: skip
    assert p.returncode == 5, p.stdout + p.stderr
    applied = json.loads((tmp_path / "b.json").read_text())["builds"][1]
    assert applied["speedup"] is None and "wrote other bytes to count.txt" in applied["verdict"], applied
    assert "wins" not in git(d, "branch") and not (tmp_path / "supercoder-apply.patch").exists()
    # the same run with checks that pass: the wins are committed on a branch, the work tree as it was
    p = supercoder(
        "apply", str(rep), *BUILD, "--runs", "3", "--no-native", "--no-pgo", "--branch", "wins", cwd=tmp_path
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "target_clones" in git(d, "show", "wins:bits.c") and "target_clones" not in (d / "bits.c").read_text()
    assert git(d, "status", "--porcelain") == ""


def test_a_workload_whose_output_varies_on_its_own_is_refused_with_what_to_do(project, tmp_path):
    _, rep = project
    p = supercoder(
        "apply", str(rep), "--build", "make", "--workload", "./bench 1000; date +%N",
        "--runs", "3", "--no-native", "--no-pgo", cwd=tmp_path,
    )  # fmt: skip
    assert p.returncode == 2, p.stdout + p.stderr
    assert "varies from run to run on the reference build (printed other output)" in p.stderr
    assert "make it deterministic" in p.stderr


def test_assembly_wins_go_in_with_the_c_kept_and_the_project_passes_its_tests(project, tmp_path):
    """A win with no source-level change (a SWAR popcount, replayed) goes in only with --assembly: under
    #if, with the C under #else and its evidence line; the project builds, passes its tests and runs its
    workload faster with it."""
    d, _ = project
    cands = tmp_path / "cands" / "bits_set"
    cands.mkdir(parents=True)
    swar = (FIXTURES / "lsp" / "cands" / "popcount" / "swar.s").read_text().replace("popcount", "bits_set")
    (cands / "swar.s").write_text(swar)
    rep = tmp_path / "swar.json"
    p = supercoder(
        "optimize", "bits.c", "-f", "bits_set", "-p", "replay", "--candidates", str(tmp_path / "cands"),
        "--inputs", "3000", "--no-cache", "-o", str(rep), cwd=d,
    )  # fmt: skip
    assert p.returncode == 0 and json.loads(rep.read_text())["functions"][0]["best"], p.stdout + p.stderr
    common = (*BUILD, "--runs", "4", "--no-native", "--no-pgo", "--patch", str(tmp_path / "swar.patch"))
    p = supercoder("apply", str(rep), *common, cwd=tmp_path)
    assert "leave  bits.c:bits_set  no source-level change; give --assembly" in p.stdout, p.stdout
    out = tmp_path / "a.json"
    p = supercoder("apply", str(rep), *common, "--assembly", "-o", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    res = json.loads(out.read_text())
    assert [(w["function"], w["kind"], w["kept_c"]) for w in res["wins"]] == [("bits_set", "assembly", "")]
    applied = res["builds"][1]
    assert applied["tests"] == "passed" and applied["verdict"] == "faster", applied
    text = (tmp_path / "swar.patch").read_text()
    assert "+#if defined(__x86_64__)" in text and "+/* supercoder-evidence: " in text and "+#else" in text
    git(d, "apply", "--check", str(tmp_path / "swar.patch"))


def test_assembly_is_not_put_in_place_of_a_function_that_is_static_by_a_macro(tmp_path):
    """zlib's `local` is `static` by a macro: tree-sitter cannot see it, the compiled object can. A global
    assembly symbol in its place would change its linkage, so the win is left, with the reason."""
    from supercoder_lsp.optimize.apply_wins import plan_edits
    from supercoder_lsp.source.replaced import fingerprints

    src = tmp_path / "m.c"
    src.write_text(
        "#define local static\nlocal int twice(int x) { return x + x; }\nint use(int x) { return twice(x); }\n"
    )
    asm = "\t.text\n\t.globl\ttwice\n\t.type\ttwice, @function\ntwice:\n\tleal\t(%rdi,%rdi), %eax\n\tret\n"
    best = {"label": "c", "speedup": 1.5, "speedup_ci": [1.4, 1.6], "headline": "1.50x", "assembly": asm}
    rep = {
        "file": str(src),
        "environment": {"flags": ["-O3"]},
        "source": {"path": str(src), "fingerprints": fingerprints(src.read_text())},
        "functions": [{"name": "twice", "status": "done", "best": best}],
    }
    edits = plan_edits([rep], assembly=True)
    assert not edits.wins and not edits.files
    [left] = edits.left
    assert "is not a global symbol of the compiled file" in left.why, left.why
