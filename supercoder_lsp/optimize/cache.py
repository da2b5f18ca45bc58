"""Results cache: one JSON file per key, in the user's cache directory.

Keys are content hashes (the file's source, flags, compiler version, CPU and
proposer settings). An entry also names every other file its result came from
(the file's headers, the project's other files and theirs where a harness
linked them, the objects and libraries its link flags name) with the hash of
each one's contents; it is served only while every one of them is as it was,
so an edit to a header or to another file of the project is seen. Writes go
to a temporary file in the same directory and are renamed into place, so a
concurrent reader sees the old entry or the new one, never half of one; a
crash mid-write leaves at most a stray temp file. An entry that cannot be read
is treated as a miss and replaced.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

import platformdirs

from ..model import FunctionResult
from ..serialize import function_from_json, function_to_json

FORMAT = 3  # 2: the report's form of a function (serialize.function_to_json); 3: with its inputs' hashes


def default_dir() -> Path:
    return Path(os.environ.get("SUPERCODER_CACHE_DIR") or platformdirs.user_cache_dir("supercoder")) / "results"


class Cache:
    def __init__(self, directory: str | Path | None = None):
        self.dir = Path(directory) if directory else default_dir()
        self.problem: str | None = None
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            self.problem = f"cache disabled: cannot create {self.dir} ({e.strerror}); results are not saved"

    def objects_dir(self) -> Path:
        """Where the project's other files' objects are kept between runs (build/object_cache.py)."""
        return self.dir / "objects"

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> FunctionResult | None:
        try:
            data = json.loads(self._path(key).read_text())
            if data.get("format") != FORMAT:
                return None
            inputs = data["inputs"]
            if not isinstance(inputs, dict) or any(_contents(Path(p)) != h for p, h in inputs.items()):
                return None  # a header or another file of the project changed since (or is gone)
            return function_from_json(data["result"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, result: FunctionResult, inputs: dict[str, str | None] | None = None) -> bool:
        """Keep `result` under `key`, served while every file of `inputs` (content_hashes, taken when the
        run read them: a header saved while the run went on must not pass for the one it used) has the
        contents it had."""
        if self.problem:
            return False
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w") as f:
                    entry = {"format": FORMAT, "key": key, "inputs": inputs or {}, "result": function_to_json(result)}
                    json.dump(entry, f)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
            return True
        except OSError as e:  # full disk, read-only cache: report, never fail the run
            self.problem = f"cache not written: {path.parent} ({e.strerror})"
            return False

    def clear(self) -> int:
        """Remove every entry (and stray temp files); return how many entries went."""
        removed = 0
        if not self.dir.is_dir():
            return 0
        shutil.rmtree(self.objects_dir(), ignore_errors=True)  # build/object_cache.py's: not counted
        for entry in self.dir.glob("*/*.json"):
            try:
                entry.unlink()
                removed += 0 if entry.name.startswith(".tmp-") else 1
            except OSError as e:
                self.problem = f"cache not fully cleared: {entry} ({e.strerror})"
        return removed


def content_hashes(paths: Iterable[Path]) -> dict[str, str | None]:
    """Each file's absolute path and the hash of its contents, as Cache.put keeps them."""
    return {str(p.resolve()): _contents(p) for p in paths}


def _contents(path: Path) -> str | None:
    """The hash of a file's contents (None where it cannot be read): a file saved again unchanged, or
    checked out anew, still matches."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
