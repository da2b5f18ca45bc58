"""SuperCoder LSP: find hot C functions, propose faster assembly, keep only what is verified and measured."""

__version__ = "0.1.0"
