"""The VS Code extension (editors/vscode): its unit tests under Node, its .vsix, and its settings schema
against the server's own settings. The run in a real VS Code is editors/vscode/scripts/smoke-code-server.sh
(`make smoke-vscode`): it needs code-server and Chromium, too heavy for every test run."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from supercoder_lsp.lsp import settings as server_settings

EXT = Path(__file__).resolve().parents[1] / "editors" / "vscode"
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
    shutil.which("npm") is None, reason="npm is not installed (Node.js >= 20 builds the extension)"
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
    r = subprocess.run(["npm", "test"], cwd=EXT, capture_output=True, text=True, timeout=600)
    passed = re.search(r"^# pass (\d+)$", r.stdout, re.M)
    failed = re.search(r"^# fail (\d+)$", r.stdout, re.M)
    assert r.returncode == 0 and failed and failed.group(1) == "0", r.stdout[-4000:] + r.stderr[-2000:]
    assert passed and int(passed.group(1)) >= 20


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


def test_every_server_setting_is_in_the_schema_with_the_servers_default():
    declared = _declared()
    defaults = server_settings.Settings()
    for key, (attr, _ok, _what) in server_settings._FIELDS.items():
        prop = declared.get(f"supercoder.{key}")
        assert prop is not None, f"supercoder.{key} is missing from editors/vscode/package.json"
        assert prop["default"] == getattr(defaults, attr), key
        assert prop.get("scope") and (prop.get("description") or prop.get("markdownDescription")), key
    for key, attr in server_settings._HINTS.items():
        assert declared[f"supercoder.hints.{key}"]["default"] == getattr(defaults.hints, attr), key
    # and nothing the server would call unknown, except the extension's own server.* and trace.*
    known = {f"supercoder.{k}" for k in server_settings._FIELDS} | {
        f"supercoder.hints.{k}" for k in server_settings._HINTS
    }
    extra = {k for k in declared if k not in known and not k.startswith(("supercoder.server.", "supercoder.trace."))}
    assert not extra


def test_schema_bounds_match_what_the_server_accepts():
    """A value VS Code's settings editor accepts is one the server accepts, at both ends of each range."""
    declared = _declared()
    for key, (_attr, ok, _what) in server_settings._FIELDS.items():
        prop = declared[f"supercoder.{key}"]
        for bound in ("minimum", "maximum"):
            if bound in prop:
                assert ok(prop[bound]), f"supercoder.{key}: the schema's {bound} {prop[bound]} is refused by the server"
        if "enum" in prop.get("items", {}):
            assert set(prop["items"]["enum"]) == set(server_settings.PROPOSERS)
    probe = server_settings.Settings()
    assert (
        server_settings.merge(
            probe,
            {
                k: declared[f"supercoder.{k}"]["default"]
                for k in server_settings._FIELDS
                if declared[f"supercoder.{k}"]["default"] is not None
            },
            "defaults",
        )
        == []
    )
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
