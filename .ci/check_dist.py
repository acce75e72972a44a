"""Every file git tracks under engine/, rules/ and facts/ is in the wheel (as judgelog/...), and every tracked
file the sdist should carry is in the sdist; a file missing from a package fails CI.

    python .ci/check_dist.py DIST_FOLDER
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

PACKAGE = {"engine": "judgelog", "rules": "judgelog/rules", "facts": "judgelog/facts"}
SDIST_TOPS = (
    "engine",
    "rules",
    "facts",
    "tests",
    "docs",
    "bench",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
    "pyproject.toml",
)


def main(dist: str) -> int:
    tracked = subprocess.run(["git", "ls-files", "-z"], capture_output=True, text=True, check=True).stdout.split("\0")
    tracked = [t for t in tracked if t]
    [wheel] = Path(dist).glob("judgelog-*.whl")
    [sdist] = Path(dist).glob("judgelog-*.tar.gz")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as tar:
        in_sdist = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    missing = []
    for path in tracked:
        top, _, rest = path.partition("/")
        if top in PACKAGE and f"{PACKAGE[top]}/{rest}" not in in_wheel:
            missing.append(f"{wheel.name}: {path}")
        if top in SDIST_TOPS and path not in in_sdist:
            missing.append(f"{sdist.name}: {path}")
    if "judgelog/py.typed" not in in_wheel:  # tracked too, but named: without it no user's mypy reads our types
        missing.append(f"{wheel.name}: judgelog/py.typed (the PEP 561 marker of a typed package)")
    licenses = [n for n in in_wheel if n.endswith("/LICENSE") and ".dist-info/" in n]
    if not licenses:
        missing.append(f"{wheel.name}: the LICENSE file in .dist-info")
    for line in missing:
        print(f"missing from {line}", file=sys.stderr)
    print(
        f"{wheel.name}: {len(in_wheel)} files; {sdist.name}: {len(in_sdist)} files; "
        f"{len(missing)} tracked file(s) missing"
    )
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
