"""Build stage: flags for a file, and the compiler/assembler/linker calls."""

from .compile import (
    BuildError,
    assemble,
    compile_object,
    compile_to_asm,
    defined_globals,
    file_variables,
    library_flags,
    link,
    objcopy,
    read_depfile,
    run_tool,
)
from .flags import ConfigError, resolve

__all__ = [
    "BuildError",
    "run_tool",
    "ConfigError",
    "assemble",
    "compile_object",
    "compile_to_asm",
    "defined_globals",
    "file_variables",
    "library_flags",
    "link",
    "objcopy",
    "read_depfile",
    "resolve",
]
