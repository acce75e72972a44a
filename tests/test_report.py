"""``judgelog report``: one self-contained HTML page (graph, event log, collapsible proof trees with CR
numbers and file:line), checked as text and in a real headless Chromium (the OS package ``chromium``; CI
installs it): the page renders, a proof node opens on a real mouse click, and a screenshot is taken."""

from __future__ import annotations

import json
import re

import pytest
from browser import Browser
from helpers import run_cli
from paths import SCENARIOS

BAND = str(SCENARIOS / "banding_blocked_by_one.yaml")
COMBAT = str(SCENARIOS / "combat_declare_and_damage.yaml")


def _report(tmp_path, capsys, *argv):
    out = tmp_path / "report.html"
    run = run_cli(capsys, ["report", *argv, "-o", out])
    assert run.code == 0, run.err
    return out, run


def test_the_page_is_self_contained(tmp_path, capsys):
    out, run = _report(tmp_path, capsys, BAND)
    page = out.read_text(encoding="utf-8")
    assert run.out.strip() == f"wrote {out} (2 proof(s), 0 event(s))" or run.out.startswith(f"wrote {out}")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert not re.search(r"""(src|href)\s*=\s*["'](https?:|//|file:)""", page)  # nothing to fetch
    assert "<script" not in page and "<link" not in page and "@import" not in page
    # every damage_assigner fact is explained by default, with its rules' CR numbers and file:line
    assert "damage_assigner(bears, alice)" in page and "damage_assigner(wurm, alice)" in page
    assert "CR 702.22k" in page and re.search(r"rules/keywords/banding\.dl:\d+", page)
    assert "<details" in page and "<summary>" in page


def test_chosen_atoms_and_the_event_log(tmp_path, capsys):
    # after the file's actions the Bears are dead: the Wurm stays blocked (509.1h), with nobody to divide the
    # damage it no longer assigns (510.1c)
    out, _ = _report(tmp_path, capsys, COMBAT, "--explain", "blocked(wurm)")
    page = out.read_text(encoding="utf-8")
    assert page.count('class="proof"') == 1
    assert "declare_attackers" in page or "attacks" in page
    assert "damage_dealt" in page  # the combat damage event of the file's actions


def test_json_document(tmp_path, capsys):
    out = tmp_path / "r.html"
    run = run_cli(capsys, ["report", "--format", "json", BAND, "-o", out])
    data = json.loads(run.out)
    assert data["schema"] == "judgelog/report/1" and data["output"] == str(out)
    assert data["atoms"] == [
        "damage_assigner(bears, alice)",
        "damage_assigner(hero, alice)",
        "damage_assigner(wurm, alice)",
    ]


def test_an_atom_that_does_not_hold_is_said_and_exits_1_as_explain(tmp_path, capsys):
    # bears are not dividing wurm's damage: the page shows no proof, and the verb says so, with explain's exit 1
    out = tmp_path / "r.html"
    atom = "damage_assigner(wurm, bob)"
    run = run_cli(capsys, ["report", BAND, "--explain", atom, "-o", out])
    explained = run_cli(capsys, ["explain", BAND, atom])
    assert run.code == explained.code == 1
    assert run.out.splitlines() == [
        f"wrote {out} (0 proof(s), 0 event(s))",
        f"{atom} does not hold: no proof on the page (judgelog explain --why-not shows why)",
    ]
    assert f'<span class="atom">{atom}</span> <span class="kind">does not hold</span>' in out.read_text()
    # one that holds beside it: one proof, the other said
    run = run_cli(
        capsys,
        ["report", "--format", "json", BAND, "--explain", "damage_assigner(wurm, alice)", "--explain", atom, "-o", out],
    )
    assert run.code == 1 and run.json()["not_holding"] == [atom]


def test_an_unknown_atom_is_a_usage_error(tmp_path, capsys):
    run = run_cli(capsys, ["report", BAND, "--explain", "damage_assigner(worm, alice)", "-o", tmp_path / "r.html"])
    assert run.code == 2 and "did you mean 'wurm'?" in run.err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_in_headless_chromium(tmp_path, capsys):
    path = Browser.find()
    if path is None:
        pytest.skip("no Chromium: install the OS package (apt-get install -y chromium); .ci/run does")
    out, _ = _report(tmp_path, capsys, BAND)
    with Browser(path) as browser:
        browser.open(out.as_uri())
        assert browser.evaluate("document.title").startswith("An attacking band blocked by one creature")
        size = browser.evaluate(
            "(() => { const r = document.querySelector('.graph svg').getBoundingClientRect();"
            " return [r.width, r.height]; })()"
        )
        assert size[0] > 100 and size[1] > 100  # the graph is drawn
        assert browser.evaluate("document.querySelectorAll('details.proof').length") == 3
        assert browser.evaluate("document.querySelector('details.proof').open") is False
        premise = "document.querySelector('details.proof > details, details.proof > .leaf')"
        assert browser.evaluate(f"{premise}.checkVisibility()") is False  # premises hidden before the click
        x, y = browser.evaluate(
            "(() => { const s = document.querySelector('details.proof > summary');"
            " s.scrollIntoView(); const r = s.getBoundingClientRect();"
            " return [r.left + 10, r.top + r.height / 2]; })()"
        )
        browser.click(x, y)
        assert browser.evaluate("document.querySelector('details.proof').open") is True
        assert browser.evaluate(f"{premise}.checkVisibility()") is True  # and shown after it
        shown = browser.evaluate("document.querySelector('details.proof').innerText")
        assert "CR 702.22k" in shown and "banding.dl:" in shown
        shot = tmp_path / "report.png"
        browser.screenshot(str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
