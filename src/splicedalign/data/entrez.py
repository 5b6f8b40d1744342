"""NCBI E-utilities client for the online data set: a human gene's region +-flank and
homologous mRNAs of other species (HomoloGene), fetched politely and checked before use.

- Rate limit: 3 requests/s, 10 with an API key (``NCBI_API_KEY`` from the environment). The
  key is sent to NCBI only; it never appears in logs, errors or cache file names.
- Retries with exponential backoff (honouring ``Retry-After``) on HTTP 429, 5xx, connection
  errors, truncated bodies and E-utilities' in-band error answers.
- Caching: validated answers are stored under ``cache_dir`` keyed by request (key excluded).
- Validation: FASTA must parse, be one record and have the expected length.
The base URL is configurable (tests point it at a loopback server).
"""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import logging
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import FastaRecord, iter_fasta
from splicedalign.data.homologene import HUMAN_TAXON

DEFAULT_BASE_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
log = logging.getLogger(__name__)
T = TypeVar("T")


class NcbiError(RuntimeError):
    """A request that failed for good (after retries) or an answer that fails validation."""


class Retryable(Exception):
    """A transient failure: worth another try after a pause."""

    def __init__(self, why: str, retry_after: float | None = None):
        super().__init__(why)
        self.retry_after = retry_after


@dataclass(frozen=True)
class EutilsConfig:
    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = field(default=None, repr=False)  # repr=False: never printed
    tool: str = "splicedalign"
    email: str | None = None
    max_retries: int = 5
    backoff_s: float = 1.0  # first pause; doubles on each retry
    timeout_s: float = 60.0
    cache_dir: Path | None = None

    @classmethod
    def from_env(cls, **overrides) -> EutilsConfig:
        return cls(api_key=os.environ.get("NCBI_API_KEY") or None, **overrides)

    @property
    def rate_per_s(self) -> float:
        return 10.0 if self.api_key else 3.0


