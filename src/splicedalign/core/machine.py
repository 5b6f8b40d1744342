"""Facts about the machine a timing was taken on, for tables that name their device."""

from __future__ import annotations

import platform


def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


# /proc/stat's CPU tick kinds, in its order (steal: ticks a ready vCPU of this guest waited while
# the hypervisor ran others).
CPU_TICKS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def cpu_ticks() -> dict[str, int]:
    """The host's CPU ticks since boot by kind (CPU_TICKS), summed over its CPUs (Linux
    /proc/stat's cpu line): what the probes read before and after a timed call. {} where
    /proc/stat cannot be read."""
    try:
        with open("/proc/stat") as handle:
            return dict(zip(CPU_TICKS, map(int, handle.readline().split()[1:1 + len(CPU_TICKS)])))
    except (OSError, ValueError):
        return {}
