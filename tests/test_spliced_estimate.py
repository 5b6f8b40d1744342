"""The estimation model and parallelism statistics on hand-worked examples (SPEC §3-5)."""

from __future__ import annotations

import pytest

from splicedalign.workloads.spliced import estimate as model

# Paper Fig. 8: s = ATGCAG AGTGT GTGTAG CCATGA ATGA laid on one base where the letters agree:
# s = ATGCAGAGTGTAGCCATGA, b1 = ATGCAG [1,6], b2 = AGTGT [7,11], b3 = GTGTAG [8,13],
# b4 = CCATGA [14,19], b5 = ATGA [16,19]. (The OCR text's "one symbol"/"AT in common" cannot
# be squared with the printed strings; the grouping the paper states is what matters.)
FIG8 = dict(first=[1, 7, 8, 14, 16], last=[6, 11, 13, 19, 19])


def test_fig8_groups():
    assert model.groups(**FIG8) == [[0], [1, 2], [3, 4]]


def test_fig8_estimates_by_hand():
    n = 5
    # lengths 6, 5, 6, 6, 4: Σ = 27
    assert model.cells(n, **FIG8) == 135
    assert model.est_seq(n, **FIG8) == 135
    assert model.est_intra(n, **FIG8) == 27 + 5 * (n - 1)  # 47
    assert model.est_intra_inter(n, **FIG8) == (6 + 4) + (6 + 4) + (6 + 4)  # 30


def test_groups_are_sorted_by_first_then_last_and_unsorted_input_is_fine():
    # Given out of order; positions refer to (first, last) order: [1,6],[7,11],[8,13],[14,19],[16,19]
    assert model.groups([16, 1, 14, 8, 7], [19, 6, 19, 13, 11]) == [[0], [1, 2], [3, 4]]


def test_group_boundary_is_strict():
    """SPEC §3: an exon starting exactly at the group's bound opens a new group."""
    assert model.groups([1, 5], [5, 9]) == [[0], [1]]
    assert model.groups([1, 4], [5, 9]) == [[0, 1]]


def test_group_bound_shrinks_to_the_smallest_last():
    # [1,100] and [2,3] group (bound 3); [50,60] starts after 3: new group.
    assert model.groups([1, 2, 50], [100, 3, 60]) == [[0, 1], [2]]


def test_nested_and_duplicate_exons():
    assert model.groups([3, 3, 1], [4, 4, 10]) == [[0, 1, 2]]


def test_histograms_by_hand():
    # lengths 6, 5, 6, 6, 4 all in bin 1 (1..32)
    assert model.intra_histogram(**FIG8) == {1: 100.0}
    assert model.intra_histogram([1, 1, 1, 1], [32, 33, 64, 65]) == {1: 25.0, 2: 50.0, 3: 25.0}
    assert model.inter_histogram(**FIG8) == pytest.approx({1: 100 / 3, 2: 200 / 3})


def test_average_histogram_counts_missing_bins_as_zero():
    assert model.average_histogram([{1: 100.0}, {1: 50.0, 2: 50.0}]) == {1: 75.0, 2: 25.0}


def test_case_stats():
    stats = model.case_stats(5, **FIG8)
    assert stats == {
        "K": 5, "exon_length_sum": 27, "cells": 135, "groups": 3, "mean_group_size": 5 / 3,
        "max_group_size": 2, "est_seq": 135, "est_intra": 47, "est_intra_inter": 30,
    }
