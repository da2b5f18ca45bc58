"""Assembly stage: cut a function out of a compiler's `.s`, normalize candidate
assembly, vet assembled objects, and name the instruction families and CPU
flags a piece of assembly needs.

    cut.py       cut_function, normalize_candidate, list_functions, rename_local_labels
    elfcheck.py  inspect_object, check_object (pyelftools)
    features.py  instruction_features, required_cpu_flags, cpu_flags, missing_cpu_flags
    parse.py     the statement parser they share
"""

from .cut import (
    AsmFunction,
    FunctionMissing,
    cut_function,
    list_functions,
    normalize_candidate,
    rename_local_labels,
    rename_symbols,
)
from .elfcheck import ElfReport, check_object, inspect_object
from .features import cpu_flags, cpu_model, instruction_features, missing_cpu_flags, required_cpu_flags

__all__ = [
    "AsmFunction",
    "ElfReport",
    "FunctionMissing",
    "check_object",
    "cpu_flags",
    "cpu_model",
    "cut_function",
    "inspect_object",
    "instruction_features",
    "list_functions",
    "missing_cpu_flags",
    "normalize_candidate",
    "rename_local_labels",
    "rename_symbols",
    "required_cpu_flags",
]
