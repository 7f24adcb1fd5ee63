"""What the benchmarks share: recorded results (:mod:`.results`), their rendering
(:mod:`.render`) and sweeps of many cells run in parallel (:mod:`.sweep`)."""
