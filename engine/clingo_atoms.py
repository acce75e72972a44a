"""Reading the ground atoms of one predicate out of a clingo control, as text.

clingo's Python API asks the library several times per atom (is the iterator valid, is the atom a fact,
its symbol, the length of its text, its text, the next atom), each call wrapped in Python objects and error
checks: about 5 µs an atom, 40 ms for the 8,000 ``damage_assigner`` atoms of a 5,000-attacker board.
:func:`atom_texts` makes the same calls on the library directly, with its buffers allocated once (about a
third of the time). It reads clingo's own foreign-function module (``clingo._internal``, the module its
Python API is written over); if that is not there (another clingo), the public API is used, with the same
result.

>>> import clingo
>>> ctl = clingo.Control(["--warn=none"])
>>> ctl.add("base", [], 'p(1, "a"). p(2, "b"). q(1). r(X) :- q(X), not s(X). s(X) :- q(X), not r(X).')
>>> ctl.ground([("base", [])])
>>> atom_texts(ctl, "p", 2)
(['p(1,"a")', 'p(2,"b")'], False)
>>> atom_texts(ctl, "r", 1)  # an atom grounding alone does not decide
([], True)

:func:`every_atom_text` reads every atom of the control in one pass, by name (the texts of the facts, and
whether an atom of that name is not one), for a caller about to read many predicates:

>>> found = every_atom_text(ctl)
>>> found["p"], found["q"], found["r"]
(['p(1,"a")', 'p(2,"b")'], ['q(1)'], None)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import clingo

__all__ = ["atom_texts", "every_atom_text"]


def _library() -> tuple[Any, Any, Any] | None:
    try:
        from clingo._internal import _ffi, _handle_error, _lib
    except ImportError:
        return None
    needed = (
        "clingo_signature_create",
        "clingo_symbolic_atoms_begin",
        "clingo_symbolic_atoms_is_valid",
        "clingo_symbolic_atoms_is_fact",
        "clingo_symbolic_atoms_symbol",
        "clingo_symbolic_atoms_next",
        "clingo_symbol_to_string_size",
        "clingo_symbol_to_string",
    )
    if not all(hasattr(_lib, name) for name in needed):
        return None
    return _ffi, _lib, _handle_error


_LIBRARY: list[tuple[Any, Any, Any] | None] = []  # clingo's library module once looked up


def atom_texts(ctl: clingo.Control, name: str, arity: int) -> tuple[list[str], bool]:
    """The texts of the atoms ``name/arity`` that are facts in ``ctl`` (in clingo's order), and whether an
    atom of that signature is not a fact (grounding alone did not decide it)."""
    library, rep = _backdoor(ctl)
    if library is None:
        return _public(ctl.symbolic_atoms.by_signature(name, arity))
    ffi, lib, check = library
    signature = ffi.new("clingo_signature_t*")
    check(lib.clingo_signature_create(name.encode(), arity, True, signature))
    facts, others = _direct(ffi, lib, check, rep, signature)
    # decoded at once (clingo writes a newline in a string as an escape: no text holds one)
    return (b"\n".join(facts).decode().split("\n") if facts else []), bool(others)


def every_atom_text(ctl: clingo.Control) -> dict[str, list[str] | None]:
    """The texts of the facts of ``ctl``, by the name of their symbol, in one pass over its atoms; None for a
    name some atom of which is not a fact (grounding alone did not decide it: read it with the solver)."""
    library, rep = _backdoor(ctl)
    if library is None:
        facts, others = _public(ctl.symbolic_atoms, every=True)
    else:
        ffi, lib, check = library
        raw_facts, raw_others = _direct(ffi, lib, check, rep, ffi.NULL)
        facts, others = [t.decode() for t in raw_facts], [t.decode() for t in raw_others]
    found: dict[str, list[str] | None] = {}
    for text in facts:
        cut = text.find("(")
        name = text if cut < 0 else text[:cut]
        texts = found.setdefault(name, [])
        if texts is not None:
            texts.append(text)
    for text in others:
        cut = text.find("(")
        found[text if cut < 0 else text[:cut]] = None
    return found


def _backdoor(ctl: clingo.Control) -> tuple[tuple[Any, Any, Any] | None, Any]:
    """clingo's foreign-function module and the control's symbolic atoms handle, or (None, None)."""
    if not _LIBRARY:
        _LIBRARY.append(_library())
    rep = getattr(ctl.symbolic_atoms, "_rep", None)
    if _LIBRARY[0] is None or rep is None:
        return None, None
    return _LIBRARY[0], rep


def _public(atoms: Iterable[clingo.SymbolicAtom], *, every: bool = False) -> tuple[list[str], Any]:
    """As :func:`_direct`, through clingo's Python API: the fact texts, and the other atoms' texts (``every``)
    or whether there is one."""
    texts, others = [], []
    for atom in atoms:
        if atom.is_fact:
            texts.append(str(atom.symbol))
        else:
            others.append(str(atom.symbol))
    return texts, (others if every else bool(others))


def _direct(ffi: Any, lib: Any, check: Any, rep: Any, signature: Any) -> tuple[list[bytes], list[bytes]]:
    """The texts of the fact atoms of one signature (every atom for ``ffi.NULL``), and of the other atoms."""
    iterator = ffi.new("clingo_symbolic_atom_iterator_t*")
    valid, fact = ffi.new("bool*"), ffi.new("bool*")
    symbol, size = ffi.new("clingo_symbol_t*"), ffi.new("size_t*")
    capacity = 1024
    buffer = ffi.new("char[]", capacity)
    check(lib.clingo_symbolic_atoms_begin(rep, signature, iterator))
    is_valid, is_fact = lib.clingo_symbolic_atoms_is_valid, lib.clingo_symbolic_atoms_is_fact
    symbol_of, step = lib.clingo_symbolic_atoms_symbol, lib.clingo_symbolic_atoms_next
    text_size, text_of, string = lib.clingo_symbol_to_string_size, lib.clingo_symbol_to_string, ffi.string
    texts: list[bytes] = []
    others: list[bytes] = []
    while True:
        at = iterator[0]
        if not is_valid(rep, at, valid):
            check(False)
        if not valid[0]:
            break
        if not is_fact(rep, at, fact) or not symbol_of(rep, at, symbol):
            check(False)
        # written into the buffer at hand; clingo refuses (writes nothing usable) when it is too short, and
        # only then is the text measured first (measuring costs as much as writing)
        if not text_of(symbol[0], buffer, capacity):
            if not text_size(symbol[0], size):
                check(False)
            capacity = max(size[0], 2 * capacity)
            buffer = ffi.new("char[]", capacity)
            if not text_of(symbol[0], buffer, capacity):
                check(False)
        (texts if fact[0] else others).append(string(buffer))
        if not step(rep, at, iterator):
            check(False)
    return texts, others
