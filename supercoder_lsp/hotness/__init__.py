"""Which functions are hot: a static guess from loops, or callgrind instruction counts."""

from .callgrind import (
    ProfileError,
    ProfileTimeout,
    ProgramFailed,
    ValgrindNotFound,
    callgrind_profile,
    inclusive_shares,
    merge_costs,
    parse_callgrind_file,
    source_name,
)
from .rank import inlined_or_unprofiled, rank
from .static import static_score, static_scores

__all__ = [
    "ProfileError",
    "ProfileTimeout",
    "ProgramFailed",
    "ValgrindNotFound",
    "callgrind_profile",
    "inclusive_shares",
    "inlined_or_unprofiled",
    "merge_costs",
    "parse_callgrind_file",
    "rank",
    "source_name",
    "static_score",
    "static_scores",
]
