"""The user's cache folder: results that are slow to build and fully determined by files, kept across processes.

An entry's address is a hash of what it was built from: judgelog's own code, the Python version, the options
and the content of the files read. An entry also lists every file it depends on with its content's hash and
is used only while they all still match, so a stale entry is never used and a corrupt one is rebuilt. The
folder is ``$XDG_CACHE_HOME/judgelog`` (``~/.cache/judgelog`` when that is not set). ``JUDGELOG_NO_CACHE=1``
or ``--no-cache`` bypass it; a folder that cannot be written is skipped silently.

>>> key = address("example", options=(1, 2), files=[])
>>> len(key)
40
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["cache_dir", "enabled", "disabled", "address", "file_digest", "lookup", "store", "MAX_ENTRIES"]

MAX_ENTRIES = 32  # oldest entries beyond this are removed when one is written
_FORMAT = 1
_disabled_depth = 0


def cache_dir() -> Path | None:
    """``$XDG_CACHE_HOME/judgelog``, else ``~/.cache/judgelog``; None when neither is an absolute path (a
    relative XDG_CACHE_HOME is ignored, as the XDG specification says; no home folder: no cache)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "judgelog" if os.path.isabs(base) else None


def enabled() -> bool:
    return _disabled_depth == 0 and os.environ.get("JUDGELOG_NO_CACHE", "") in ("", "0") and cache_dir() is not None


@contextmanager
def disabled() -> Iterator[None]:
    """Within this block nothing is read from or written to the cache (``--no-cache``)."""
    global _disabled_depth
    _disabled_depth += 1
    try:
        yield
    finally:
        _disabled_depth -= 1


def file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha1(handle.read()).hexdigest()
    except OSError:
        return None


@cache
def _code_digest() -> str:
    """judgelog's own source (any other version, or an edited checkout, builds other results)."""
    digest = hashlib.sha1()
    package = Path(__file__).resolve().parent
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def address(kind: str, *, options: tuple, files: Iterable[str]) -> str:
    """The address of what ``kind`` builds from ``options`` and the content of ``files``."""
    digest = hashlib.sha1(repr((_FORMAT, kind, sys.version, _code_digest(), options)).encode())
    for path in files:
        digest.update(f"\0{path}\0{file_digest(path)}".encode())
    return digest.hexdigest()


@contextmanager
def _no_collection() -> Iterator[None]:
    """No garbage collection while an entry is read: it makes tens of thousands of objects, none of them
    garbage, and the collector would walk them again and again as they are made (a third of the time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def lookup(key: str) -> Any | None:
    """The value stored at ``key``, or None (no entry, disabled, unreadable, corrupt, or a file it depends
    on has changed since)."""
    folder = cache_dir()
    if folder is None or not enabled():
        return None
    try:
        with open(folder / f"{key}.pickle", "rb") as handle, _no_collection():
            entry = pickle.load(handle)
    except (
        OSError,
        EOFError,
        pickle.UnpicklingError,
        AttributeError,
        ImportError,
        IndexError,
        TypeError,
        ValueError,
        MemoryError,
        RecursionError,
    ):
        return None
    if not (
        isinstance(entry, tuple) and len(entry) == 4 and entry[:2] == (_FORMAT, key) and isinstance(entry[2], dict)
    ):
        return None
    if any(file_digest(path) != digest for path, digest in entry[2].items()):
        return None
    return entry[3]


def store(key: str, value: Any, *, depends: dict[str, str | None]) -> None:
    """Keep ``value`` at ``key``; ``depends`` maps each file it was built from to its :func:`file_digest`."""
    folder = cache_dir()
    if folder is None or not enabled():
        return
    import tempfile  # only when writing: its imports cost a few ms on every start

    try:
        folder.mkdir(parents=True, exist_ok=True)
        data = pickle.dumps((_FORMAT, key, dict(depends), value), protocol=pickle.HIGHEST_PROTOCOL)
        handle, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, folder / f"{key}.pickle")  # atomic: readers see the old entry or the new one
        except OSError:
            os.unlink(temp)
            raise
        _prune(folder)
    except (OSError, pickle.PicklingError, RecursionError):
        return


def _prune(folder: Path) -> None:
    entries = []
    for path in folder.glob("*.pickle"):
        try:
            entries.append((path.stat().st_mtime, path))
        except OSError:
            continue
    for _, path in sorted(entries, reverse=True)[MAX_ENTRIES:]:
        try:
            path.unlink()
        except OSError:
            continue
