"""Tasks: the catalog (goal predicates, horizons and descriptions from assets/tasks/*.toml),
the measure each is judged by, its results and their text, and the interval statistics.

Import from the module that does the job: ``tasks.catalog`` (Task, get_task, load_catalog),
``tasks.measure`` (Measure), ``tasks.results`` (Measurement, result_text),
``tasks.statistics`` (crafter_score, wilson_interval, bootstrap_score_interval).
"""
