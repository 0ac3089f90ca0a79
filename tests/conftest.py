"""pytest configuration of the unit tests: the ``gpu`` marker."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Register ``gpu``: tests that need a real CUDA GPU (skipped without one; ``tools/ci/gpu_check.sh`` runs them
    with ``-m gpu`` and fails if any is skipped)."""
    config.addinivalue_line("markers", "gpu: needs a real CUDA GPU (tools/ci/gpu_check.sh runs these, none skipped)")
