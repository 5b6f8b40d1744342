"""Shared test fixtures: the golden cases of SPEC §7, vendored in tests/data/golden."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "data" / "golden" / "cases.json"


def load_golden() -> list[dict]:
    if not GOLDEN.exists():
        pytest.fail(f"golden cases missing: {GOLDEN}")
    return json.loads(GOLDEN.read_text())


def golden_case(g: dict) -> tuple[TestCase, Scoring]:
    case = TestCase(g["name"], g["base"], g["target"], tuple(Exon(f, l) for f, l in g["exons"]))
    return case, Scoring.from_mapping(g["scoring"])


@pytest.fixture(scope="session")
def golden() -> list[dict]:
    return load_golden()
