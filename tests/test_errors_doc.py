"""docs/errors.md stays true: every code the engine emits is documented, and every example taken from
tests/broken_rules/ is exactly what ``judgelog check`` prints for that file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import run_cli
from paths import ROOT

import judgelog

DOC = ROOT / "docs" / "errors.md"
TEXT = DOC.read_text(encoding="utf-8")
ENGINE = Path(judgelog.__file__).resolve().parent

HEADER = re.compile(r"^(tests/broken_rules/\S+?):\d+:\d+: (error|warning)\[[A-Z]\d{3}\]: ")


def emitted_codes():
    codes = set()
    for source in ENGINE.glob("*.py"):
        codes |= set(re.findall(r'Diagnostic\(\s*"([ESQ]\d{3})"', source.read_text(encoding="utf-8")))
    return codes


def example_blocks():
    """(file, diagnostic text) for every example of tests/broken_rules output in the document."""
    out = []
    for match in re.finditer(r"^( *)```\n(.*?)^\1```$", TEXT, re.MULTILINE | re.DOTALL):
        indent, body = len(match.group(1)), match.group(2)
        lines = [line[indent:] for line in body.splitlines()]
        current = None
        for line in lines:
            header = HEADER.match(line)
            if header:
                current = [header.group(1), [line]]
                out.append(current)
            elif current is not None and line.startswith(" "):
                current[1].append(line)
            else:
                current = None
    return [(file, "\n".join(block)) for file, block in out]


def test_every_emitted_code_is_documented():
    codes = emitted_codes()
    assert {"E001", "E005", "E014", "S100", "S101"} <= codes  # the scan works
    for code in sorted(codes):
        assert re.search(rf"^### {code} ", TEXT, re.MULTILINE), f"docs/errors.md does not document {code}"


def test_every_documented_code_exists():
    documented = set(re.findall(r"^### ([ESQ]\d{3}) ", TEXT, re.MULTILINE))
    assert documented == emitted_codes()


EXAMPLES = example_blocks()


def test_the_document_has_examples_for_the_broken_files():
    files = {file for file, _ in EXAMPLES}
    assert len(files) >= 12, files


@pytest.mark.parametrize(
    "file, block", EXAMPLES, ids=[f"{f.rsplit('/', 1)[-1]}-{i}" for i, (f, _) in enumerate(EXAMPLES)]
)
def test_documented_example_is_what_check_prints(capsys, monkeypatch, file, block):
    monkeypatch.chdir(ROOT)
    target = str(Path(file).parent) if "include_loop" in file else file
    run = run_cli(capsys, ["check", "--no-library", target])
    assert block in run.err, f"docs/errors.md shows:\n{block}\n\njudgelog check prints:\n{run.err}"
