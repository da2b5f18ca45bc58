"""Inputs shared by the verification and timing harnesses: the parameter plan and the C input generator."""

from importlib import resources
from pathlib import Path


def include_dir() -> Path:
    """The folder holding sc_rt.h, for `-I`."""
    return Path(str(resources.files(__name__)))
