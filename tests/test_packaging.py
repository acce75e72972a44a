"""The package as users get it: one version, the license, extras with one name per purpose (each documented,
each missing one reported as the pip command to run), ``python -m judgelog``, the changelog."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest
from helpers import run_cli
from paths import ROOT, SCENARIOS

import judgelog
from judgelog import UsageError, extras
from judgelog.exits import EXIT_USAGE, exit_code

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BANDING = str(SCENARIOS / "banding_blocked_by_one.yaml")


def test_one_version(capsys):
    assert judgelog.__version__ == PROJECT["version"]
    run = run_cli(capsys, ["--version"])
    assert (run.code, run.out) == (0, f"judgelog {PROJECT['version']}\n")
    for source in (ROOT / "engine").glob("*.py"):  # no second copy of the number in the package
        assert f'"{PROJECT["version"]}"' not in source.read_text(encoding="utf-8"), source.name


def test_mit_license_declared_shipped_and_named():
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert not any(c.startswith("License ::") for c in PROJECT["classifiers"])  # the SPDX field says it
    assert re.search(r"^## License\n\n.*MIT", README, re.M)
    assert "setuptools>=77" in PYPROJECT["build-system"]["requires"]  # the first to read `license = "MIT"`


def test_requires_python_is_what_ci_runs():
    assert PROJECT["requires-python"] == ">=3.11"
    assert "Programming Language :: Python :: 3.11" in PROJECT["classifiers"]
    assert sys.version_info[:2] >= (3, 11)
    assert (ROOT / "engine" / "py.typed").exists() and "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"][
        "judgelog"
    ]


def _names(requirements):
    return {re.match(r"[A-Za-z0-9_.-]+", r).group().lower() for r in requirements}


def test_extras_one_name_per_purpose_each_documented():
    declared = PROJECT["optional-dependencies"]
    assert set(declared) == set(extras.EXTRAS) | {"all"}
    for extra, modules in extras.EXTRAS.items():
        assert set(modules) <= _names(declared[extra]), extra
        assert f"judgelog[{extra}]" in README, f"README does not document the {extra!r} extra"
    assert declared["all"] == ["judgelog[" + ",".join(extras.EXTRAS) + "]"]
    assert "cairosvg" in _names(declared["png"])


@pytest.mark.parametrize("extra, module", [(e, m) for e, ms in extras.EXTRAS.items() for m in ms])
def test_a_missing_extra_is_a_usage_error_naming_the_install(extra, module, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    with pytest.raises(UsageError) as info:
        extras.require(module, extra=extra, purpose="this verb")
    assert exit_code(info.value) == EXIT_USAGE == 2
    assert info.value.message == f"this verb needs {module}, which is not installed"
    assert info.value.hint == f'install it with: pip install "judgelog[{extra}]"'


def test_an_extra_that_cannot_load_its_system_library(monkeypatch):
    def broken(name):
        raise OSError('no library called "cairo-2" was found')

    monkeypatch.setattr(extras, "import_module", broken)
    with pytest.raises(UsageError) as info:
        extras.require("cairosvg", extra="png", purpose="writing .png files")
    assert "cannot load: no library called" in info.value.message
    assert 'pip install "judgelog[png]"' in info.value.hint


def test_require_refuses_a_module_the_extra_does_not_provide():
    with pytest.raises(ValueError):
        extras.require("matplotlib", extra="png", purpose="x")
    assert extras.require("pytest", extra="test", purpose="running the tests").__name__ == "pytest"


def test_python_dash_m_judgelog_is_the_command(capsys):
    argv = ["query", BANDING, "blocked_by(wurm, B)", "--format", "json"]
    here = run_cli(capsys, argv)
    child = subprocess.run([sys.executable, "-m", "judgelog"] + argv, capture_output=True, text=True)
    assert (child.returncode, child.stdout) == (here.code, here.out) == (0, here.out)
    usage = subprocess.run([sys.executable, "-m", "judgelog", "query"], capture_output=True, text=True)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: judgelog query")


def test_changelog_keeps_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n") and "https://keepachangelog.com/en/1.1.0/" in text
    releases = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert releases[0] == ("Unreleased", "") and ("0.1.0", "2026-11-30") in releases
    assert PROJECT["version"] in {r[0] for r in releases}
    kinds = set(re.findall(r"^### (.+)$", text, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_quick_exit_keeps_every_file_written(capsys, tmp_path):
    """`python -m judgelog` ends with os._exit: what the verb wrote must be complete all the same."""
    here, there = tmp_path / "here.svg", tmp_path / "there.svg"
    assert run_cli(capsys, ["graph", BANDING, "-o", str(here)]).code == 0
    child = subprocess.run(
        [sys.executable, "-m", "judgelog", "graph", BANDING, "-o", str(there)], capture_output=True, text=True
    )
    assert child.returncode == 0 and there.read_bytes() == here.read_bytes() and here.stat().st_size > 1000
    big = subprocess.run(
        [sys.executable, "-m", "judgelog", "rules", "--format", "json"], capture_output=True, text=True
    )  # more output than a pipe buffer holds: flushed before the exit
    assert big.returncode == 0 and len(big.stdout) > 65536 and big.stdout.rstrip().endswith(("}", "]"))
