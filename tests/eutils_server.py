"""A loopback E-utilities server for the NCBI client tests.

NCBI cannot be reached from the test machines, so this server answers esearch, esummary,
elink and efetch in E-utilities' own JSON/FASTA formats, built at start-up from the real
sequences of the bundled data set: the human IL10 region (the bundled base reverse-
complemented back to its chr1 orientation, where IL10 is on the minus strand at 1001-5892)
and the mouse Il10 RefSeq mRNA NM_010548.1 (gi 6754317). Gene IDs follow NCBI's (IL10 3586,
mouse Il10 16153); the chimpanzee entry of tests/data/eutils/homologene.data is a made-up
homolog without RefSeq mRNA, to exercise that path. Faults (HTTP 429/500, truncated bodies,
in-band error answers) are queued per utility by the tests.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from splicedalign.core.seqio import read_single_fasta
from splicedalign.workloads.spliced.exons.strand import reverse_complement

BUNDLED = Path(__file__).resolve().parents[1] / "resources" / "bundled"
REGION_ACC = "IL10_REGION.1"  # the served "chromosome": the 6,892 bp IL10 region of chr1


def _records() -> dict[str, tuple[str, str]]:
    """uid or accession -> (accession, sequence)."""
    il10 = read_single_fasta(BUNDLED / "bases" / "hs_IL10.fa").seq
    mouse = read_single_fasta(BUNDLED / "targets" / "mm_NM_010548.1.fa").seq
    region = (REGION_ACC, reverse_complement(il10))
    mrna = ("NM_010548.1", mouse)
    return {REGION_ACC: region, "6754317": mrna, "NM_010548.1": mrna}


GENES = {"IL10": "3586"}
LOCATIONS = {"3586": {"chraccver": REGION_ACC, "chrstart": 5891, "chrstop": 1000}}  # 0-based, minus
MRNA_LINKS = {"16153": ["6754317"], "741394": []}


class EutilsServer:
    def __init__(self):
        self.records = _records()
        self.faults: dict[str, deque[str]] = defaultdict(deque)
        self.requests: list[tuple[float, str, dict[str, str]]] = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/entrez/eutils/"

    def __enter__(self) -> EutilsServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def answer(self, utility: str, q: dict[str, str]) -> tuple[int, str, bytes]:
        if utility == "esearch":
            symbol = q["term"].split("[")[0]
            ids = [GENES[symbol]] if symbol in GENES else []
            body = {"esearchresult": {"count": str(len(ids)), "idlist": ids}}
            return 200, "application/json", json.dumps(body).encode()
        if utility == "esummary" and q["db"] == "gene":
            uid = q["id"]
            doc = {"uid": uid, "genomicinfo": [LOCATIONS[uid]] if uid in LOCATIONS else []}
            return 200, "application/json", json.dumps({"result": {"uids": [uid], uid: doc}}).encode()
        if utility == "esummary" and q["db"] == "nuccore":
            acc, seq = self.records[q["id"]]
            doc = {"uid": q["id"], "accessionversion": acc, "slen": len(seq)}
            return 200, "application/json", json.dumps({"result": {"uids": [q["id"]], q["id"]: doc}}).encode()
        if utility == "elink":
            links = MRNA_LINKS.get(q["id"], [])
            dbs = [{"dbto": "nuccore", "linkname": q["linkname"], "links": links}] if links else []
            body = {"linksets": [{"dbfrom": "gene", "ids": [q["id"]], "linksetdbs": dbs}]}
            return 200, "application/json", json.dumps(body).encode()
        if utility == "efetch":
            if q["id"] not in self.records:
                return 400, "text/plain", b"Failed to retrieve sequence"
            acc, seq = self.records[q["id"]]
            if "seq_start" in q:
                seq = seq[int(q["seq_start"]) - 1:int(q["seq_stop"])]
                if q.get("strand") == "2":
                    seq = reverse_complement(seq)
            lines = [seq[i:i + 70] for i in range(0, len(seq), 70)]
            return 200, "text/plain", (f">{acc} served by the test server\n" + "\n".join(lines) + "\n\n").encode()
        return 400, "text/plain", b"unknown utility"

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                parsed = urllib.parse.urlparse(self.path)
                utility = parsed.path.rsplit("/", 1)[-1].removesuffix(".fcgi")
                q = dict(urllib.parse.parse_qsl(parsed.query))
                with server.lock:
                    server.requests.append((time.monotonic(), utility, q))
                    fault = server.faults[utility].popleft() if server.faults[utility] else None
                if fault == "429":
                    return self._send(429, "text/plain", b"Too Many Requests", {"Retry-After": "0"})
                if fault == "500":
                    return self._send(500, "text/plain", b"Internal Server Error")
                if fault == "error":
                    return self._send(200, "application/json", b'{"error":"API rate limit exceeded","count":"4"}')
                status, ctype, body = server.answer(utility, q)
                if fault == "short":  # a well-formed answer missing part of its sequence
                    body = body[: len(body) // 2] + b"\n"
                if fault == "truncate":  # promise the whole body, send half, hang up
                    self.send_response(200)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self._send(status, ctype, body)

            def _send(self, status, ctype, body, headers=None):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        return Handler
