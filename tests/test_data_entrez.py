"""NCBI E-utilities client against a loopback server (tests/eutils_server.py): success,
rate limiting, retries and failures. No test touches the internet."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from splicedalign.core.seqio import read_single_fasta
from splicedalign.data.entrez import EutilsClient, EutilsConfig, NcbiError, RateLimiter
from splicedalign.workloads.spliced.datasets import read_manifest
from splicedalign.workloads.spliced.exons.strand import reverse_complement
from splicedalign.workloads.spliced.ncbi_datasets import write_ncbi_dataset

sys.path.insert(0, str(Path(__file__).parent))
from eutils_server import BUNDLED, REGION_ACC, EutilsServer  # noqa: E402

HOMOLOGENE = Path(__file__).parent / "data" / "eutils" / "homologene.data"
SECRET = "test-key-0123456789abcdef"


@pytest.fixture
def server():
    with EutilsServer() as s:
        yield s


def client(server, sleeps=None, **kw) -> EutilsClient:
    config = EutilsConfig(base_url=server.url, backoff_s=0.01, timeout_s=5, **kw)
    return EutilsClient(config) if sleeps is None else EutilsClient(config, sleep=sleeps.append)


def test_gene_dataset_from_loopback(server, tmp_path):
    manifest = write_ncbi_dataset(client(server, api_key=SECRET), ["IL10"], HOMOLOGENE, tmp_path, flank=500)
    (entry,) = read_manifest(manifest)
    case = entry.load()
    il10 = read_single_fasta(BUNDLED / "bases" / "hs_IL10.fa").seq
    # gene 1001-5892 on the minus strand of the region, +-500: oriented slice of the bundled base
    assert case.base == il10[500:6392]
    assert case.target == read_single_fasta(BUNDLED / "targets" / "mm_NM_010548.1.fa").seq
    assert case.K > 0 and all(e.attrs["source"] == "signals" for e in case.exons)
    report = (tmp_path / "report.tsv").read_text()
    assert "741394\ttarget\t\t\tno RefSeq mRNA (taxon 9598)" in report
    efetch = [q for _, u, q in server.requests if u == "efetch" and q["id"] == REGION_ACC]
    assert efetch[0]["seq_start"] == "501" and efetch[0]["seq_stop"] == "6392" and efetch[0]["strand"] == "2"


def _slots(c: EutilsClient) -> list[float]:
    """The start each request was given by the client's limiter (recorded as it waits)."""
    slots: list[float] = []
    wait = c.limiter.wait

    def recorded() -> None:
        wait()
        slots.append(c.limiter.next_at - c.limiter.interval)
    c.limiter.wait = recorded  # type: ignore[method-assign]
    return slots


def _spaced(slots: list[float], server, interval: float) -> bool:
    """Every request waited for a slot `interval` after the one before, and none reached the
    server before its slot. (Arrival gaps alone jitter by tens of ms on a loaded machine: a
    request that waited its slot can still arrive late, shortening the next gap.)"""
    arrivals = [t for t, _, _ in server.requests]
    return (len(slots) == len(arrivals) and all(b - a >= interval - 1e-9 for a, b in zip(slots, slots[1:]))
            and all(t >= slot for slot, t in zip(slots, arrivals)))


def test_rate_limit_without_key_is_3_per_second(server):
    c = client(server)
    slots = _slots(c)
    for _ in range(4):
        c.gene_location("3586")
    assert len(server.requests) == 4
    assert _spaced(slots, server, 1 / 3)


def test_rate_limit_with_key_is_10_per_second_and_key_never_logged(server, tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("NCBI_API_KEY", SECRET)
    config = EutilsConfig.from_env(base_url=server.url, backoff_s=0.01, cache_dir=tmp_path / "cache")
    assert config.rate_per_s == 10 and SECRET not in repr(config)
    c = EutilsClient(config)
    slots = _slots(c)
    server.faults["esummary"].append("500")
    caplog.set_level(logging.DEBUG, logger="splicedalign.data.entrez")
    for uid in ("3586", "6754317", REGION_ACC, "NM_010548.1"):
        c.get("esummary", {"db": "gene" if uid == "3586" else "nuccore", "id": uid, "retmode": "json"},
              lambda body: body)
    assert _spaced(slots, server, 0.1)
    assert all(q.get("api_key") == SECRET for _, _, q in server.requests)  # sent to the server...
    assert "retry" in caplog.text and SECRET not in caplog.text  # ...but never logged
    assert all(SECRET not in p.read_text(errors="replace") and SECRET not in p.name
               for p in (tmp_path / "cache").iterdir())


def test_limiter_spaces_requests_with_injected_clock():
    now, sleeps = [0.0], []
    limiter = RateLimiter(3, clock=lambda: now[0], sleep=lambda s: (sleeps.append(s), now.__setitem__(0, now[0] + s)))
    for _ in range(4):
        limiter.wait()
    assert sleeps == pytest.approx([1 / 3] * 3)


@pytest.mark.parametrize("fault", ["429", "500", "truncate", "error", "short"])
def test_retry_on_transient_fault(server, fault):
    sleeps: list[float] = []
    c = client(server, sleeps)
    server.faults["efetch"].extend([fault, fault])
    record = c.fasta("NM_010548.1", 1314)
    assert len(record.seq) == 1314
    assert [u for _, u, _ in server.requests] == ["efetch"] * 3
    expected = [0.0, 0.0] if fault == "429" else [0.01, 0.02]  # Retry-After: 0, else backoff doubling
    assert [s for s in sleeps if s in (0.0, 0.01, 0.02)][-2:] == expected


def test_gives_up_after_max_retries(server):
    c = client(server, [], api_key=SECRET, max_retries=3)
    server.faults["efetch"].extend(["500"] * 10)
    with pytest.raises(NcbiError, match=r"gave up after 4 attempts, last: HTTP 500") as err:
        c.fasta("NM_010548.1", 1314)
    assert SECRET not in str(err.value)
    assert len(server.requests) == 4


def test_client_errors_are_not_retried(server):
    c = client(server, [])
    with pytest.raises(NcbiError, match="HTTP 400"):
        c.fasta("NO_SUCH.1", 100)
    assert len(server.requests) == 1


def test_wrong_length_fails_after_retries(server):
    c = client(server, [], max_retries=2)
    with pytest.raises(NcbiError, match="FASTA has 1314 bp, expected 1315"):
        c.fasta("NM_010548.1", 1315)


def test_unknown_symbol_and_missing_location(server):
    c = client(server, [])
    with pytest.raises(NcbiError, match="0 Gene IDs"):
        c.gene_id("NOSUCHGENE")
    with pytest.raises(NcbiError, match="no genomic location"):
        c.gene_location("16153")


def test_cache_serves_repeats_without_requests(server, tmp_path):
    first = client(server, cache_dir=tmp_path).fasta("NM_010548.1", 1314)
    n = len(server.requests)
    again = client(server, cache_dir=tmp_path).fasta("NM_010548.1", 1314)
    assert again == first and len(server.requests) == n


def test_region_orientation_matches_reverse_complement(server):
    c = client(server)
    acc, first, last, strand = c.gene_location(c.gene_id("IL10"))
    assert (acc, first, last, strand) == (REGION_ACC, 1001, 5892, "-")
    plus = c.fasta(acc, 100, 1001, 1100, "+").seq
    minus = c.fasta(acc, 100, 1001, 1100, "-").seq
    assert minus == reverse_complement(plus)
