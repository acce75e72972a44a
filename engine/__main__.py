"""``python -m judgelog`` and the ``judgelog`` command: :func:`judgelog.cli.main`, then a quick exit.

A process that has loaded a large board holds hundreds of thousands of objects; freeing them one by one at
interpreter shutdown took about a third of a whole ``judgelog query`` on a 1,000-creature board. The command
has written everything by then (output flushed, files closed), so it ends the process without that cleanup.
``judgelog.cli.main`` itself returns normally, for callers in Python.

The command's process also runs Python's cyclic garbage collector less often: reading the rule library from
its cache makes about a hundred thousand objects that live until the process ends, and with the default
thresholds the collector walked them again and again (about 50 ms of a 1,000-creature query, a fifth of
what the command adds to the evaluation itself).
"""

import gc
import os
import sys

from .cli import main

__all__ = ["console"]


def console() -> None:
    gc.set_threshold(100_000, 20, 100)  # as in the test processes (tests/conftest.py)
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that went away; a stream already closed
            code = code or 0
    os._exit(code)


if __name__ == "__main__":
    console()
