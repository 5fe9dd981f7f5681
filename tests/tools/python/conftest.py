"""Shared fixtures of the Python API tests: the repository root and a machine dict."""

import os

import pytest


@pytest.fixture
def root():
    """The repository root (TREESIM_ROOT, set by ctest)."""
    return os.environ["TREESIM_ROOT"]


def mini_dict(l1b_fanout=2):
    """configs/mini.yaml as a dict, with L1B's fanout as given (2 as in the file)."""
    level = lambda name, fanout, memory, bw, latency, reduce: {  # noqa: E731
        "name": name, "fanout": fanout, "memory_bytes": memory, "down_bytes_per_cycle": bw,
        "up_bytes_per_cycle": bw, "latency_cycles": latency, "reduce": reduce}
    return {
        "name": "mini-dict",
        "clock_ghz": 1.0,
        "dram": {"bytes": "1GiB", "bytes_per_cycle": 64, "latency_cycles": 100},
        "levels": [level("L2B", 1, "4MiB", 64, 8, True), level("L1B", l1b_fanout, "1MiB", 32, 4, True),
                   level("MAB", 4, 0, 16, 2, False), level("PE", 4, "64KiB", 8, 1, False)],
        "pe": {"mac": {"int8_macs_per_cycle": 64, "latency_cycles": 4},
               "dpt_decoder": {"bytes_per_cycle": 4, "latency_cycles": 2},
               "requant": {"values_per_cycle": 8, "latency_cycles": 3}},
    }
