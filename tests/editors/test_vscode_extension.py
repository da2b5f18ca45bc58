"""The VS Code extension (editors/vscode): its unit tests under Node, its .vsix, and its settings schema
against the server's own settings. The run in a real VS Code is editors/vscode/scripts/smoke-code-server.sh
(`make smoke-vscode`): it needs code-server and Chromium, too heavy for every test run."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from support import ROOT, supercoder
import pytest

from supercoder_lsp.lsp import settings as server_settings

EXT = ROOT / "editors" / "vscode"
NODE_BUILTINS = {
    "fs",
    "path",
    "os",
    "child_process",
    "crypto",
    "net",
    "util",
    "events",
    "stream",
    "url",
    "assert",
    "buffer",
    "string_decoder",
    "tty",
    "worker_threads",
    "readline",
    "http",
    "https",
    "zlib",
}
pytestmark = pytest.mark.skipif(
    shutil.which("npm") is None, reason="missing tool: npm is not installed (Node.js >= 20 builds the extension)"
)


@pytest.fixture(scope="module")
def built() -> Path:
    vsix = EXT / "supercoder-lsp.vsix"
    vsix.unlink(missing_ok=True)
    r = subprocess.run(
        ["make", "-s", "vsix"], cwd=EXT.parents[1], capture_output=True, text=True, timeout=900
    )  # the README's
    assert r.returncode == 0, r.stdout + r.stderr
    return vsix


def test_unit_tests_of_the_client_glue_pass(built: Path):
    # this venv's Python has the package: the discovery's check is tried on a real interpreter that has it
    env = {**os.environ, "SUPERCODER_TEST_PYTHON": sys.executable}
    r = subprocess.run(["npm", "test"], cwd=EXT, capture_output=True, text=True, timeout=600, env=env)
    passed = re.search(r"^# pass (\d+)$", r.stdout, re.M)
    failed = re.search(r"^# fail (\d+)$", r.stdout, re.M)
    assert r.returncode == 0 and failed and failed.group(1) == "0", r.stdout[-4000:] + r.stderr[-2000:]
    assert passed and int(passed.group(1)) >= 26  # compiled afresh: a deleted test file does not linger in out/


def test_the_vsix_holds_the_compiled_extension_and_its_runtime_dependencies(built: Path):
    with zipfile.ZipFile(built) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
        bundle = z.read("extension/out/extension.js").decode()
    # one bundled file (esbuild) with the language client inside; only `vscode` comes from the host
    assert set(re.findall(r'require\("([^"]+)"\)', bundle)) <= {"vscode", *NODE_BUILTINS}
    assert "exports2.LanguageClient = " in bundle and "class _BaseLanguageClient" in bundle
    assert not any(n.startswith(("extension/src/", "extension/out/test/", "extension/node_modules/")) for n in names)
    assert manifest["main"] == "./out/extension.js" and "onLanguage:c" in manifest["activationEvents"]


def _declared() -> dict[str, dict]:
    manifest = json.loads((EXT / "package.json").read_text())
    return {k: v for group in manifest["contributes"]["configuration"] for k, v in group["properties"].items()}


JSON_TYPES = {int: "integer", float: "number", bool: "boolean", str: "string", Path: "string", tuple: "array"}


def test_every_server_setting_is_in_the_schema_as_declared():
    """The schema VS Code shows is the options' declaration (supercoder_lsp/options.py and lsp/settings.py):
    the same keys, defaults, types, bounds, choices and patterns."""
    declared = _declared()
    defaults = server_settings.as_dict(server_settings.Settings())
    for key, (_where, d) in server_settings.setting_keys().items():
        prop = declared.get(f"supercoder.{key}")
        assert prop is not None, f"supercoder.{key} is missing from editors/vscode/package.json"
        assert prop["default"] == defaults[key], key
        types = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
        assert JSON_TYPES[d.kind] in types and (("null" in types) == d.optional), key
        assert prop.get("minimum") == d.spec.lo and prop.get("maximum") == d.spec.hi, key
        assert prop.get("pattern") == d.spec.pattern, key
        enum = prop.get("items", {}).get("enum")
        assert (tuple(enum) if enum else None) == d.spec.choices, key
        assert prop.get("scope") and (prop.get("description") or prop.get("markdownDescription")), key
    # and nothing the server would call unknown, except the extension's own server.* and trace.*
    known = {f"supercoder.{k}" for k in server_settings.setting_keys()}
    extra = {k for k in declared if k not in known and not k.startswith(("supercoder.server.", "supercoder.trace."))}
    assert not extra


def test_the_extension_forwards_every_server_setting():
    """settings.ts sends the server exactly the keys the server declares (the rest are the extension's own)."""
    ts = (EXT / "src" / "settings.ts").read_text()
    lists = {
        name: re.findall(r'"([A-Za-z]+)"', body)
        for name, body in re.findall(r"export const (\w+) = \[(.*?)\] as const", ts, re.S)
    }
    sent = set(lists["SERVER_KEYS"]) | {f"hints.{k}" for k in lists["HINT_KEYS"]}
    assert sent == set(server_settings.setting_keys())


def test_schema_bounds_and_defaults_are_accepted_by_the_server():
    """A value VS Code's settings editor accepts is one the server accepts, at both ends of each range."""
    declared = _declared()
    for key in server_settings.setting_keys():
        prop = declared[f"supercoder.{key}"]
        for bound in ("minimum", "maximum"):
            if bound in prop:
                probe = server_settings.Settings()
                assert server_settings.merge(probe, {key: prop[bound]}, "schema") == [], f"{key}={prop[bound]}"
    probe = server_settings.Settings()
    nested: dict = {}
    for key in server_settings.setting_keys():
        value = declared[f"supercoder.{key}"]["default"]
        if value is not None:
            group, _, leaf = key.rpartition(".")
            (nested.setdefault(group, {}) if group else nested)[leaf] = value
    assert server_settings.merge(probe, nested, "defaults") == []
    assert dataclasses.asdict(probe) == dataclasses.asdict(server_settings.Settings())


def test_the_readmes_settings_are_valid_vscode_settings():
    """The settings.json snippet in README.md (editors/vscode/README-settings.json, which the smoke test loads
    into code-server) is in the README verbatim and every value fits the extension's schema."""
    text = (EXT / "README-settings.json").read_text()
    readme = (EXT.parents[1] / "README.md").read_text()
    assert f"```json\n{text}```" in readme
    declared = _declared()
    types = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list, "null": type(None)}
    for key, value in json.loads(text).items():
        prop = declared[key]
        allowed = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
        assert any(isinstance(value, types[t]) for t in allowed), key
        for item in value if isinstance(value, list) else []:
            assert item in prop["items"].get("enum", [item]), key
        assert (
            prop.get("minimum", value) <= value <= prop.get("maximum", value)
            if isinstance(value, (int, float))
            else True
        )
