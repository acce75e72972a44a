"""Reading the files a user (or a scenario someone sent them) names: regular files only, under a size cap,
and, for the paths a scenario names, never outside the scenario's folder unless the user allows it.

A scenario file is something a judge receives from someone else. The rule files it names (``rules:``) and
the files those include (``.include``) resolve relative to the naming file and must lie inside the
scenario's folder, or inside a folder the user allows (``--allow-dir DIR``, the ``JUDGELOG_ALLOW_DIRS``
environment variable, a list separated by ``os.pathsep``, or :func:`allowing`). Every file judgelog
reads must be a regular file (not a device such as ``/dev/zero``, not a FIFO) no larger than its cap.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> inside(os.path.join(folder, "rules", "x.dl"), [folder]), inside("/etc/passwd", [folder])
(True, False)
"""

from __future__ import annotations

import contextvars
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

__all__ = [
    "MAX_RULE_BYTES",
    "UnsafeFile",
    "read_text",
    "not_utf8_at",
    "inside",
    "allowed_dirs",
    "allowing",
    "scenario_roots",
    "problem",
]

MAX_RULE_BYTES = 4_000_000  # one rule file (the whole shipped library is about 0.3 MB)

_ALLOWED: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("judgelog_allowed_dirs", default=())


class UnsafeFile(OSError):
    """A file judgelog refuses to read (not a regular file, too large); ``str()`` says why."""


def read_text(path: str, *, limit: int) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes. Raises FileNotFoundError, UnsafeFile,
    other OSErrors and UnicodeDecodeError (ValueError); never blocks on a FIFO or reads a device."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO does not wait for a writer
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory", path)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(f"{path} is not a regular file")
        if info.st_size > limit:
            raise UnsafeFile(f"{path} is larger than {limit} bytes")
        chunks, size = [], 0
        while True:  # st_size may be 0 for generated files (/proc): read at most limit + 1 bytes
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise UnsafeFile(f"{path} is larger than {limit} bytes")
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8")


def not_utf8_at(exc: UnicodeDecodeError) -> tuple[int, int, str]:
    """Where the first byte that is not UTF-8 is (line, column, both 1-based) and the byte, as ``0xe9``."""
    raw = exc.object[: exc.start]
    return raw.count(b"\n") + 1, exc.start - raw.rfind(b"\n"), f"0x{exc.object[exc.start]:02x}"


def inside(path: str, roots: Iterable[str]) -> bool:
    """Does ``path`` (symbolic links resolved) lie inside one of ``roots``?"""
    real = os.path.realpath(path)
    for root in roots:
        base = os.path.realpath(root)
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def allowed_dirs() -> tuple[str, ...]:
    """Folders the user allows scenarios to name files in, besides the scenario's own folder."""
    env = tuple(p for p in os.environ.get("JUDGELOG_ALLOW_DIRS", "").split(os.pathsep) if p)
    return _ALLOWED.get() + env


@contextmanager
def allowing(dirs: Sequence[str]) -> Iterator[None]:
    """Allow scenarios loaded in this block (this thread or task) to name files in ``dirs``."""
    token = _ALLOWED.set(_ALLOWED.get() + tuple(str(d) for d in dirs))
    try:
        yield
    finally:
        _ALLOWED.reset(token)


def scenario_roots(scenario_path: str) -> list[str] | None:
    """Where the files a scenario names may lie: its own folder and the allowed folders; None for a
    scenario given as data in Python (``<dict>``, no file: the program that built it is trusted)."""
    if not scenario_path or scenario_path.startswith("<"):
        return None
    return [os.path.dirname(scenario_path) or "."] + list(allowed_dirs())


def problem(path: str, roots: Sequence[str] | None, *, limit: int = MAX_RULE_BYTES) -> str | None:
    """Why a scenario may not name ``path`` (None when it may): outside the roots, missing, not a regular
    file, too large. Only metadata is read."""
    if "\0" in path:
        return "a file name cannot contain a NUL character"
    if roots is not None and not inside(path, roots):
        return "it is outside the scenario's folder"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None  # reported by the loader (E010), like a missing --rules file
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISDIR(info.st_mode):
        return None  # a folder of rule files: each is read through read_text
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if info.st_size > limit:
        return f"it is larger than {limit} bytes"
    return None
