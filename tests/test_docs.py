"""The documentation cannot rot: every code block of README.md and docs/*.md is run or checked here.

* ```console (or ```bash with ``$ `` prompts): each ``$ judgelog ...`` line is run in this process with the
  repository root as working directory, and its output (stderr and stdout, in the order written) must be
  the lines that follow it. A line ``...`` stands for any number of lines; a line ending in ``...`` is a
  prefix. ``$`` lines that run something other than judgelog (pip, pytest) are not run.
* ```bash (or ```sh, ```shell) without prompts: each ``judgelog`` command (also after ``&&``) must exit
  0, or N when the line's comment says ``exits N``. Other commands are not run.
* ```python: run statement by statement; an expression followed by a comment ``# -> VALUE`` or ``# [...]``
  (on its line or the next) must evaluate to that value.
* ```yaml: must be valid YAML; a complete scenario (it has ``players:`` or ``objects:``) must load.
* ```prolog: must parse (fragments may use undeclared predicates, so they are not checked further).

Files written by ``-o``/``--output``/``--dot`` go to a temporary folder, never into the repository.
docs/cli.md is generated (``python -m judgelog.clidoc > docs/cli.md``) and must be up to date; the pictures
in docs/images/ must be what their documented ``judgelog graph`` commands write.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
import yaml
from paths import ROOT

from judgelog import clidoc
from judgelog.cli import main
from judgelog.parser import parse_text
from judgelog.scenario import compile_scenario

DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
OUTPUT_OPTIONS = ("-o", "--output", "--dot")


def blocks(doc: Path, *langs):
    """(line of the opening fence, language, body) of each fenced block in ``langs``."""
    text = doc.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))
        for m in BLOCK.finditer(text)
        if m.group(1) in langs
    ]


def _ids(params):
    return [f"{p[0].name}:{p[1]}" for p in params]


# -- running judgelog as the docs show it ---------------------------------------------------------------
class Shell:
    """Runs ``judgelog`` command lines in-process; output files are redirected into ``tmp``."""

    def __init__(self, capsys, tmp: Path):
        self.capsys, self.tmp, self.moved = capsys, tmp, {}

    def run(self, argv):
        argv = [self.moved.get(a, a) for a in argv]
        for i, arg in enumerate(argv[:-1]):
            if arg in OUTPUT_OPTIONS and argv[i + 1] not in self.moved.values():
                target = self.tmp / f"{len(self.moved)}_{Path(argv[i + 1]).name}"
                self.moved[argv[i + 1]] = str(target)
                argv[i + 1] = str(target)
        merged = io.StringIO()
        self.capsys.readouterr()
        with contextlib.redirect_stdout(merged), contextlib.redirect_stderr(merged):
            code = main(argv)
        text = merged.getvalue()
        for original, target in self.moved.items():
            text = text.replace(target, original)
        return code, text


def lines_match(want, got) -> bool:
    """``want`` matches ``got`` line for line; ``...`` matches any lines, ``text...`` a line starting so."""
    want, got = [w.rstrip() for w in want], [g.rstrip() for g in got]
    reach = {0}  # positions in got reachable after matching a prefix of want
    for w in want:
        if w == "...":
            reach = set(range(min(reach), len(got) + 1)) if reach else set()
            continue
        ok = (lambda g, w=w: g.startswith(w[:-3])) if w.endswith("...") else (lambda g, w=w: g == w)
        reach = {j + 1 for j in reach if j < len(got) and ok(got[j])}
    return len(got) in reach


def console_runs(body: str):
    """(argv, expected output lines) for each ``$ judgelog`` line of a console block."""
    runs, current = [], None
    for line in body.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            argv = shlex.split(line[2:], comments=True)
            current = (argv, []) if argv and argv[0] == "judgelog" else None
            if current:
                runs.append(current)
        elif current is not None:
            current[1].append(line)
    return runs


def bash_commands(body: str):
    """(argv, expected exit code) for each ``judgelog`` command of a bash block without prompts."""
    out = []
    for line in body.replace("\\\n", " ").split("\n"):
        exits = re.search(r"#.*\bexits? (\d+)\b", line)
        words = shlex.split(line, comments=True)
        command = []
        for word in words + ["&&"]:
            if word in ("&&", ";", "||"):
                if command and command[0] == "judgelog":
                    out.append((command, int(exits.group(1)) if exits else 0))
                command = []
            else:
                command.append(word)
    return out


SHELLS = ("console", "bash", "sh", "shell")
SHELL_DOCS = [d for d in DOCS if blocks(d, *SHELLS)]

# bash commands whose whole run another test makes: `judgelog test facts/scenarios` runs every bundled
# scenario's cases, which tests/test_bundled_scenarios.py checks one by one (judgelog.testing.scenario_cases, the
# cases the command runs); CI runs the command itself on the installed package (.ci/run), and the rule coverage
# gate, `judgelog test --fail-under 90` (the option itself: tests/test_coverage.py)
RUN_ELSEWHERE = {("judgelog", "test", "facts/scenarios"), ("judgelog", "test", "--fail-under", "90")}


def test_the_commands_run_elsewhere_are_in_the_docs():
    """The exemption names commands the README shows (it goes when they do)."""
    shown = {
        tuple(argv)
        for d in SHELL_DOCS
        for _, lang, body in blocks(d, *SHELLS)
        if lang != "console" and not re.search(r"^\$ ", body, re.M)
        for argv, _ in bash_commands(body)
    }
    assert RUN_ELSEWHERE <= shown


# the docs whose commands take longest (verify's searches, audits and checks of the whole library, the authoring
# guide's dozens of commands) run in the slow tier; the others, README and the tutorial among them, every day
SLOW_SHELL_DOCS = {"verify.md", "audit.md", "authoring.md"}


@pytest.mark.parametrize(
    "doc",
    [pytest.param(d, id=d.name, marks=(pytest.mark.slow,) if d.name in SLOW_SHELL_DOCS else ()) for d in SHELL_DOCS],
)
def test_shell_blocks(doc, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    shell, failures = Shell(capsys, tmp_path), []
    for line, lang, body in blocks(doc, *SHELLS):
        if lang == "console" or re.search(r"^\$ ", body, re.M):
            for argv, expected in console_runs(body):
                code, text = shell.run(argv[1:])
                while expected and not expected[-1].strip():
                    expected.pop()
                if not lines_match(expected, text.rstrip("\n").split("\n") if text.strip() else []):
                    failures.append(
                        f"{doc.name}:{line}: $ {shlex.join(argv)}\n--- the document shows:\n"
                        + "\n".join(expected)
                        + f"\n--- judgelog printed (exit {code}):\n{text}"
                    )
        else:
            for argv, want in bash_commands(body):
                if tuple(argv) in RUN_ELSEWHERE:
                    continue
                code, text = shell.run(argv[1:])
                if code != want:
                    failures.append(f"{doc.name}:{line}: {shlex.join(argv)} exited {code}, not {want}:\n{text}")
    assert not failures, "\n\n".join(failures)


# -- python, yaml and prolog blocks ---------------------------------------------------------------------
PYTHON = [(d, line, body) for d in DOCS for line, _, body in blocks(d, "python")]


def _shown(lines, stmt):
    """The value a comment says ``stmt`` evaluates to, or None."""
    comment = lines[stmt.end_lineno - 1].partition("  # ")[2].strip()
    if not comment and stmt.end_lineno < len(lines) and lines[stmt.end_lineno].startswith("# "):
        comment = lines[stmt.end_lineno][2:].strip()
    if comment.startswith("->"):
        return comment[2:].strip()
    return comment if comment[:1] in tuple("[({'\"") or comment in ("True", "False", "None") else None


@pytest.mark.parametrize(  # the authoring guide's examples with the others in the slow tier (SLOW_SHELL_DOCS)
    "doc, line, body",
    [
        pytest.param(*p, id=i, marks=(pytest.mark.slow,) if p[0].name in SLOW_SHELL_DOCS else ())
        for p, i in zip(PYTHON, _ids(PYTHON))
    ],
)
def test_python_block(doc, line, body, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    lines, scope = body.split("\n"), {}
    for stmt in ast.parse(body).body:
        code = compile(
            ast.Module([stmt], []) if not isinstance(stmt, ast.Expr) else ast.Expression(stmt.value),
            f"{doc.name}:{line + stmt.lineno}",
            "exec" if not isinstance(stmt, ast.Expr) else "eval",
        )
        value = eval(code, scope)
        shown = _shown(lines, stmt) if isinstance(stmt, ast.Expr) else None
        if shown is not None:
            try:
                same = ast.literal_eval(shown) == value
            except (ValueError, SyntaxError):
                same = repr(value) == shown
            assert same, f"{doc.name}:{line + stmt.end_lineno}: the document shows {shown}, got {value!r}"


YAML = [(d, line, body) for d in DOCS for line, _, body in blocks(d, "yaml")]


def _scenario_path(doc: Path, body: str) -> str:
    """Where relative ``rules:`` resolve: the scenario file the block is copied from, else the document."""
    for folder in ("docs/examples", "tests/scenarios", "facts/scenarios"):
        for path in sorted((ROOT / folder).glob("*.yaml")):
            if body in path.read_text(encoding="utf-8"):
                return str(path.relative_to(ROOT))
    return str(doc.relative_to(ROOT))


@pytest.mark.parametrize("doc, line, body", YAML, ids=_ids(YAML))
def test_yaml_block(doc, line, body, engine, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("JUDGELOG_ALLOW_DIRS", str(ROOT))  # a block shown in a document may name the clone's files
    data = yaml.safe_load(body)
    if isinstance(data, dict) and ("players" in data or "objects" in data):
        path = _scenario_path(doc, body)
        offset = line if path == str(doc.relative_to(ROOT)) else 0
        scenario = compile_scenario("\n" * offset + body, path=path, catalog=engine.catalog)
        engine.state_from_scenario(scenario)


PROLOG = [(d, line, body) for d in DOCS for line, _, body in blocks(d, "prolog")]


@pytest.mark.parametrize("doc, line, body", PROLOG, ids=_ids(PROLOG))
def test_prolog_block_parses(doc, line, body):
    result = parse_text(body, str(doc.relative_to(ROOT)), strict=False, line_offset=line)
    assert not result.diagnostics, "\n".join(d.render() for d in result.diagnostics)


def test_every_kind_of_block_is_found():
    assert len(PYTHON) >= 3 and len(YAML) >= 8 and len(PROLOG) >= 6
    assert {d.name for d in SHELL_DOCS} >= {"README.md", "tutorial.md", "audit.md", "authoring.md"}


# -- generated and committed files ----------------------------------------------------------------------
def test_cli_reference_is_generated():
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == clidoc.render(), (
        "docs/cli.md is out of date; regenerate it with\n    python -m judgelog.clidoc > docs/cli.md"
    )


def test_cli_reference_covers_every_verb():
    import argparse

    from judgelog.cli import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    text = clidoc.render()
    assert set(clidoc.NEGATIVE) == set(sub.choices)
    assert all(f"## judgelog {verb}\n" in text for verb in sub.choices)


GRAPH_COMMANDS = {  # committed picture -> the scenario it is drawn from, as the docs say
    "docs/images/banding_blocked_by_one.svg": "facts/scenarios/banding_blocked_by_one.yaml",
    "docs/images/band.svg": "docs/examples/band.yaml",
}


@pytest.mark.parametrize("picture", sorted(GRAPH_COMMANDS))
def test_committed_picture_is_regenerated_identically(picture, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    command = f"judgelog graph {GRAPH_COMMANDS[picture]} -o {picture}"
    assert any(command in d.read_text(encoding="utf-8") for d in DOCS), f"no document shows `{command}`"
    code, _ = Shell(capsys, tmp_path).run(shlex.split(command)[1:])
    assert code == 0
    assert (tmp_path / f"0_{Path(picture).name}").read_bytes() == (ROOT / picture).read_bytes(), (
        f"{picture} is out of date; regenerate it with\n    {command}"
    )


def test_tutorial_scenarios_are_the_shipped_files():
    files = {p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "examples").glob("*.yaml")}
    shown = [body for _, _, body in blocks(ROOT / "docs" / "tutorial.md", "yaml")]
    assert shown and all(body in files for body in shown), (
        "docs/tutorial.md shows a scenario that is not a file of docs/examples/"
    )


def test_readme_quick_start_is_two_commands():
    (_, _, first), *_ = blocks(ROOT / "README.md", "bash")
    assert first == (
        'pip install ".[test]" && judgelog explain facts/scenarios/banding_blocked_by_one.yaml '
        '"damage_assigner(bears, alice)"\npython -m pytest\n'
    )


def test_readme_links_every_document():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("tutorial", "language", "scenarios", "authoring", "cli", "errors", "audit", "performance", "testing"):
        assert f"(docs/{name}.md)" in readme, name


def test_scenarios_md_lists_every_action_with_its_arguments(engine):
    """docs/scenarios.md shows every action of the library, with arguments the action accepts."""
    state = engine.state_from_dict({"players": ["alice", "bob"]})
    known = {row["K"] for row in state.query("action_known(K)")}
    params = {}
    for row in state.query("action_param(K, P)"):
        params.setdefault(row["K"], set()).add(row["P"])
    shown = {}
    for _, _, body in blocks(ROOT / "docs" / "scenarios.md", "yaml"):
        for entry in (yaml.safe_load(body) or {}).get("actions", []) or []:
            shown[entry["do"]] = set(entry) - {"do", "choose", "order", "expect_error"}
    assert set(shown) == known, f"missing: {sorted(known - set(shown))}, unknown: {sorted(set(shown) - known)}"
    for kind, keys in shown.items():
        assert kind not in params or keys <= params[kind], f"{kind}: {sorted(keys - params[kind])}"


SCRATCH = "/tmp/judgelog/"


def test_the_docs_write_only_into_a_scratch_folder():
    """A reader who follows the docs writes into /tmp/judgelog/, never into the clone (the pictures of
    docs/images/ are the maintainers' own, regenerated by their documented commands)."""
    written = []
    for doc in DOCS:
        if doc.name == "cli.md":
            continue
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(r"judgelog [^\n`]*?(?:-o|--output|--dot) +([^\s`]+)", text):
            written.append((doc.name, match.group(1)))
    assert written, "the scan found no output option"
    outside = [
        (d, path)
        for d, path in written
        if not path.startswith((SCRATCH, "docs/images/"))
        and path not in ("FILE.png", "FILE.html", "FILE", "OUT.yaml", "out.yaml", "x.png")
    ]
    assert outside == [], outside


def _named_by_the_library() -> dict[str, Path]:
    """What README.md's opening list must name: every keyword and predefined token rule file, and every other
    rule file (properties aside) whose header cites a keyword action (CR 701), a keyword (702) or Sagas (714)
    first: each by its file name, underscores as spaces."""
    named = {}
    for path in sorted((ROOT / "rules").rglob("*.dl")):
        folder = path.parent.name
        first = re.search(r"\(CR (\d+)\.?", path.read_text(encoding="utf-8").splitlines()[0])
        if folder in ("keywords", "tokens") or folder != "properties" and first and first[1] in ("701", "702", "714"):
            named[path.stem.replace("_", " ")] = path
    return named


def test_readme_names_every_keyword_keyword_action_token_and_saga_of_the_library():
    intro = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split("## Quick start")[0].lower().split())
    named = _named_by_the_library()
    assert {"devoid", "crew", "extort", "sagas", "food", "adapt"} <= set(named)  # the list is not empty
    missing = sorted(str(path.relative_to(ROOT)) for name, path in named.items() if name not in intro)
    assert not missing, f"README.md's opening paragraph does not name the rule files {missing}"
