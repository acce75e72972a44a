"""Strict YAML (and JSON) loading that remembers where every value came from.

``no``, ``on``, ``yes`` stay strings (only ``true``/``false`` are booleans), duplicate keys are errors, and
every value's position is kept in a map from its path (a tuple of keys and indexes) to a :class:`Span`.

>>> doc = load_text("players: [alice, no]\\nactive: alice\\n", "s.yaml")
>>> doc.value["players"], doc.span(("players", 1)).location()
(['alice', 'no'], 's.yaml:1:18')
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Tuple

import yaml

from .ast import Span
from .errors import Diagnostic, ScenarioError

__all__ = ["Located", "load_text", "load_path", "MAX_YAML_BYTES", "MAX_YAML_DEPTH", "MAX_YAML_VALUES"]

MAX_YAML_BYTES = 20_000_000
MAX_YAML_DEPTH = 100
MAX_YAML_VALUES = 500_000  # values after expanding aliases (a few aliases can expand exponentially)


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader whose booleans are only true/false and which keeps all scalars as written."""


_StrictLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))


@dataclass
class Located:
    value: Any
    path: str
    marks: Dict[Tuple, Span] = field(default_factory=dict)
    text: str = ""

    def span(self, path: Tuple) -> Span:
        """The span of the value at ``path`` (or of its nearest ancestor)."""
        path = tuple(path)
        while path:
            if path in self.marks:
                return self.marks[path]
            path = path[:-1]
        return self.marks.get((), Span(self.path, 1, 1))

    def key_span(self, path: Tuple) -> Span:
        return self.marks.get(("<key>",) + tuple(path), self.span(path))


def load_path(path: str) -> Located:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(MAX_YAML_BYTES + 1)
    except FileNotFoundError:
        raise ScenarioError(f"file not found: {path}", hint="check the path") from None
    except IsADirectoryError:
        raise ScenarioError(f"{path} is a folder, not a scenario file") from None
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or a NUL in the name
        raise ScenarioError(f"cannot read {path}: {exc}") from None
    return load_text(text, path)


def load_text(text: str, path: str = "<scenario>") -> Located:
    if len(text) > MAX_YAML_BYTES:
        raise ScenarioError(f"{path} is larger than {MAX_YAML_BYTES} bytes")
    try:
        node = yaml.compose(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = Span(path, mark.line + 1, mark.column + 1) if mark else Span(path, 1, 1)
        problem = exc.problem or "invalid YAML"
        tab = "\t" in problem or "'\\t'" in problem or "tab" in str(exc)  # PyYAML writes a tab as '\t'
        hint = "YAML does not allow tab characters for indentation; use spaces" if tab else \
            "check indentation, quotes and the ':' after each key"
        raise ScenarioError(f"invalid YAML in {path}", diagnostics=[
            Diagnostic("S001", f"YAML syntax error: {problem}", span, hint=hint)]) from None
    except RecursionError:
        raise ScenarioError(f"invalid YAML in {path}: nested too deeply (at most {MAX_YAML_DEPTH} levels)",
                            diagnostics=[Diagnostic("S001", f"YAML nested too deeply (at most {MAX_YAML_DEPTH} "
                                                    "levels)", Span(path, 1, 1))]) from None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"invalid YAML in {path}: {exc}") from None
    doc = Located(None, path, text=text)
    if node is None:
        doc.value = {}
        return doc
    constructor = _StrictLoader(text)
    try:
        doc.value = _convert(node, (), doc, constructor, 0)
    finally:
        constructor.dispose()
    return doc


def _convert(node, path: Tuple, doc: Located, constructor, depth: int):
    if depth > MAX_YAML_DEPTH:
        raise ScenarioError(f"{doc.path}: nesting deeper than {MAX_YAML_DEPTH} levels", diagnostics=[Diagnostic(
            "S002", f"nesting deeper than {MAX_YAML_DEPTH} levels", _span(doc, node),
            hint="a scenario needs a few levels of nesting; is an alias (*name) inside its own anchor?")])
    if len(doc.marks) >= MAX_YAML_VALUES:
        raise ScenarioError(f"{doc.path}: more than {MAX_YAML_VALUES} values", diagnostics=[Diagnostic(
            "S002", f"more than {MAX_YAML_VALUES} values (after expanding aliases)", _span(doc, node),
            hint="aliases (*name) that repeat anchors of anchors grow exponentially; write the values out")])
    doc.marks[path] = Span(doc.path, node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        out: Dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise ScenarioError(f"invalid key in {doc.path}", diagnostics=[Diagnostic(
                    "S002", "a mapping key must be a plain word", _span(doc, key_node))])
            key = _construct(constructor, key_node, doc)
            if not isinstance(key, str):  # 1, 1.5, true, null, a date: keys are the words as written
                key = key_node.value
            if key in out:
                raise ScenarioError(f"duplicate key in {doc.path}", diagnostics=[Diagnostic(
                    "S003", f"duplicate key {key!r}", _span(doc, key_node),
                    hint=f"first given at line {doc.marks[('<key>',) + path + (key,)].line}")])
            doc.marks[("<key>",) + path + (key,)] = _span(doc, key_node)
            out[key] = _convert(value_node, path + (key,), doc, constructor, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, path + (i,), doc, constructor, depth + 1) for i, item in enumerate(node.value)]
    return _construct(constructor, node, doc)


def _construct(constructor, node, doc: Located):
    try:
        return constructor.construct_object(node, deep=True)
    except yaml.constructor.ConstructorError as exc:
        raise ScenarioError(f"invalid value in {doc.path}", diagnostics=[Diagnostic(
            "S002", f"cannot read this value: {exc.problem}", _span(doc, node))]) from None
    except Exception as exc:  # noqa: BLE001 - PyYAML's constructors of explicit tags ("!!int twenty", "!!int")
        detail = str(exc) if isinstance(exc, ValueError) and str(exc) else \
            f"{node.value!r} is not a valid {node.tag.replace('tag:yaml.org,2002:', '!!')}"
        raise ScenarioError(f"invalid value in {doc.path}", diagnostics=[Diagnostic(
            "S002", f"cannot read this value: {detail}", _span(doc, node),
            hint="remove the explicit !!tag or give a value of that type")]) from None


def _span(doc: Located, node) -> Span:
    return Span(doc.path, node.start_mark.line + 1, node.start_mark.column + 1)
