"""The skill library: the coded skills a session may reuse, their versions and records."""
