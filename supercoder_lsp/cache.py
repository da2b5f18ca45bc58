"""Results cache: one JSON file per key, in the user's cache directory.

Keys are content hashes (the file's source, flags, compiler version, CPU and
proposer settings). Writes go to a temporary file in the same directory and
are renamed into place, so a concurrent reader sees the old entry or the new
one, never half of one; a crash mid-write leaves at most a stray temp file.
An entry that cannot be read is treated as a miss and replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import platformdirs

from .model import FunctionResult
from .serialize import function_from_json, function_to_json

FORMAT = 2  # 2: the report's form of a function (serialize.function_to_json)


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
            return function_from_json(data["result"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, result: FunctionResult) -> bool:
        if self.problem:
            return False
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w") as f:
                    json.dump({"format": FORMAT, "key": key, "result": function_to_json(result)}, f)
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
