"""Strict YAML (and JSON) loading that remembers where every value came from.

``no``, ``on``, ``yes`` stay strings (only ``true``/``false`` are booleans), duplicate keys are errors, and
every value's position is kept in a map from its path (a tuple of keys and indexes) to a :class:`Span`
(:class:`~judgelog.located.Located`).

YAML is read by judgelog.yamlnodes (libyaml when it is available), imported with PyYAML only when a YAML
text is read. ``.json`` files are read by :mod:`json` and a scan of the same text that records where each
value starts (:func:`load_json_text`).

>>> doc = load_text("players: [alice, no]\\nactive: alice\\n", "s.yaml")
>>> doc.value["players"], doc.span(("players", 1)).location()
(['alice', 'no'], 's.yaml:1:18')
"""

from __future__ import annotations

import json
import re
from typing import Any

from .ast import Span
from .codes import S000, S001, S002, S003
from .errors import Diagnostic, ScenarioError
from .located import (
    MAX_INT_DIGITS,
    MAX_YAML_BYTES,
    MAX_YAML_DEPTH,
    MAX_YAML_VALUES,
    Located,
    nested_too_deeply,
)
from .safefiles import not_utf8_at, read_text

__all__ = [
    "Located",
    "load_text",
    "load_json_text",
    "load_path",
    "scenario_files",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_VALUES",
    "MAX_INT_DIGITS",
]


def __getattr__(name: str) -> Any:
    if name == "C_PARSER":  # whether libyaml reads YAML here (judgelog.yamlnodes; imports PyYAML)
        from .yamlnodes import C_PARSER

        return C_PARSER
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SCENARIO_SUFFIXES = (".yaml", ".yml", ".json")


def load_path(path: str) -> Located:
    try:
        text = read_text(path, limit=MAX_YAML_BYTES)
    except FileNotFoundError:
        raise ScenarioError(f"file not found: {path}", hint="check the path") from None
    except IsADirectoryError:
        raise ScenarioError(f"{path} is a folder, not a scenario file", hint=_folder_hint(path)) from None
    except UnicodeDecodeError as exc:  # at the first byte that is not UTF-8
        line, col, byte = not_utf8_at(exc)
        message = f"cannot read {path}: it is not UTF-8 text (byte {byte})"
        hint = "save the file as UTF-8 (an editor's 'save with encoding', or iconv -f latin1 -t utf-8)"
        raise ScenarioError(
            message, diagnostics=[Diagnostic(S000, message, Span(path, line, col), hint=hint)]
        ) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise ScenarioError(f"cannot read {path}: {exc}") from None
    if path.lower().endswith(".json"):
        return load_json_text(text, path)
    return load_text(text, path)


def scenario_files(paths: list[str], *, required: bool = True) -> list[str]:
    """The scenario files of ``paths`` (files, and the .yaml/.yml/.json files under folders, sorted); a path that
    does not exist, or (``required``) a folder without one, is a :class:`ScenarioError`."""
    import os

    out: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            if not os.path.exists(path):
                raise ScenarioError(f"no such file or folder: {path}", hint="check the path")
            out.append(path)
            continue
        found: list[str] = []
        for root, dirs, names in os.walk(path):
            dirs.sort()
            found.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(SCENARIO_SUFFIXES))
        if not found and required:
            raise ScenarioError(
                f"no scenario file (.yaml, .yml, .json) in {path}", hint="name a folder or file that has one"
            )
        out.extend(found)
    return out


def _folder_hint(path: str) -> str:
    """What to give instead of a folder: one of its scenario files (a few are named), or judgelog test."""
    import os

    try:
        names = sorted(n for n in os.listdir(path) if n.endswith(SCENARIO_SUFFIXES))
    except OSError:
        names = []
    shown = ", ".join(os.path.join(path, n) for n in names[:3]) + (", ..." if len(names) > 3 else "")
    if not names:
        return "it holds no .yaml, .yml or .json file: name a scenario file"
    return f"name one of its scenario files: {shown} (judgelog test takes folders: judgelog test {path})"


def load_text(text: str, path: str = "<scenario>") -> Located:
    """Read a YAML text (judgelog.yamlnodes)."""
    if len(text) > MAX_YAML_BYTES:
        raise ScenarioError(f"{path} is larger than {MAX_YAML_BYTES} bytes")
    from .yamlnodes import read_yaml  # PyYAML is imported only here: reading JSON needs none of it

    return read_yaml(text, path)


