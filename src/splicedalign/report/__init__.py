"""Workload-agnostic helpers for the benchmark's tables and figures: TSV tables with one
spelling of "not available" (``tables``), rank and robust-fit statistics (``stats``) and
matplotlib set up for files only (``figures``). Each workload's own tables and figures live
in the workload (e.g. ``workloads/spliced/report/``); nothing here imports a workload."""
