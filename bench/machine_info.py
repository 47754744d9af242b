"""What machine a benchmark ran on: CPU model, cores, memory, load — for every results file."""
from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def mem_gib() -> float | None:
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return None


def load() -> str:
    try:
        return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    except OSError:
        return "load average unknown"


def describe() -> str:
    """One line: cores, CPU, memory, Python, OS and the current load (the machine may be shared)."""
    mem = mem_gib()
    mem_text = f", {mem:.1f} GiB RAM" if mem else ""
    return (f"{cores()} cores ({cpu_model()}){mem_text}; Python {platform.python_version()}; "
            f"{platform.platform()}; {load()} when measured")
