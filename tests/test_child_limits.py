"""The kernel's limits on the children that read untrusted input (fulltext/limits.py): the text
fetch's child limits its CPU alone, the page and drawing children their address space too, and a
child stopped for its CPU is told from any other end, never on a system without SIGXCPU."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from reader.fulltext.limits import stopped_for_cpu
from tests.helpers.timing import scaled

resource = pytest.importorskip("resource")

SPIN = """
import resource, sys
from reader.fulltext.limits import limit_child
limit_child(1, {memory})
print(resource.getrlimit(resource.RLIMIT_CPU)[0], resource.getrlimit(resource.RLIMIT_AS)[0], flush=True)
while True:
    pass
"""


@pytest.mark.parametrize("memory", [None, 1 << 30])
def test_a_child_past_its_cpu_limit_is_stopped_and_told_so(memory):
    before = resource.getrlimit(resource.RLIMIT_AS)[0]
    child = subprocess.run([sys.executable, "-c", SPIN.format(memory=memory)], capture_output=True, text=True, timeout=scaled(120))
    cpu, address_space = map(int, child.stdout.split())
    assert cpu == 1
    assert address_space == (before if memory is None else min(memory, before) if before != resource.RLIM_INFINITY else memory)
    assert stopped_for_cpu(child.returncode)


def test_other_ends_are_not_a_cpu_stop(monkeypatch):
    assert not stopped_for_cpu(0) and not stopped_for_cpu(1) and not stopped_for_cpu(-signal.SIGKILL) and not stopped_for_cpu(None)
    monkeypatch.delattr(signal, "SIGXCPU")  # Windows: no such signal, and a clean exit is no stop
    assert not stopped_for_cpu(0)
