"""The layering rule of docs/architecture.md: shared layers import no workload, and no
workload imports another (read with ast: nothing is executed)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "splicedalign"
SHARED = ("core", "gpu", "data", "report")
WORKLOADS = sorted(p.name for p in (PACKAGE / "workloads").iterdir() if (p / "__init__.py").exists())


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer", SHARED)
def test_shared_layer_imports_no_workload(layer: str):
    bad = {f"{p.relative_to(PACKAGE)}: {name}" for p in (PACKAGE / layer).rglob("*.py")
           for name in imported(p) if name.startswith("splicedalign.workloads")}
    assert not bad, sorted(bad)


@pytest.mark.parametrize("workload", WORKLOADS)
def test_workload_imports_no_other_workload(workload: str):
    others = tuple(f"splicedalign.workloads.{w}" for w in WORKLOADS if w != workload)
    bad = {f"{p.relative_to(PACKAGE)}: {name}" for p in (PACKAGE / "workloads" / workload).rglob("*.py")
           for name in imported(p) if name.startswith(others)}
    assert not bad, sorted(bad)
