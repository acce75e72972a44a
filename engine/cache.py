"""The user's cache folder: results that are slow to build and fully determined by files, kept across processes.

An entry's address is a hash of what it was built from: judgelog's own code, the Python version, the options
and the content of the files read. An entry also lists every file it depends on with its content's hash and
is used only while they all still match, so a stale entry is never used and a corrupt one is rebuilt. An
address is found without reading the files when their status (modification and change times, size, inode)
and judgelog's own files' are those of a start before: a small *pointer* file, named by a hash of those
statuses, holds it (a write changes a file's change time, which no tool sets back). The
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
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["cache_dir", "enabled", "disabled", "address", "file_digest", "lookup", "store", "MAX_ENTRIES"]

MAX_ENTRIES = 32  # oldest entries beyond this are removed when one is written
_SETTLED_NS = 3_000_000_000  # a file last changed longer ago than this is trusted by its status
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
    """The address of what ``kind`` builds from ``options`` and the content of ``files`` (from a pointer
    when the files' status is one seen before: see the module's text)."""
    files = list(files)
    folder = cache_dir() if enabled() else None
    quick = _status_address(kind, options, files) if folder is not None else None
    if folder is not None and quick is not None:
        try:
            known = (folder / f"{quick}.pointer").read_text(encoding="ascii")
        except (OSError, ValueError):
            known = ""
        if len(known) == 40 and all(c in "0123456789abcdef" for c in known):
            return known
    digest = hashlib.sha1(repr((_FORMAT, kind, sys.version, _code_digest(), options)).encode())
    for path in files:
        digest.update(f"\0{path}\0{file_digest(path)}".encode())
    key = digest.hexdigest()
    if folder is not None and quick is not None:
        _write(folder, f"{quick}.pointer", key.encode("ascii"))
    return key


def _status(path: str | Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_dev)


@cache
def _code_status() -> tuple:
    package = Path(__file__).resolve().parent
    return tuple((path.name, _status(path)) for path in sorted(package.glob("*.py")))


def _status_address(kind: str, options: tuple, files: list[str]) -> str | None:
    """A hash of what :func:`address` hashes, with each file's status instead of its content; None when a file
    can't be read or changed lately (its address is then found from the files' content)."""
    statuses = [_status(path) for path in files]
    # a file changed in the last seconds may change again within the clock's step (file times are coarse)
    # keeping its times and size: it is read until it has been left alone for a while (as git does)
    recent = time.time_ns() - _SETTLED_NS
    if any(st is None or st[0] > recent or st[1] > recent for st in statuses):
        return None
    code = _code_status()
    return hashlib.sha1(repr((_FORMAT, kind, sys.version, code, options, files, statuses)).encode()).hexdigest()


@contextmanager
def _no_collection(*, lasting: bool = False) -> Iterator[None]:
    """No garbage collection while an entry is read: it makes tens of thousands of objects, none of them
    garbage, and the collector would walk them again and again as they are made (a third of the time).

    ``lasting``: the entry is kept to the process's end (its rule library). Its objects then go straight to the
    collector's oldest generation (``gc.freeze`` then ``gc.unfreeze``, which walk nothing): else each young
    collection after the read walks all of them again until they age there, a third of a small command's time.
    They are not left frozen: the collector would then leave them out of the count by which it decides when to
    walk the whole heap, and a process that builds a large board after would walk it more often."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if lasting:
            gc.freeze()
            gc.unfreeze()
    finally:
        if was_enabled:
            gc.enable()


def lookup(key: str, *, lasting: bool = False) -> Any | None:
    """The value stored at ``key``, or None (no entry, disabled, unreadable, corrupt, or a file it depends
    on has changed since). ``lasting``: the caller keeps the value to the process's end (see
    ``_no_collection``)."""
    folder = cache_dir()
    if folder is None or not enabled():
        return None
    try:
        with open(folder / f"{key}.pickle", "rb") as handle, _no_collection(lasting=lasting):
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
    try:
        data = pickle.dumps((_FORMAT, key, dict(depends), value), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError):
        return
    if _write(folder, f"{key}.pickle", data):
        _prune(folder, "*.pickle")
        _prune(folder, "*.pointer", keep=4 * MAX_ENTRIES)


def _write(folder: Path, name: str, data: bytes) -> bool:
    """Write ``name`` in ``folder`` atomically (readers see the old file or the new one); False on an error."""
    import tempfile  # only when writing: its imports cost a few ms on every start

    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, folder / name)
        except OSError:
            os.unlink(temp)
            raise
    except OSError:
        return False
    return True


def _prune(folder: Path, pattern: str, *, keep: int = MAX_ENTRIES) -> None:
    entries = []
    for path in folder.glob(pattern):
        try:
            entries.append((path.stat().st_mtime, path))
        except OSError:
            continue
    for _, path in sorted(entries, reverse=True)[keep:]:
        try:
            path.unlink()
        except OSError:
            continue
