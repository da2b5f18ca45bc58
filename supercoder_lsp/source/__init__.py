"""C source: function definitions, their signatures and ranges, and prototype edits."""

from .ctype import ctype_from_text
from .edit import declaration_of, remove_definition
from .parse import find_function, function_at, parse_functions, preprocessor_conditions
from .positions import LineIndex

__all__ = [
    "LineIndex",
    "ctype_from_text",
    "declaration_of",
    "find_function",
    "function_at",
    "parse_functions",
    "preprocessor_conditions",
    "remove_definition",
]
