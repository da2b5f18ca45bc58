"""The SuperCoder language server (pygls 2): verified speedups as hints, lenses and code actions."""
