"""What the benchmarks share: recorded results (:mod:`.results`) and their rendering
(:mod:`.render`), sweeps of many cells run in parallel (:mod:`.sweep`), the coded skills a
benchmark runs (:mod:`.skills`) and code compared side by side on the same worlds
(:mod:`.compare`) and the options every benchmark takes, declared once (:mod:`.options`)."""
