"""YAML read into a :class:`~judgelog.located.Located` document: strict values, every value's position.

``no``, ``on``, ``yes`` stay strings (only ``true``/``false`` are booleans), duplicate keys are errors.
The text is composed by libyaml (PyYAML's C parser) when it is available; its nodes carry the same marks as
the pure-Python parser's. A document libyaml refuses is read again by the pure-Python parser, so that an
error reads the same whichever parser is installed. judgelog.yamlsrc imports this module (and PyYAML) only
when it reads a YAML text: a start that reads a JSON scenario, its card catalog from the cache, imports
neither.

>>> doc = read_yaml("players: [alice, no]\\nactive: alice\\n", "s.yaml")
>>> doc.value["players"], doc.span(("players", 1)).location()
(['alice', 'no'], 's.yaml:1:18')
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from .ast import Span
from .codes import S001, S002, S003
from .errors import Diagnostic, ScenarioError
from .located import MAX_INT_DIGITS, MAX_YAML_DEPTH, MAX_YAML_VALUES, Located, nested_too_deeply, too_deep

__all__ = ["read_yaml", "C_PARSER"]


class _TooDeep(Exception):
    """The pure-Python composer reached a node nested deeper than MAX_YAML_DEPTH (at this mark)."""

    def __init__(self, mark: yaml.Mark) -> None:
        super().__init__("too deep")
        self.mark = mark


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader whose booleans are only true/false and which keeps all scalars as written. Its composer
    stops at the first node nested deeper than MAX_YAML_DEPTH (as the check on libyaml's tree does), instead
    of recursing until Python's recursion limit."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH + 1:  # the root is at depth 1 here, 0 in _convert
                raise _TooDeep(self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_StrictLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))

C_PARSER = bool(getattr(yaml, "__with_libyaml__", False))
if C_PARSER:

    class _CStrictLoader(yaml.CSafeLoader):
        """The same resolvers on libyaml's parser and composer."""

    _CStrictLoader.yaml_implicit_resolvers = _StrictLoader.yaml_implicit_resolvers
_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"


def _compose(text: str) -> yaml.Node | None:
    """The document's node tree: libyaml's if it reads the text, else the pure-Python parser's (which
    raises the errors judgelog reports)."""
    if C_PARSER:
        try:
            return yaml.compose(text, Loader=_CStrictLoader)
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=_StrictLoader)


def read_yaml(text: str, path: str = "<scenario>") -> Located:
    """The document of a YAML text (its size already checked: judgelog.yamlsrc.load_text)."""
    try:
        node = _compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = Span(path, mark.line + 1, mark.column + 1) if mark else Span(path, 1, 1)
        problem = exc.problem or "invalid YAML"
        tab = "\t" in problem or "'\\t'" in problem or "tab" in str(exc)  # PyYAML writes a tab as '\t'
        hint = (
            "YAML does not allow tab characters for indentation; use spaces"
            if tab
            else "check indentation, quotes and the ':' after each key"
        )
        opened = exc.context_mark if exc.context and exc.problem_mark else None  # where the unfinished part began
        if opened is not None and (opened.line, opened.column) != (exc.problem_mark.line, exc.problem_mark.column):
            what = (
                exc.context.removeprefix("while parsing ").removeprefix("while scanning ").replace("scalar", "string")
            )
            closer = {
                "a flow mapping": " (is its closing '}' missing?)",
                "a flow sequence": " (is its closing ']' missing?)",
            }
            hint = f"{hint}; the error is in {what} that begins at line {opened.line + 1}, column {opened.column + 1}"
            hint += closer.get(what, " (is its closing quote missing?)" if "quoted" in what else "")
        raise ScenarioError(
            f"invalid YAML in {path}",
            diagnostics=[Diagnostic(S001, f"YAML syntax error: {problem}", span, hint=hint)],
        ) from None
    except _TooDeep as exc:
        raise too_deep(path, Span(path, exc.mark.line + 1, exc.mark.column + 1)) from None
    except RecursionError:
        raise nested_too_deeply(path, "YAML") from None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"invalid YAML in {path}: {exc}") from None
    doc = Located(None, path, text=text)
    if node is None:
        doc.value, doc.empty = {}, True
        return doc
    doc.value = _convert(node, (), doc, yaml.constructor.SafeConstructor(), 0)
    return doc


