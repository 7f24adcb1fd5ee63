"""Shared fixtures: real worlds, small batches (sizes reused so JAX compiles each once)."""

from __future__ import annotations

import os

import pytest

from rlgpt_tui.envs.craftax_world import CraftaxWorld


@pytest.fixture(scope="session")
def craftax8() -> CraftaxWorld:
    world = CraftaxWorld(num_envs=8, seed=0)
    world.reset(0)
    return world


@pytest.fixture(autouse=True)
def sessions_dir(tmp_path_factory, monkeypatch):
    """Commands run by tests record their sessions in a temporary folder, not ./sessions,
    and read an empty user config file, not the person's."""
    folder = tmp_path_factory.mktemp("sessions")
    monkeypatch.setenv("RLGPT_SESSIONS_DIR", str(folder))
    monkeypatch.setenv("RLGPT_CONFIG", os.devnull)
    return folder
