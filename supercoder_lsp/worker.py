"""A warm worker for the language server: the command line, imported ahead of its job.

`python -m supercoder_lsp.worker` imports everything a job needs (about 0.3 s of a
job's start on this machine), then waits for one line on stdin, a JSON object
`{"argv": [...], "cwd": "..."}`, and runs `supercoder <argv>` in `cwd` as
`python -m supercoder_lsp.cli <argv>` would. The server keeps one ready (lsp/jobs.py),
so a job begins at its first stage instead of at its imports. Where stdin ends with no
line (the server went, or let it go), it exits 0 having run nothing.
"""

from __future__ import annotations

import json
import os
import sys

from . import cli


def main() -> int:
    line = sys.stdin.readline()
    if not line.strip():
        return 0
    job = json.loads(line)
    os.chdir(job["cwd"])
    return cli.main(list(job["argv"]))


if __name__ == "__main__":
    sys.exit(main())
