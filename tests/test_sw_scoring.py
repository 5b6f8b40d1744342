"""sw: BLOSUM62 as data (cross-checked with Biopython), the protein alphabet and its errors."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.core.errors import InputError
from splicedalign.workloads.sw.matrices import PAD, PAD_SCORE, encode, matrix, padded_table
from splicedalign.workloads.sw.records import Scoring


def test_blosum62_matches_biopython():
    substitution_matrices = pytest.importorskip("Bio.Align.substitution_matrices")
    bio = substitution_matrices.load("BLOSUM62")
    letters, table = matrix("blosum62")
    assert letters == "ARNDCQEGHILKMFPSTWYVBZX*"
    for i, a in enumerate(letters):
        for j, b in enumerate(letters):
            assert table[i, j] == bio[a][b], (a, b)


def test_blosum62_known_entries_and_symmetry():
    letters, table = matrix("BLOSUM62")
    code = {c: k for k, c in enumerate(letters)}
    assert table[code["W"], code["W"]] == 11 and table[code["C"], code["C"]] == 9
    assert table[code["A"], code["R"]] == -1 and table[code["*"], code["*"]] == 1
    assert np.array_equal(table, table.T)
    assert Scoring().max_score == 11


def test_padded_table_pads_low():
    t = padded_table("blosum62")
    assert t.shape == (32, 32) and t[PAD].max() == PAD_SCORE and t[:, PAD].max() == PAD_SCORE
    assert t[0, 0] == 4


def test_encode_case_and_aliases():
    letters, _ = matrix("blosum62")
    x = letters.index("X")
    assert encode("acgU").tolist() == [letters.index("A"), letters.index("C"), letters.index("G"), x]
    assert encode("OJ*").tolist() == [x, x, letters.index("*")]


@pytest.mark.parametrize("seq,letter,pos", [("ACD1", "1", 4), ("-AC", "-", 1), ("AC.D", ".", 3)])
def test_encode_error_names_record_and_position(seq, letter, pos):
    with pytest.raises(InputError) as err:
        encode(seq, source="db.fa:line 3", record="P12345")
    msg = str(err.value)
    assert "db.fa:line 3" in msg and "'P12345'" in msg and f"position {pos}" in msg and repr(letter) in msg
    assert "\n" not in msg


def test_bad_scoring_is_input_error():
    with pytest.raises(InputError, match="unknown matrix"):
        Scoring("pam250")
    with pytest.raises(InputError, match="gap"):
        Scoring(gap=0)