def _convert(
    node: yaml.Node, path: tuple, doc: Located, constructor: yaml.constructor.SafeConstructor, depth: int
) -> Any:
    if depth > MAX_YAML_DEPTH:
        raise too_deep(doc.path, _span(doc, node))
    if len(doc.marks) >= MAX_YAML_VALUES:
        raise ScenarioError(
            f"{doc.path}: more than {MAX_YAML_VALUES} values",
            diagnostics=[
                Diagnostic(
                    S002,
                    f"more than {MAX_YAML_VALUES} values (after expanding aliases)",
                    _span(doc, node),
                    hint="aliases (*name) that repeat anchors of anchors grow exponentially; write the values out",
                )
            ],
        )
    doc.marks[path] = Span(doc.path, node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise ScenarioError(
                    f"invalid key in {doc.path}",
                    diagnostics=[Diagnostic(S002, "a mapping key must be a plain word", _span(doc, key_node))],
                )
            key = _construct(constructor, key_node, doc)
            if not isinstance(key, str):  # 1, 1.5, true, null, a date: keys are the words as written
                key = key_node.value
            if key in out:
                raise ScenarioError(
                    f"duplicate key in {doc.path}",
                    diagnostics=[
                        Diagnostic(
                            S003,
                            f"duplicate key {key!r}",
                            _span(doc, key_node),
                            hint=f"first given at line {doc.marks[('<key>',) + path + (key,)].line}",
                        )
                    ],
                )
            doc.marks[("<key>",) + path + (key,)] = _span(doc, key_node)
            out[key] = _convert(value_node, path + (key,), doc, constructor, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, path + (i,), doc, constructor, depth + 1) for i, item in enumerate(node.value)]
    return _construct(constructor, node, doc)


def _construct(constructor: yaml.constructor.SafeConstructor, node: yaml.Node, doc: Located) -> Any:
    if node.tag == _STR_TAG and isinstance(node, yaml.ScalarNode):
        return node.value
    digits = sum(c.isdigit() for c in node.value) if isinstance(node, yaml.ScalarNode) else 0
    if node.tag == _INT_TAG and digits > MAX_INT_DIGITS:  # Python refuses to convert it; no game needs it
        raise ScenarioError(
            f"invalid value in {doc.path}",
            diagnostics=[
                Diagnostic(
                    S002,
                    f"integer too large ({digits} digits, at most {MAX_INT_DIGITS})",
                    _span(doc, node),
                    hint="write a smaller number",
                )
            ],
        )
    try:
        return constructor.construct_object(node, deep=True)
    except yaml.constructor.ConstructorError as exc:
        raise ScenarioError(
            f"invalid value in {doc.path}",
            diagnostics=[Diagnostic(S002, f"cannot read this value: {exc.problem}", _span(doc, node))],
        ) from None
    except Exception as exc:  # noqa: BLE001 - PyYAML's constructors of explicit tags ("!!int twenty", "!!int")
        detail = (
            str(exc)
            if isinstance(exc, ValueError) and str(exc)
            else f"{node.value!r} is not a valid {node.tag.replace('tag:yaml.org,2002:', '!!')}"
        )
        raise ScenarioError(
            f"invalid value in {doc.path}",
            diagnostics=[
                Diagnostic(
                    S002,
                    f"cannot read this value: {detail}",
                    _span(doc, node),
                    hint="remove the explicit !!tag or give a value of that type",
                )
            ],
        ) from None


def _span(doc: Located, node: yaml.Node) -> Span:
    return Span(doc.path, node.start_mark.line + 1, node.start_mark.column + 1)
