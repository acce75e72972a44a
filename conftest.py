"""Let pytest's own doctest collection (``pytest --doctest-modules engine/x.py``) agree with tests/test_doctests.py.

The package's source folder is ``engine/`` but it is installed as ``judgelog``. Collecting ``engine/x.py``
directly, pytest would import it a second time as ``engine.x``: a second copy of every module it imports
(``engine.ast``, ...) whose classes are not those of the ``judgelog`` the examples import, so an
``isinstance`` check in one copy fails on an object made by the other. Here the file is mapped to the
installed module before pytest imports it, so there is one copy, as in tests/test_doctests.py.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "engine"


def pytest_collect_file(file_path: Path, parent: object) -> None:
    if file_path.suffix != ".py" or file_path.resolve().parent != SOURCE:
        return
    stem = file_path.stem
    installed = importlib.import_module("judgelog" if stem == "__init__" else f"judgelog.{stem}")
    if Path(installed.__file__ or "").resolve() != file_path.resolve():
        return  # judgelog is installed from elsewhere (a wheel): its module is not this file, nothing to map
    sys.modules.setdefault("engine" if stem == "__init__" else f"engine.{stem}", installed)
