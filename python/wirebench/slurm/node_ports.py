"""A node's own network ports as the kernel sees them: up or not, and at what rate. The rate is the
lower of what the port trained at (/sys/class/net/IF/speed; InfiniBand's ports/N/rate) and a limit
the kernel enforces on it (a tc root qdisc: tbf's rate, or htb's default class). ci/vcluster's
links are veth pairs shaped that way: a node "slowed" there is slow as a port trained down is."""
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

_UNITS = {"": 1e-9, "k": 1e-6, "m": 1e-3, "g": 1.0, "t": 1e3}


class PortSpecError(ValueError):
    pass


def parse_rate(text):
    """Gbit/s from a rate as users and tc write it: 400G, 400Gb/s, 200gbit, 100mbit, 1Gbit, 12500000bit."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:bit|b/s|bps|b)?(?:/s|ps)?\s*", text, re.I)
    if not match or (not match.group(2) and not re.search(r"bit|b", text, re.I)):
        raise PortSpecError(f"'{text}' is not a rate (e.g. 400G, 200Gb/s, 100mbit, 1gbit)")
    return float(match.group(1)) * _UNITS[match.group(2).lower()]


def spoken_rate(gbps):
    if gbps >= 1:
        return f"{gbps:g} Gb/s"
    return f"{gbps * 1000:g} Mb/s"


@dataclass
class Port:
    name: str
    found: bool
    up: bool = False
    state: str = ""
    rate_gbps: float | None = None
    rate_from: str = ""


def _first_line(path):
    try:
        return Path(path).read_text().splitlines()[0].strip()
    except (OSError, IndexError):
        return ""


def tc_limit_gbps(interface, tc=("tc",)):
    """The rate a root tbf, or a root htb's default class, holds the interface to; None if none."""
    try:
        qdiscs = subprocess.run([*tc, "-j", "qdisc", "show", "dev", interface], capture_output=True, text=True,
                                timeout=10).stdout
        root = next((q for q in json.loads(qdiscs or "[]") if q.get("root")), None)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if root is None:
        return None
    options = root.get("options", {})
    if root.get("kind") == "tbf" and options.get("rate"):
        return options["rate"] * 8 / 1e9  # bytes/s in tc's JSON
    if root.get("kind") == "htb" and options.get("default"):
        classid = f"{root['handle'].rstrip(':')}:{int(options['default'], 16):x}"
        classes = subprocess.run([*tc, "class", "show", "dev", interface], capture_output=True, text=True,
                                 timeout=10).stdout  # htb classes have no JSON form in iproute2 6.1
        for line in classes.splitlines():
            fields = line.split()
            if len(fields) > 2 and fields[2] == classid and "rate" in fields:
                return parse_rate(fields[fields.index("rate") + 1])
    return None


def read_port(name, sysfs="/sys", tc=("tc",)):
    """An Ethernet interface (wbeth0, eth0, ens1f0) or an InfiniBand port (mlx5_0 or mlx5_0:1)."""
    net = Path(sysfs) / "class" / "net" / name
    if net.is_dir():
        state = _first_line(net / "operstate")
        rates = []
        speed = _first_line(net / "speed")
        if speed.lstrip("-").isdigit() and int(speed) > 0:
            rates.append((int(speed) / 1000, f"{net}/speed"))
        limit = tc_limit_gbps(name, tc)
        if limit:
            rates.append((limit, f"tc qdisc on {name}"))
        rate, source = min(rates) if rates else (None, "")
        # "unknown" is what drivers without operational state say (lo, some tunnels): up if it has carrier
        up = state == "up" or (state == "unknown" and _first_line(net / "carrier") == "1")
        return Port(name, True, up, state, rate, source)
    device, _, port = name.partition(":")
    ib = Path(sysfs) / "class" / "infiniband" / device / "ports" / (port or "1")
    if ib.is_dir():
        state = _first_line(ib / "state")  # "4: ACTIVE"
        rate_text = _first_line(ib / "rate")  # "400 Gb/sec (4X NDR)"
        number = re.match(r"([0-9.]+)", rate_text)
        return Port(name, True, state.endswith("ACTIVE"), state.partition(": ")[2] or state,
                    float(number.group(1)) if number else None, f"{ib}/rate")
    return Port(name, False)


def parse_port_spec(spec):
    """--nic IF=RATE (or IF alone: up is all it must be) -> (name, Gbit/s or None)."""
    name, _, rate = spec.partition("=")
    if not name or not re.fullmatch(r"[A-Za-z0-9_.:@-]+", name):
        raise PortSpecError(f"--nic '{spec}': not IF or IF=RATE (e.g. eth0=100G, mlx5_0:1=400G)")
    return name, (parse_rate(rate) if rate else None)


def judge_port(port, expected_gbps):
    """(verdict, what) for one port: FAIL when it is missing, not up, or slower than expected; NOT JUDGED
    when a rate is expected but the driver reports none (virtio's speed is -1) and no rate limit
    holds it: an up port of unknown rate is not a slow one."""
    if not port.found:
        return "FAIL", f"{port.name} is missing"
    if not port.up:
        return "FAIL", f"{port.name} is {port.state or 'not up'}"
    if expected_gbps and port.rate_gbps is None:
        return "NOT JUDGED", (f"{port.name} up, at a rate its driver does not report (speed -1 or none, as virtio's): "
                              f"{spoken_rate(expected_gbps)} not checked")
    if expected_gbps and port.rate_gbps < expected_gbps * 0.999:
        return "FAIL", f"{port.name} at {spoken_rate(port.rate_gbps)}, expected {spoken_rate(expected_gbps)}"
    rate = f" at {spoken_rate(port.rate_gbps)}" if port.rate_gbps else ""
    return "PASS", f"{port.name} up{rate}"
