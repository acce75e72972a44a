"""Run the doctests of every judgelog module (the installed package)."""
import doctest
import importlib
import pkgutil

import pytest

import judgelog

MODULES = sorted(m.name for m in pkgutil.iter_modules(judgelog.__path__, "judgelog."))


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
