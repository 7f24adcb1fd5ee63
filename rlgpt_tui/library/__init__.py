"""The skill library: the coded skills and trained policies a session may reuse, their
versions and records (:class:`~rlgpt_tui.library.skill_library.SkillLibrary`, over the
storage protocol of :mod:`~rlgpt_tui.library.storage`)."""
