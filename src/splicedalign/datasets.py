"""Named data sets as manifest folders (see ``dataset``): the bundled real set shipped in
``resources/bundled`` and the synthetic sets of ``synthetic`` written to disk, so that every
pipeline rule reads all data sets the same way.

On the command line: ``splicedalign synthetic {tiny|paper|il1rapl1} OUT_DIR [--seed N]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from splicedalign import synthetic
from splicedalign.case import TestCase
from splicedalign.dataset import write_dataset
from splicedalign.errors import InputError

# The bundled set lives in the source tree (resources/ beside src/), which the package reaches
# in an editable install or a checkout.
BUNDLED = Path(__file__).resolve().parents[2] / "resources" / "bundled" / "cases.tsv"

SYNTHETIC: dict[str, Callable[..., list[TestCase]]] = {
    "tiny": synthetic.tiny_set,
    "paper": synthetic.paper_set,
    "il1rapl1": lambda **kw: [synthetic.il1rapl1_case(**kw)],
}


def bundled_manifest() -> Path:
    if not BUNDLED.exists():
        raise InputError(str(BUNDLED), "bundled data set not found (needs a source checkout"
                         " or editable install: resources/ sits beside src/)")
    return BUNDLED


def write_synthetic(kind: str, directory: str | Path, seed: int | None = None) -> Path:
    """Write the synthetic set ``kind`` (tiny | paper | il1rapl1) as a data set; its manifest."""
    if kind not in SYNTHETIC:
        raise InputError("synthetic", f"unknown synthetic set {kind!r}; known: {', '.join(SYNTHETIC)}")
    cases = SYNTHETIC[kind](**({} if seed is None else {"seed": seed}))
    return write_dataset(cases, directory)
