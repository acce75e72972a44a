"""Paths of the repository, for tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "facts" / "scenarios"
TESTS = Path(__file__).resolve().parent
