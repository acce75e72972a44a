"""Optional parts of judgelog and the ``pip install "judgelog[...]"`` that brings each one.

A verb that needs an optional package imports it with :func:`require`; when the package is missing (or
cannot load) the user gets a :class:`~judgelog.errors.UsageError` (exit 2) naming the extra to install,
never an ImportError.

>>> EXTRAS["png"]
('cairosvg',)
>>> install_command("png")
'pip install "judgelog[png]"'
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from .errors import UsageError

__all__ = ["EXTRAS", "require", "install_command"]

# extra name (pyproject.toml's [project.optional-dependencies]) -> the modules it makes importable
EXTRAS: dict[str, tuple[str, ...]] = {
    "png": ("cairosvg",),
    "clingo": ("clingo",),
    "dask": ("dask", "distributed"),
    "test": ("pytest", "hypothesis"),
    "dev": ("mypy", "ruff", "build", "twine"),
}


def install_command(extra: str) -> str:
    return f'pip install "judgelog[{extra}]"'


def require(module: str, *, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` for ``purpose`` (e.g. ``"writing .png files"``), or raise a UsageError saying which
    extra to install. ``extra`` must be a key of :data:`EXTRAS` that provides ``module``."""
    if module.split(".")[0] not in EXTRAS.get(extra, ()):
        raise ValueError(f"the {extra!r} extra does not provide {module!r}")  # a mistake in judgelog's code
    try:
        return import_module(module)
    except ImportError:
        raise UsageError(
            f"{purpose} needs {module}, which is not installed", hint=f"install it with: {install_command(extra)}"
        ) from None
    except OSError as exc:  # installed, but a system library it loads is missing (cairosvg needs libcairo)
        raise UsageError(
            f"{purpose} needs {module}, which is installed but cannot load: {exc}",
            hint=f"install the system library it names, then {install_command(extra)}",
        ) from None
