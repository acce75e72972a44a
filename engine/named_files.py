"""The rule files a scenario names (``rules:``): each resolved relative to the scenario, and it and every
file it includes (``.include``) checked by judgelog.safefiles (inside the scenario's folder or an allowed
one, a regular file under the cap); a file it may not name is reported at its entry and left out.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> named_file_problem("/etc/passwd", [folder])
"it is outside the scenario's folder"
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .ast import Include
from .parser import parse_text
from .safefiles import MAX_RULE_BYTES, problem, read_text, scenario_roots
from .scenario_reader import ScenarioReader

__all__ = ["named_file_problem", "scenario_rules", "ALLOW_HINT"]


def named_file_problem(path: str, roots: Sequence[str] | None) -> str | None:
    """Why a scenario may not name the rule file or folder ``path``: :func:`problem` for it and for every
    file it includes (``.include``, followed through the files it reaches; each read under the cap)."""
    why = problem(path, roots)
    if why is not None:
        return why
    pending = (
        [os.path.join(r, n) for r, _, names in os.walk(path) for n in names if n.endswith(".dl")]
        if os.path.isdir(path)
        else [path]
    )
    seen = set()
    while pending:
        current = pending.pop()
        real = os.path.realpath(current)
        if real in seen:
            continue
        seen.add(real)
        try:
            text = read_text(current, limit=MAX_RULE_BYTES)
        except (OSError, ValueError):
            continue  # reported (without its content) when the rules are loaded
        for item in parse_text(text, current, strict=False).file.items:
            if isinstance(item, Include):
                target = os.path.join(os.path.dirname(current), item.path)
                why = problem(target, roots)
                if why is not None:
                    return f"{os.path.basename(current)} includes {item.path!r}, and {why}"
                pending.append(target)
    return None


ALLOW_HINT = (
    "rule files a scenario names must lie in its folder, or be given with --rules; to allow another folder: "
    "--allow-dir DIR (or JUDGELOG_ALLOW_DIRS)"
)


def scenario_rules(ctx: ScenarioReader, data: dict) -> list[str]:
    """The rule files a scenario's ``rules:`` names, resolved relative to it; each one it may not name
    is reported (S100 at the entry) and left out. ``ctx``: the scenario's reader."""
    rules: list[str] = []
    if "rules" in data and ctx.want(data["rules"], "list", ("rules",), "rules"):
        roots = scenario_roots(ctx.doc.path)
        for i, item in enumerate(data["rules"]):
            if ctx.want(item, "str", ("rules", i), "a rules entry"):
                path = os.path.normpath(os.path.join(roots[0] if roots else ".", item))
                why = named_file_problem(path, roots)
                if why is None:
                    rules.append(path)
                else:
                    ctx.error(("rules", i), f"cannot use rules entry {item!r}: {why}", hint=ALLOW_HINT)
    return rules
