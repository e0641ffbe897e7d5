"""The kernel's limits on a child process that reads untrusted input (a page, a PDF, a drawing),
set in the child, and how its parent tells it was stopped for passing its CPU limit."""

from __future__ import annotations

import signal


def limit_child(cpu_seconds: int, memory: int | None = None) -> None:
    """In a child process: the kernel's limits on its CPU time and (given `memory`) its address
    space, each lowered to the hard limit already set."""
    try:
        import resource
    except ImportError:  # Windows has no such limits
        return
    limits = [(resource.RLIMIT_CPU, cpu_seconds)]
    if memory is not None:
        limits.append((resource.RLIMIT_AS, memory))
    for which, value in limits:
        _, hard = resource.getrlimit(which)
        try:
            resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))
        except (ValueError, OSError):  # a system that refuses this limit (macOS may, for RLIMIT_AS)
            pass


def stopped_for_cpu(returncode: int | None) -> bool:
    """The child was killed for passing its CPU limit (SIGXCPU; never on a system without it)."""
    cpu_signal = getattr(signal, "SIGXCPU", 0)
    return returncode is not None and cpu_signal != 0 and returncode == -cpu_signal
