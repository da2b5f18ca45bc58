"""`python -m supercoder_lsp` starts the language server (see supercoder_lsp/lsp/server.py)."""

from .lsp.server import main

raise SystemExit(main())
