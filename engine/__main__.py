"""``python -m judgelog``: the ``judgelog`` command (same verbs, options, output and exit codes)."""
import sys

from .cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
