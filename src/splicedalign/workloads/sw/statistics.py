"""Karlin-Altschul statistics of a hit (SPEC-workloads C2): bit score and E-value from BLAST's
gapped parameters, with no effective-length correction.

    bitscore = (lambda * S - ln K) / ln 2        evalue = K * m * N * exp(-lambda * S)

``m`` is the query length, ``N`` the database's total residues. The parameter rows are NCBI
BLAST's precomputed tables (``blast_stat.c`` of the NCBI C++ Toolkit, arrays ``blosum45_values``
... ``pam70_values``: gap existence, gap extension, lambda, K; Altschul, Bundschuh, Olsen & Hwa,
NAR 29:351, 2001), in BLAST's gap convention (a gap of length L costs open + L * extend). The
defaults are the rows BLAST marks ``BLAST_MATRIX_BEST`` (its default gap costs per matrix).
Gap costs outside a matrix's table (a linear gap, say) take the matrix's ungapped lambda, K
(the table's first row), as documented in docs/sw.md; ``gapped`` says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# matrix: (ungapped (lambda, K), {(open, extend): (lambda, K)}, BLAST's default (open, extend))
KARLIN = {
    "blosum45": ((0.2291, 0.0924), {
        (13, 3): (0.207, 0.049), (12, 3): (0.199, 0.039), (11, 3): (0.190, 0.031), (10, 3): (0.179, 0.023),
        (16, 2): (0.210, 0.051), (15, 2): (0.203, 0.041), (14, 2): (0.195, 0.032), (13, 2): (0.185, 0.024),
        (12, 2): (0.171, 0.016), (19, 1): (0.205, 0.040), (18, 1): (0.198, 0.032), (17, 1): (0.189, 0.024),
        (16, 1): (0.176, 0.016)}, (14, 2)),
    "blosum50": ((0.2318, 0.112), {
        (13, 3): (0.212, 0.063), (12, 3): (0.206, 0.055), (11, 3): (0.197, 0.042), (10, 3): (0.186, 0.031),
        (9, 3): (0.172, 0.022), (16, 2): (0.215, 0.066), (15, 2): (0.210, 0.058), (14, 2): (0.202, 0.045),
        (13, 2): (0.193, 0.035), (12, 2): (0.181, 0.025), (19, 1): (0.212, 0.057), (18, 1): (0.207, 0.050),
        (17, 1): (0.198, 0.037), (16, 1): (0.186, 0.025), (15, 1): (0.171, 0.015)}, (13, 2)),
    "blosum62": ((0.3176, 0.134), {
        (11, 2): (0.297, 0.082), (10, 2): (0.291, 0.075), (9, 2): (0.279, 0.058), (8, 2): (0.264, 0.045),
        (7, 2): (0.239, 0.027), (6, 2): (0.201, 0.012), (13, 1): (0.292, 0.071), (12, 1): (0.283, 0.059),
        (11, 1): (0.267, 0.041), (10, 1): (0.243, 0.024), (9, 1): (0.206, 0.010)}, (11, 1)),
    "blosum80": ((0.3430, 0.177), {
        (25, 2): (0.342, 0.17), (13, 2): (0.336, 0.15), (9, 2): (0.319, 0.11), (8, 2): (0.308, 0.090),
        (7, 2): (0.293, 0.070), (6, 2): (0.268, 0.045), (11, 1): (0.314, 0.095), (10, 1): (0.299, 0.071),
        (9, 1): (0.279, 0.048)}, (10, 1)),
    "pam30": ((0.3400, 0.283), {
        (7, 2): (0.305, 0.15), (6, 2): (0.287, 0.11), (5, 2): (0.264, 0.079), (10, 1): (0.309, 0.15),
        (9, 1): (0.294, 0.11), (8, 1): (0.270, 0.072)}, (9, 1)),
    "pam70": ((0.3345, 0.229), {
        (8, 2): (0.301, 0.12), (7, 2): (0.286, 0.093), (6, 2): (0.264, 0.064), (11, 1): (0.305, 0.12),
        (10, 1): (0.291, 0.091), (9, 1): (0.270, 0.060)}, (10, 1)),
    "pam250": ((0.2252, 0.0868), {
        (15, 3): (0.205, 0.049), (14, 3): (0.200, 0.043), (13, 3): (0.194, 0.036), (12, 3): (0.186, 0.029),
        (11, 3): (0.174, 0.020), (17, 2): (0.204, 0.047), (16, 2): (0.198, 0.038), (15, 2): (0.191, 0.031),
        (14, 2): (0.182, 0.024), (13, 2): (0.171, 0.017), (21, 1): (0.205, 0.045), (20, 1): (0.199, 0.037),
        (19, 1): (0.192, 0.029), (18, 1): (0.183, 0.021), (17, 1): (0.171, 0.014)}, (14, 2)),
}


def default_gaps(matrix: str) -> tuple[int, int]:
    """BLAST's default (open, extend) for the matrix."""
    return KARLIN[matrix.lower()][2]


@dataclass(frozen=True)
class Karlin:
    lam: float
    K: float
    gapped: bool  # False: the gap costs are not in BLAST's table; the ungapped values are used

    def bitscore(self, score: int) -> float:
        return (self.lam * score - math.log(self.K)) / math.log(2)

    def evalue(self, score: int, m: int, residues: int) -> float:
        return self.K * m * residues * math.exp(-self.lam * score)


def karlin(matrix: str, gap_open: int, gap_extend: int) -> Karlin:
    ungapped, table, _ = KARLIN[matrix.lower()]
    if (gap_open, gap_extend) in table:
        return Karlin(*table[(gap_open, gap_extend)], True)
    return Karlin(*ungapped, False)
