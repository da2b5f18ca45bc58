"""Build stage: flags for a file, and the compiler/assembler/linker calls."""

from .compile import BuildError, run_tool, assemble, compile_object, compile_to_asm, link, objcopy
from .flags import ConfigError, resolve

__all__ = ["BuildError", "run_tool", "ConfigError", "assemble", "compile_object", "compile_to_asm", "link", "objcopy", "resolve"]
