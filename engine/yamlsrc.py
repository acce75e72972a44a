"""Strict YAML (and JSON) loading that remembers where every value came from.

``no``, ``on``, ``yes`` stay strings (only ``true``/``false`` are booleans), duplicate keys are errors, and
every value's position is kept in a map from its path (a tuple of keys and indexes) to a :class:`Span`.

YAML is composed by libyaml (PyYAML's C parser) when it is available; its nodes carry the same marks as the
pure-Python parser's. A document libyaml refuses is read again by the pure-Python parser, so that an error
reads the same whichever parser is installed. ``.json`` files are read by :mod:`json` and a scan of the same
text that records where each value starts (:func:`load_json_text`).

>>> doc = load_text("players: [alice, no]\\nactive: alice\\n", "s.yaml")
>>> doc.value["players"], doc.span(("players", 1)).location()
(['alice', 'no'], 's.yaml:1:18')
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from .ast import Span
from .codes import S001, S002, S003
from .errors import Diagnostic, ScenarioError
from .safefiles import read_text

__all__ = [
    "Located",
    "load_text",
    "load_json_text",
    "load_path",
    "C_PARSER",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_VALUES",
]

MAX_YAML_BYTES = 20_000_000
MAX_YAML_DEPTH = 100
MAX_YAML_VALUES = 500_000  # values after expanding aliases (a few aliases can expand exponentially)
MAX_INT_DIGITS = 100  # as in rule files (judgelog.parser)


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
_SCANNING = threading.Lock()  # a JSON document's positions are scanned by one thread at a time
_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"


@dataclass
class Located:
    """A document's value and where each of its values was written: :attr:`marks` maps a path (a tuple of
    keys and indexes; ``("<key>",) + path`` for a key) to its :class:`Span`. A JSON document's positions are
    scanned the first time they are asked for (:meth:`deferred_span` names one without asking)."""

    value: Any
    path: str
    _marks: dict[tuple, Span] = field(default_factory=dict, repr=False)
    text: str = ""
    _scan: Callable[[Located], None] | None = field(default=None, repr=False, compare=False)

    @property
    def marks(self) -> dict[tuple, Span]:
        if self._scan is not None:
            with _SCANNING:  # one thread scans; another asking meanwhile waits for every position
                if self._scan is not None:
                    self._scan(self)
                    self._scan = None
        return self._marks

    def span(self, path: tuple) -> Span:
        """The span of the value at ``path`` (or of its nearest ancestor)."""
        marks = self.marks
        path = tuple(path)
        while path:
            if path in marks:
                return marks[path]
            path = path[:-1]
        found = marks.get(())
        if found is None:  # no mark at all (a document built in Python): its first line, one value for all
            found = marks[()] = Span(self.path, 1, 1)
        return found

    def key_span(self, path: tuple) -> Span:
        return self.marks.get(("<key>",) + tuple(path), self.span(path))

    def deferred_span(self, path: tuple) -> Span:
        """:meth:`span`, or, while the positions are not scanned yet, a span that finds its place when one of
        its fields is first read (a large JSON board is answered without ever scanning its positions)."""
        return self.span(path) if self._scan is None else _DeferredSpan(self, tuple(path))


class _DeferredSpan(Span):
    """The span of the value at a path of a document whose positions are not scanned yet: equal to, hashed
    and pickled as the :class:`Span` it stands for, found the first time a field is read."""

    _doc: Located | None
    _path: tuple
    _found: Span | None

    def __init__(self, doc: Located, path: tuple) -> None:  # no Span.__init__: its fields are found later
        object.__setattr__(self, "_doc", doc)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_found", None)

    def resolved(self) -> Span:
        found = self._found
        if found is None:
            assert self._doc is not None
            found = self._doc.span(self._path)
            object.__setattr__(self, "_found", found)
            object.__setattr__(self, "_doc", None)  # the document is not kept alive by its facts' spans
        return found

    file = property(lambda self: self.resolved().file)
    line = property(lambda self: self.resolved().line)
    col = property(lambda self: self.resolved().col)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Span):
            return (self.file, self.line, self.col) == (other.file, other.line, other.col)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.resolved())

    def __repr__(self) -> str:
        return repr(self.resolved())

    def __reduce__(self) -> tuple:
        found = self.resolved()
        return (Span, (found.file, found.line, found.col))


def load_path(path: str) -> Located:
    try:
        text = read_text(path, limit=MAX_YAML_BYTES)
    except FileNotFoundError:
        raise ScenarioError(f"file not found: {path}", hint="check the path") from None
    except IsADirectoryError:
        raise ScenarioError(f"{path} is a folder, not a scenario file") from None
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or a NUL in the name
        raise ScenarioError(f"cannot read {path}: {exc}") from None
    if path.lower().endswith(".json"):
        return load_json_text(text, path)
    return load_text(text, path)


def _compose(text: str) -> yaml.Node | None:
    """The document's node tree: libyaml's if it reads the text, else the pure-Python parser's (which
    raises the errors judgelog reports)."""
    if C_PARSER:
        try:
            return yaml.compose(text, Loader=_CStrictLoader)
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=_StrictLoader)


def load_text(text: str, path: str = "<scenario>") -> Located:
    if len(text) > MAX_YAML_BYTES:
        raise ScenarioError(f"{path} is larger than {MAX_YAML_BYTES} bytes")
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
        raise ScenarioError(
            f"invalid YAML in {path}",
            diagnostics=[Diagnostic(S001, f"YAML syntax error: {problem}", span, hint=hint)],
        ) from None
    except _TooDeep as exc:
        raise _too_deep(path, Span(path, exc.mark.line + 1, exc.mark.column + 1)) from None
    except RecursionError:
        raise _nested_too_deeply(path, "YAML") from None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"invalid YAML in {path}: {exc}") from None
    doc = Located(None, path, text=text)
    if node is None:
        doc.value = {}
        return doc
    doc.value = _convert(node, (), doc, yaml.constructor.SafeConstructor(), 0)
    return doc


def _nested_too_deeply(path: str, syntax: str) -> ScenarioError:
    """The parser itself ran out of stack (``syntax``: YAML or JSON)."""
    return ScenarioError(
        f"invalid {syntax} in {path}: nested too deeply (at most {MAX_YAML_DEPTH} levels)",
        diagnostics=[
            Diagnostic(S001, f"{syntax} nested too deeply (at most {MAX_YAML_DEPTH} levels)", Span(path, 1, 1))
        ],
    )


def _too_deep(path: str, span: Span) -> ScenarioError:
    return ScenarioError(
        f"{path}: nesting deeper than {MAX_YAML_DEPTH} levels",
        diagnostics=[
            Diagnostic(
                S002,
                f"nesting deeper than {MAX_YAML_DEPTH} levels",
                span,
                hint="a scenario needs a few levels of nesting; is an alias (*name) inside its own anchor?",
            )
        ],
    )


def _convert(
    node: yaml.Node, path: tuple, doc: Located, constructor: yaml.constructor.SafeConstructor, depth: int
) -> Any:
    if depth > MAX_YAML_DEPTH:
        raise _too_deep(doc.path, _span(doc, node))
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


# -- JSON ------------------------------------------------------------------------------------------------
# Every token of a JSON text that was already parsed by json.loads: strings, punctuation, and the rest
# (numbers, true, false, null) as runs of other characters.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)


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
        raise _nested_too_deeply(path, "JSON") from None
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
        newlines = text.count("\n", last, start)
        if newlines:
            line += newlines
            line_start = text.rindex("\n", last, start) + 1
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
