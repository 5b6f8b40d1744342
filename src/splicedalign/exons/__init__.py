"""Candidate-exon sources. Importing this package registers every reader in
``splicedalign.io.EXON_READERS``: genscan, gff/gff3/gtf/augustus, bed12, bed12-cds, signals
(plus the built-in tsv). Each returns forward-strand exons with ``strand``/``source``/``score``
attributes; ``strand.on_strand`` turns a minus-strand prediction into forward coordinates."""

from splicedalign.exons import bed12, genscan, gff, signals, strand  # noqa: F401  (registration)
from splicedalign.exons.strand import flip_exon, on_strand, reverse_complement

__all__ = ["flip_exon", "on_strand", "reverse_complement"]
