"""Finding, parsing and analysing rule files: the shipped library, card rules and users' ``--rules``.

>>> result = load_program([], include_library=True)
>>> result.errors
[]
>>> "creature" in result.program.rules_by_head
True
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from . import cache
from .analysis import analyze
from .ast import Include, RuleFile, Span
from .catalog import default_catalog, rules_dir
from .codes import E010, E011
from .contract import (
    counter_word_problems,
    designation_problems,
    event_kind_problems,
    keyword_problems,
    keyword_typo_problems,
    property_problems,
    result_problems,
    trigger_problems,
)
from .errors import Diagnostic, RuleError
from .interface import Interface, interface_of
from .parser import ParseResult, parse_text
from .placeholders import placeholder_problems
from .program import Program
from .recursion import effect_recursion_problems
from .safefiles import MAX_RULE_BYTES, not_utf8_at, read_text

__all__ = [
    "LoadResult",
    "load_program",
    "default_interface",
    "collect_files",
    "is_library_path",
    "is_library_root",
    "library_root_of",
    "library_rule_files",
    "PROPERTIES_FOLDER",
]


@dataclass
class LoadResult:
    program: Program
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    def raise_for_errors(self) -> None:
        if self.errors:
            raise RuleError(f"{len(self.errors)} error(s) in the rules", diagnostics=self.errors)


def is_library_path(path: str) -> bool:
    try:
        Path(path).resolve().relative_to(rules_dir().resolve())
        return True
    except ValueError:
        return False


def collect_files(paths: Iterable[str], *, flag: str = "--rules") -> tuple[list[str], list[Diagnostic]]:
    """Expand files and folders (recursively, sorted) into .dl files (``flag``: the option that gave them)."""
    files: list[str] = []
    diags: list[Diagnostic] = []
    for path in paths:
        path = str(path)
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                for name in sorted(names):
                    if name.endswith(".dl"):
                        files.append(os.path.join(root, name))
        elif os.path.isfile(path):
            files.append(path)
        else:
            message, hint = (
                (f"cannot read {path}: it is not a regular file", "name a rule file (.dl) or a folder of them")
                if os.path.exists(path)
                else (f"no such rule file or folder: {path}", f"check the path given to {flag}")
            )
            diags.append(Diagnostic(E010, message, Span(path, 1, 1), hint=hint))
    return files, diags


def _display(path: str) -> str:
    """Show library files relative to the library (rules/...), others as given."""
    try:
        rel = Path(path).resolve().relative_to(rules_dir().resolve().parent)
        return str(rel)
    except ValueError:
        return os.path.relpath(path) if not os.path.isabs(path) else path


def _parse_tree(
    path: str,
    *,
    seen: dict[str, str],
    stack: list[str],
    out: list[RuleFile],
    diags: list[Diagnostic],
    sources: dict[str, str],
    origin: Span | None = None,
) -> None:
    if "\0" in path:  # os.path would raise ValueError
        diags.append(
            Diagnostic(
                E010,
                f"cannot read {path!r}: a file name cannot contain a NUL character",
                origin or Span(repr(path), 1, 1),
                hint="remove the NUL from the file name",
            )
        )
        return
    real = os.path.realpath(path)
    shown = _display(path)
    if real in stack:
        # name the files as they are shown everywhere else (seen: real path -> shown path)
        chain = " -> ".join(seen.get(p, _display(p)) for p in stack[stack.index(real) :] + [real])
        diags.append(
            Diagnostic(
                E011, f"include loop: {chain}", origin or Span(shown, 1, 1), hint="remove one of the .include lines"
            )
        )
        return
    if real in seen:
        return
    try:
        text = read_text(path, limit=MAX_RULE_BYTES)
    except FileNotFoundError:
        diags.append(
            Diagnostic(
                E010,
                f"included file not found: {path}",
                origin or Span(shown, 1, 1),
                hint="include paths are relative to the including file",
            )
        )
        return
    except UnicodeDecodeError as exc:  # the place of the first byte that is not UTF-8 (the bytes read are in exc)
        line, col, byte = not_utf8_at(exc)
        diags.append(
            Diagnostic(
                E010,
                f"cannot read {path}: it is not UTF-8 text (byte {byte})",
                Span(shown, line, col),
                hint="save the rule file as UTF-8",
            )
        )
        return
    except OSError as exc:
        diags.append(Diagnostic(E010, f"cannot read {path}: {exc}", origin or Span(shown, 1, 1)))
        return
    seen[real] = shown
    sources[shown] = text
    result = _parsed(text, shown)
    diags.extend(result.diagnostics)
    out.append(result.file)
    for item in result.file.items:
        if isinstance(item, Include):
            target = os.path.join(os.path.dirname(path), item.path)
            _parse_tree(
                target, seen=seen, stack=stack + [real], out=out, diags=diags, sources=sources, origin=item.span
            )


@lru_cache(maxsize=4096)
def _parsed(text: str, shown: str) -> ParseResult:
    """A rule file's text parsed (its syntax tree is immutable, its spans name ``shown``): a process that loads
    the library again with other files besides (``Engine(rules=...)``, a scenario's own ``rules:``) parses
    only those files."""
    return parse_text(text, shown, strict=False)


def is_library_root(path: str) -> bool:
    """A folder laid out like the shipped library (it has core/state.dl): checked as *the* library."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, "core", "state.dl"))


def library_root_of(path: str) -> str | None:
    """The folder laid out like the library that holds ``path`` (itself, or a parent), if any."""
    here = Path(os.path.abspath(path))
    for folder in ([here] if here.is_dir() else []) + list(here.parents):
        if is_library_root(str(folder)):
            return str(folder)
    return None


# library folders loaded only when asked for: properties/ holds the properties `judgelog verify` checks
# (rules about the rules, not game rules: left out of queries, `rules` and `audit`)
PROPERTIES_FOLDER = "properties"


def library_rule_files(root: str, *, properties: bool = False) -> tuple[list[str], list[Diagnostic]]:
    """The rule files of a library folder, without properties/ unless ``properties``."""
    files, diags = collect_files([root], flag="--library")
    if not properties:
        skip = os.path.join(root, PROPERTIES_FOLDER) + os.sep
        files = [f for f in files if not f.startswith(skip)]
    return files, diags


def load_program(
    paths: Sequence[str] = (),
    *,
    include_library: bool = True,
    strict_annotations: bool | None = None,
    library: str | None = None,
    properties: bool = False,
) -> LoadResult:
    """Parse and analyse the library (optionally) plus ``paths``. Never raises for rule errors: look at
    ``.errors``. ``strict_annotations`` forces @name/@cr to be errors (default: only in the library).
    ``library`` names another folder to use as the library (e.g. a source checkout's rules/).
    ``properties``: also load the library's properties/ folder (judgelog verify, judgelog check)."""
    key = tuple(str(p) for p in paths)
    root = str(library) if library else str(rules_dir())
    stamp = _stamp(key, include_library, root, properties)
    known = (key, include_library, root, properties, os.getcwd())
    includes = _INCLUDES.get(known, ())  # files the last load included: an edit of one must be seen too
    stamp = stamp[:-1] + tuple((f, _mtime(f)) for f in includes) + stamp[-1:]
    result = _load_cached(key, include_library, strict_annotations, stamp, root, properties)
    named = {f for f, _ in stamp[:-1]}
    # included, or named otherwise (a library file is shown relative to the library's parent: rules/...)
    shown_from = os.path.dirname(str(rules_dir()))
    others = [
        rf.path
        for rf in result.program.files
        if rf.path not in named and os.path.join(shown_from, rf.path) not in named
    ]
    listed = {os.path.realpath(f) for f in named} if others else set()
    read = tuple(sorted({os.path.realpath(p) for p in others if os.path.isfile(p)} - listed))
    if read:
        _INCLUDES[known] = tuple(sorted(set(includes) | set(read)))
    return result


_INCLUDES: dict[tuple, tuple[str, ...]] = {}


def _mtime(path: str) -> float | None:
    try:
        return os.path.getmtime(path)
    except OSError:
        return None


def _stamp(paths: tuple[str, ...], include_library: bool, root: str, properties: bool) -> tuple:
    files = library_rule_files(root, properties=properties)[0] if include_library else []
    files += collect_files(list(paths))[0]
    out: list[tuple[str, float | None]] = []
    for f in files:
        try:
            out.append((f, os.path.getmtime(f)))
        except OSError:
            out.append((f, None))
    cat = default_catalog()
    return tuple(out) + ((cat.path, id(cat)),)


@lru_cache(maxsize=16)
def _load_cached(
    paths: tuple[str, ...],
    include_library: bool,
    strict_annotations: bool | None,
    stamp: tuple,
    root: str,
    properties: bool = False,
) -> LoadResult:
    """From the user's cache folder when the same files were loaded before (see :mod:`judgelog.cache`)."""
    listed = [path for path, _ in stamp[:-1]] + [stamp[-1][0]]
    # relative paths (and the includes of the files they name) depend on the working folder
    here = os.getcwd() if paths or root != str(rules_dir()) else None
    key = cache.address(
        "library", options=(paths, include_library, strict_annotations, root, here, properties), files=listed
    )
    result = cache.lookup(key, lasting=True)  # kept by this function's lru_cache
    if isinstance(result, LoadResult):
        return result
    seen: dict[str, str] = {}
    result = _load(paths, include_library, strict_annotations, root, seen, properties)
    read = set(seen) - {os.path.realpath(path) for path in listed}  # files the key does not cover: includes
    if cache.enabled() and not result.errors:
        _prepare(result.program)
    cache.store(key, result, depends={path: cache.file_digest(path) for path in read})
    return result


def _prepare(program: Program) -> None:
    """Make what every engine of ``program`` builds from it first, the backends' analysis
    (judgelog.compiled), the rule-declared interface (judgelog.interface) and the rules' constants
    (judgelog.constants, which every board's check reads), so that the cache entry saves
    them with the program (their ``kept_in_cache``)."""
    from .compiled import CompiledProgram

    CompiledProgram.of(program)
    interface_of(program)
    program.constants()


def _load(
    paths: tuple[str, ...],
    include_library: bool,
    strict_annotations: bool | None,
    root: str,
    seen: dict[str, str],
    properties: bool = False,
) -> LoadResult:
    files: list[RuleFile] = []
    diags: list[Diagnostic] = []
    sources: dict[str, str] = {}
    library_files: list[str] = []
    if include_library:
        library_files, d = library_rule_files(root, properties=properties)
        diags.extend(d)
        for path in library_files:
            _parse_tree(path, seen=seen, stack=[], out=files, diags=diags, sources=sources)
        catalog = default_catalog()
        shown = _display(catalog.path) if os.path.exists(catalog.path) else catalog.path
        for _path, text, line in catalog.rule_sources():
            result = parse_text(
                text, "facts/cards.yaml" if shown.endswith("cards.yaml") else shown, strict=False, line_offset=line
            )
            diags.extend(result.diagnostics)
            files.append(result.file)
    user_files, d = collect_files(paths)
    diags.extend(d)
    for path in user_files:
        _parse_tree(path, seen=seen, stack=[], out=files, diags=diags, sources=sources)
    library_shown = {_display(p) for p in library_files} | {"facts/cards.yaml"}

    def strict(path: str) -> bool:
        return True if strict_annotations else (strict_annotations is None and path in library_shown)

    program, analysis_diags = analyze(files, require_annotations=strict, sources=sources)
    diags.extend(analysis_diags)
    diags.extend(trigger_problems(program))
    diags.extend(result_problems(program))
    diags.extend(event_kind_problems(program))
    diags.extend(keyword_problems(program, library_files=library_shown))
    diags.extend(keyword_typo_problems(program, library_files=library_shown))
    diags.extend(counter_word_problems(program))
    diags.extend(placeholder_problems(program))
    diags.extend(effect_recursion_problems(program))
    diags.extend(designation_problems(program))
    diags.extend(property_problems(program))
    program.sources = sources
    return LoadResult(program, diags, sources)


@lru_cache(maxsize=1)
def default_interface() -> Interface:
    """The shipped library's interface (for compiling a scenario without an engine)."""

    def extend(paths: Sequence[str]) -> Interface:
        loaded = load_program(tuple(str(p) for p in paths))
        # rule errors are reported when the scenario's rules are loaded by an engine
        return face if loaded.errors else interface_of(loaded.program)

    face = replace(interface_of(load_program(()).program), extend=extend)
    return face
