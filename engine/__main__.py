"""``python -m judgelog`` and the ``judgelog`` command: :func:`judgelog.cli.main`, then a quick exit.

A process that has loaded a large board holds hundreds of thousands of objects; freeing them one by one at
interpreter shutdown took about a third of a whole ``judgelog query`` on a 1,000-creature board. The command
has written everything by then (output flushed, files closed), so it ends the process without that cleanup.
``judgelog.cli.main`` itself returns normally, for callers in Python.

The command's process also runs Python's cyclic garbage collector less often: reading the rule library from
its cache makes about a hundred thousand objects that live until the process ends, and with the default
thresholds the collector walked them again and again (about 50 ms of a 1,000-creature query, a fifth of
what the command adds to the evaluation itself). Its youngest generation is collected after a million new
objects: a start (the library from the cache, a board read, its facts put into pyDatalog, about 370,000
objects at 1,000 creatures) makes objects that live until the process ends, and each collection of them
found next to nothing to free (two collections, about 30 and 45 ms of a 1,000-creature query, with a
threshold of 100,000). Evaluation turns the collector off (judgelog.database.quiet_gc) but Python counts the
objects made meanwhile, so the first collection after it walks all of them. A longer command (``test``,
``verify``) is still collected, in larger steps; its peak memory stays the same (N=1,000 and N=5,000 boards).
"""

import gc
import os
import sys

from .cli import main

__all__ = ["console"]


def console() -> None:
    gc.set_threshold(1_000_000, 20, 100)  # see the module's text
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that went away; a stream already closed
            code = code or 0
    os._exit(code)


if __name__ == "__main__":
    console()
