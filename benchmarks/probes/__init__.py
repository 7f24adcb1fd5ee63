"""Probes: one investigation each, run by name through ``python benchmarks/run.py NAME``
(their findings: docs/findings.md). Apart from the Table 2 runner and the benchmarks in
``benchmarks/``, they take the same shared options (:mod:`rlgpt_bench.options`)."""