class RateLimiter:
    """At most ``rate`` request starts per second (evenly spaced)."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.interval, self.clock, self.sleep = 1.0 / rate, clock, sleep
        self.next_at = float("-inf")

    def wait(self) -> None:
        now = self.clock()
        if now < self.next_at:
            self.sleep(self.next_at - now)
            now = self.next_at
        self.next_at = now + self.interval


class EutilsClient:
    def __init__(self, config: EutilsConfig, sleep: Callable[[float], None] = time.sleep):
        self.config = config
        self.sleep = sleep
        self.limiter = RateLimiter(config.rate_per_s, sleep=sleep)

    def _url(self, utility: str, params: dict[str, str]) -> tuple[str, str]:
        """(URL sent, URL safe to show): the second has no API key."""
        common = {"tool": self.config.tool, **({"email": self.config.email} if self.config.email else {})}
        shown = urllib.parse.urljoin(self.config.base_url, f"{utility}.fcgi") + "?" + \
            urllib.parse.urlencode({**params, **common})
        if self.config.api_key:
            return shown + "&" + urllib.parse.urlencode({"api_key": self.config.api_key}), shown
        return shown, shown

    def _cache_path(self, shown_url: str) -> Path | None:
        if self.config.cache_dir is None:
            return None
        return Path(self.config.cache_dir) / hashlib.sha256(shown_url.encode()).hexdigest()

    def _once(self, url: str) -> bytes:
        self.limiter.wait()
        try:
            with urllib.request.urlopen(url, timeout=self.config.timeout_s) as response:
                body = response.read()  # raises IncompleteRead when Content-Length is not met
        except urllib.error.HTTPError as exc:
            if exc.code == 429 or exc.code >= 500:
                after = exc.headers.get("Retry-After") if exc.headers else None
                raise Retryable(f"HTTP {exc.code}", float(after) if after and after.isdigit() else None) from exc
            raise NcbiError(f"HTTP {exc.code} {exc.reason}") from None
        except http.client.IncompleteRead as exc:
            raise Retryable(f"truncated body ({len(exc.partial)} bytes, {exc.expected} missing)") from exc
        except (urllib.error.URLError, ConnectionError, TimeoutError, http.client.HTTPException) as exc:
            raise Retryable(f"connection failed: {getattr(exc, 'reason', exc)}") from exc
        if body.lstrip().startswith(b'{"error"') or b"<ERROR>" in body[:500]:
            raise Retryable(f"E-utilities error answer: {body[:120].decode(errors='replace')}")
        return body

    def get(self, utility: str, params: dict[str, str], parse: Callable[[bytes], T]) -> T:
        """GET a utility's answer, parsed by ``parse`` (raising NcbiError when the answer is
        bad, Retryable when it looks cut short). Cached once parsed successfully."""
        url, shown = self._url(utility, params)
        cache = self._cache_path(shown)
        if cache is not None and cache.exists():
            return parse(cache.read_bytes())
        pause = self.config.backoff_s
        for attempt in range(1, self.config.max_retries + 2):
            try:
                body = self._once(url)
                value = parse(body)
            except Retryable as exc:
                if attempt > self.config.max_retries:
                    raise NcbiError(f"{shown}: gave up after {attempt} attempts, last: {exc}") from None
                wait = exc.retry_after if exc.retry_after is not None else pause
                log.warning("%s: %s; retry %d/%d in %.1f s", shown, exc, attempt,
                            self.config.max_retries, wait)
                self.sleep(wait)
                pause *= 2
                continue
            except NcbiError as exc:
                raise NcbiError(f"{shown}: {exc}") from None
            log.info("fetched %s (%d bytes)", shown, len(body))
            if cache is not None:
                cache.parent.mkdir(parents=True, exist_ok=True)
                cache.write_bytes(body)
            return value
        raise AssertionError("unreachable")

    # --- the utilities the data set needs -------------------------------------------------
    def gene_id(self, gene: str, taxon: int = HUMAN_TAXON) -> str:
        """Gene ID of a symbol (or the ID itself when numeric)."""
        if gene.isdigit():
            return gene
        term = f"{gene}[sym] AND txid{taxon}[orgn] AND alive[prop]"
        ids = self.get("esearch", {"db": "gene", "term": term, "retmode": "json"},
                       _json_path("esearchresult", "idlist"))
        if len(ids) != 1:
            raise NcbiError(f"gene symbol {gene!r}: {len(ids)} Gene IDs for taxon {taxon} ({', '.join(ids[:5])})")
        return ids[0]

    def gene_location(self, gene_id: str) -> tuple[str, int, int, str]:
        """(sequence accession, first, last 1-based, strand) of a gene's current annotation."""
        doc = self.get("esummary", {"db": "gene", "id": gene_id, "retmode": "json"}, _json_path("result", gene_id))
        try:
            info = doc["genomicinfo"][0]
            a, b = int(info["chrstart"]), int(info["chrstop"])  # 0-based; start > stop on minus
            return info["chraccver"], min(a, b) + 1, max(a, b) + 1, "-" if a > b else "+"
        except (KeyError, IndexError, ValueError, TypeError):
            raise NcbiError(f"gene {gene_id}: no genomic location in its summary") from None

    def refseq_mrnas(self, gene_id: str) -> list[str]:
        """Nucleotide UIDs of a gene's RefSeq RNAs."""
        params = {"dbfrom": "gene", "db": "nuccore", "id": gene_id, "linkname": "gene_nuccore_refseqrna",
                  "retmode": "json"}
        return self.get("elink", params, _elink_ids)

    def sequence_length(self, uid: str) -> tuple[str, int]:
        doc = self.get("esummary", {"db": "nuccore", "id": uid, "retmode": "json"}, _json_path("result", uid))
        try:
            return doc["accessionversion"], int(doc["slen"])
        except (KeyError, ValueError, TypeError):
            raise NcbiError(f"nuccore {uid}: summary lacks accessionversion/slen") from None

    def fasta(self, uid: str, length: int, start: int | None = None, stop: int | None = None,
              strand: str = "+") -> FastaRecord:
        """One nucleotide record (or its [start, stop] slice on ``strand``), checked."""
        params = {"db": "nuccore", "id": uid, "rettype": "fasta", "retmode": "text"}
        if start is not None:
            params.update(seq_start=str(start), seq_stop=str(stop), strand="2" if strand == "-" else "1")
        return self.get("efetch", params, lambda body: _one_fasta(body, length, uid))


def _json_path(*keys: str) -> Callable[[bytes], Any]:
    def parse(body: bytes):
        try:
            value = json.loads(body)
        except json.JSONDecodeError:
            raise Retryable("answer is not complete JSON") from None
        for k in keys:
            if not isinstance(value, dict) or k not in value:
                raise NcbiError(f"answer lacks {'/'.join(keys)}")
            value = value[k]
        return value
    return parse


def _elink_ids(body: bytes) -> list[str]:
    sets = _json_path("linksets")(body)
    links = [link for s in sets for db in s.get("linksetdbs", []) for link in db.get("links", [])]
    return [str(x) for x in links]


def _one_fasta(body: bytes, length: int, uid: str) -> FastaRecord:
    if not body.strip():
        raise Retryable("empty FASTA answer")
    try:
        records = list(iter_fasta(io.StringIO(body.decode("ascii", errors="replace")), f"efetch {uid}"))
    except InputError as exc:
        raise NcbiError(f"FASTA does not parse: {exc}") from None
    if len(records) != 1:
        raise NcbiError(f"{len(records)} FASTA records, expected 1")
    if len(records[0].seq) != length:
        # a short record is what a cut connection leaves: worth another try
        raise Retryable(f"FASTA has {len(records[0].seq)} bp, expected {length}")
    return records[0]
