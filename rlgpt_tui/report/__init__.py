"""Reports from what the store recorded: a session exported as markdown (plans, code,
verdicts, tables, curves, a GIF) or JSON, its best solution replayed as a GIF, and a library
skill as text.

Import from the module that does the job: ``report.export`` (export_session),
``report.session_markdown`` (session_markdown), ``report.record`` (session_record,
final_code), ``report.replay`` (evaluation_frames), ``report.skill_markdown``
(skill_markdown).
"""
