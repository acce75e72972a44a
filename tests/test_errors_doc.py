"""docs/errors.md stays true: it documents exactly the codes of the registry (judgelog.codes), each in the
section the registry names, and every example taken from tests/broken_rules/ is exactly what
``judgelog check`` prints for that file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import run_cli
from paths import ROOT

from judgelog import codes
from judgelog.codes import CODES, doc_anchor
from judgelog.errors import Diagnostic, LimitError

DOC = ROOT / "docs" / "errors.md"
TEXT = DOC.read_text(encoding="utf-8")

HEADER = re.compile(r"^(tests/broken_rules/\S+?):\d+:\d+: (error|warning)\[[A-Z]\d{3}\]: ")


CODE = r"[A-Z]\d{3}"


def headings():
    """Each section heading of the document: its anchor -> its text."""
    return {doc_anchor(h): h for h in re.findall(r"^#{2,3} (.+)$", TEXT, re.MULTILINE)}


def documented_codes():
    """Every code a section heading names: ``### E001 syntax error``, ``### Limits (L001-L003)`` (a range)."""
    out = {}
    for anchor, heading in headings().items():
        for first, last in re.findall(rf"\b({CODE})(?:-({CODE}))?\b", heading):
            last = last or first
            for n in range(int(first[1:]), int(last[1:]) + 1):
                out[f"{first[0]}{n:03d}"] = anchor
    return out


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


def test_every_registered_code_is_documented_in_its_section():
    sections = headings()
    for entry in CODES.values():
        assert entry.anchor in sections, f"docs/errors.md has no section #{entry.anchor} for {entry.code}"
        assert documented_codes().get(entry.code) == entry.anchor, f"#{entry.anchor} does not name {entry.code}"


def test_every_documented_code_is_registered():
    documented = documented_codes()
    assert {"E001", "E016", "L002", "I001", "S100", "Q001", "S200"} <= set(documented)  # the scan works
    assert set(documented) == set(CODES)
    # the table at the top links each code to its section
    for code, anchor in re.findall(rf"^\| \[({CODE})\S*\]\(#([\w-]+)\)", TEXT, re.MULTILINE):
        assert CODES[code].anchor == anchor, code


def test_every_registered_code_is_the_constant_of_its_name():
    for code in CODES:
        assert getattr(codes, code) == code and type(getattr(codes, code)) is str  # printed as it was
        assert code in codes.__all__
    assert Diagnostic(codes.E003, "m").to_dict()["code"] == "E003"
    assert Diagnostic(codes.E003, "m").render() == "<input>: error[E003]: m"


def test_a_code_the_registry_lacks_is_refused_where_it_is_made():
    with pytest.raises(ValueError, match="E999 is not a registered error code"):
        Diagnostic("E999", "a message")
    with pytest.raises(ValueError, match="L999"):
        LimitError("L999", "a message")


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