# -- JSON ------------------------------------------------------------------------------------------------
# Every token of a JSON text that was already parsed by json.loads: strings, punctuation, and the rest
# (numbers, true, false, null) as runs of other characters.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)
# what YAML counts as a line break, also inside a string's text (U+2028 in a JSON string starts a line there)
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


def load_json_text(text: str, path: str = "<scenario>") -> Located:
    """Read JSON with :mod:`json`, then record where each value (and each key) starts, as YAML does."""
    if len(text) > MAX_YAML_BYTES:
        raise ScenarioError(f"{path} is larger than {MAX_YAML_BYTES} bytes")
    if text.startswith("\ufeff"):  # a byte-order mark: json refuses it, YAML reads past it
        text = " " + text[1:]
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        error = ScenarioError(
            f"invalid JSON in {path}",
            diagnostics=[
                Diagnostic(
                    S001,
                    f"JSON syntax error: {exc.msg}",
                    Span(path, exc.lineno, exc.colno),
                    hint="check the quotes, commas and brackets",
                )
            ],
        )
        try:  # JSON's relaxed forms that YAML reads (unquoted words, a trailing comma) load as before
            return load_text(text, path)
        except ScenarioError:
            raise error from None
    except _DuplicateKey:  # the scan of the positions finds it again and says where
        _json_marks(Located(None, path, text=text))
        raise AssertionError("a duplicate key the scan did not find") from None
    except RecursionError:
        raise nested_too_deeply(path, "JSON") from None
    doc = Located(value, path, text=text)
    if _over_limits(value):
        _json_marks(doc)  # raises the positioned error (nesting, or too many values)
    else:
        doc._scan = _json_marks
    return doc


class _DuplicateKey(Exception):
    """A JSON object with a key given twice (json.loads keeps the last silently)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _DuplicateKey
    return found


def _over_limits(value: Any) -> bool:
    """Whether a parsed JSON value nests deeper than MAX_YAML_DEPTH or holds more than MAX_YAML_VALUES values
    and keys (the scan of its positions then reports where)."""
    count, level, frontier = 1, 0, [value]
    while frontier:
        deeper: list[Any] = []
        for item in frontier:
            children = item.values() if isinstance(item, dict) else item
            count += len(item) * (2 if isinstance(item, dict) else 1)
            deeper.extend(v for v in children if isinstance(v, (dict, list)))
        if count > MAX_YAML_VALUES:
            return True
        frontier = deeper
        level += 1
        if frontier and level >= MAX_YAML_DEPTH:
            return True
    return False


def _json_marks(doc: Located) -> None:
    text, file, marks = doc.text, doc.path, doc._marks  # not .marks: it runs this scan
    # one frame per open container: [path, is_mapping, index or key, expecting a key]
    stack: list = []
    line, line_start, last = 1, 0, 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first in ",:]}":
            if first == "]" or first == "}":
                stack.pop()
            elif first == ",":
                frame = stack[-1]
                if frame[1]:
                    frame[3] = True
                else:
                    frame[2] += 1
            continue
        start = match.start()
        for brk in _LINE_BREAK.finditer(text, last, start):  # (YAML's line breaks, so that the two agree)
            line += 1
            line_start = brk.end()
        last = start
        span = Span(file, line, start - line_start + 1)
        if stack:
            frame = stack[-1]
            if frame[1] and frame[3]:  # a key
                key = json.loads(token) if "\\" in token else token[1:-1]
                where = ("<key>",) + frame[0] + (key,)
                if where in marks:
                    raise ScenarioError(
                        f"duplicate key in {file}",
                        diagnostics=[
                            Diagnostic(
                                S003, f"duplicate key {key!r}", span, hint=f"first given at line {marks[where].line}"
                            )
                        ],
                    )
                marks[where] = span
                frame[2], frame[3] = key, False
                continue
            here = frame[0] + (frame[2],)
        else:
            here = ()
        if len(stack) > MAX_YAML_DEPTH:
            raise ScenarioError(
                f"{file}: nesting deeper than {MAX_YAML_DEPTH} levels",
                diagnostics=[
                    Diagnostic(
                        S002,
                        f"nesting deeper than {MAX_YAML_DEPTH} levels",
                        span,
                        hint="a scenario needs a few levels of nesting",
                    )
                ],
            )
        marks[here] = span
        if first in "{[" and len(marks) > MAX_YAML_VALUES:
            raise ScenarioError(
                f"{file}: more than {MAX_YAML_VALUES} values",
                diagnostics=[Diagnostic(S002, f"more than {MAX_YAML_VALUES} values", span)],
            )
        if first == "{":
            stack.append([here, True, None, True])
        elif first == "[":
            stack.append([here, False, 0, False])
