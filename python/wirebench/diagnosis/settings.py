"""Each NCCL_* the log says is set (`NCCL_X set by environment to V`), checked against the hardware
the log (and the node's wiring, where given) shows: a setting that forces a slower path than the
wiring offers, or names a device the log and the wiring show absent. The settings that switch a
transport off outright are transport_rules.py's and network_rules.py's (transport-disabled, p2p-level, nvls-unavailable,
socket-fallback's evidence)."""

import difflib
import re

from . import fixed_in_later_nccl, parameters
from .log_reader import BRACKETED, IB_LIST  # the reader's own patterns
from .registry import rule
from .log_facts import SETTING, first_setting, settings, turned_on
from .sources import ENV_DOCS

GDR_LEVELS = ("LOC", "PIX", "PXB", "PHB", "SYS")  # NCCL_NET_GDR_LEVEL's names, nearest first
GDR_NUMBERS = {"0": "LOC", "1": "PIX", "2": "PXB", "3": "PHB", "4": "SYS", "5": "SYS"}


@rule("gdr-level-below-wiring", "WARN", "network",
      "`NCCL_NET_GDR_LEVEL set by environment to L` nearer than the distance of the node's NICs to their GPUs "
      "(nvidia-smi topo -m)",
      "the setting forbids GPUDirect RDMA on the paths the wiring offers: the network's data is staged through "
      "host memory",
      "unset NCCL_NET_GDR_LEVEL (NCCL allows GPUDirect RDMA up to PXB by default) or set it to the NICs' distance",
      f"{ENV_DOCS}: NCCL_NET_GDR_LEVEL", needs=("topology",))
def gdr_level_below_wiring(r, c):
    for m in settings(c.log).get("NCCL_NET_GDR_LEVEL", [])[:1]:
        value = m.value
        level = GDR_NUMBERS.get(value, value.upper())
        if level not in GDR_LEVELS:
            continue
        nearest = [d for nic in c.wiring.nics.values() for d in nic.values() if d in GDR_LEVELS]
        if nearest and min(GDR_LEVELS.index(d) for d in nearest) > GDR_LEVELS.index(level):
            best = GDR_LEVELS[min(GDR_LEVELS.index(d) for d in nearest)]
            return r.finding(m.line, f"NCCL_NET_GDR_LEVEL={value} forbids GPUDirect RDMA: the node's nearest NIC is "
                                     f"{best} to its GPU", f"NCCL uses GPUDirect RDMA only up to {level}; the wiring "
                                     f"puts every NIC {best} or farther from the GPUs")
    return None


def allreduce_allows_nvls(value):
    """Whether an NCCL_ALGO value leaves NVLS to all_reduce, read as NCCL's tuning.cc parseList reads it:
    `;`-separated entries, the first without a prefix for every collective, the others `collective:list`
    (NCCL 2.24 on: `ring,tree;allreduce:nvls,ring`), a list's leading `^` excluding what it names, the last
    entry for all_reduce standing. `^Ring` keeps NVLS; `Ring` or `^NVLS` keeps NCCL off it."""
    allowed = True
    for entry in value.split(";"):
        prefix, _, listed = entry.rpartition(":")
        if prefix and prefix.strip().lower() != "allreduce":
            continue
        listed = listed.strip()
        excluded = listed.startswith("^")
        names = {name.strip().lower() for name in listed.lstrip("^").split(",")}
        allowed = ("nvls" not in names) if excluded else ("nvls" in names)
    return allowed


NVLS_CHANNELS = re.compile(r"\b(\d+) nvls channels\b")  # init.cc (2.19 on): `24 coll channels, ..., 16 nvls channels, ...`


@rule("algo-excludes-nvls", "WARN", "node",
      "`NCCL_ALGO set by environment to ...` (or NCCL_ALGO on the command line) whose all_reduce list leaves NVLS "
      "out (`Ring`, `^NVLS`, `allreduce:tree`; not `^Ring`) on GPUs that all sit on NVSwitches (NV18 every pair), or "
      "where NCCL's own `N nvls channels` (N above 0) says NVLS is there (without the topology)",
      "the setting keeps NCCL off NVLS (NVLink SHARP), the fastest all_reduce the wiring offers (about 480 against "
      "370 GB/s of the ring on 8 H100)",
      "unset NCCL_ALGO (NCCL picks NVLS where it is faster), or add NVLS to it",
      f"{ENV_DOCS}: NCCL_ALGO; NVIDIA/nccl-tests#212; NVIDIA/nccl#1455 (8 H100: RING 365-370 GB/s, NVLS 480); NCCL "
      "src/init.cc (its channel counts)")
def algo_excludes_nvls(r, c):
    for m in settings(c.log).get("NCCL_ALGO", [])[:1]:
        if allreduce_allows_nvls(m.value):
            continue
        if c.wiring is not None and c.wiring.nvswitch_with_nvls():
            why = "every GPU pair is NV18 on NVSwitches"
        elif (said := next((n for n in c.log.messages if (f := NVLS_CHANNELS.search(n.text)) and int(f.group(1))),
                           None)) is not None:
            why = f"NCCL set up NVLS itself (line {said.line}: {said.text.strip()})"
        else:
            continue
        return r.finding(m.line, f"NCCL_ALGO={m.value} keeps NCCL off NVLS on NVSwitch GPUs",
                         f"{why}, where NCCL's NVLS all_reduce is the fastest; this setting forbids it")
    return None


def _listed(value):
    """A device or interface list as NCCL reads NCCL_IB_HCA and NCCL_SOCKET_IFNAME: (excluded, exact,
    names): a leading `^` excludes, then a leading `=` asks exact names (`^=docker0`), else each name is
    a prefix; `:port` follows an HCA's name."""
    excluded = value.startswith("^")
    value = value[1:] if excluded else value
    exact = value.startswith("=")
    value = value[1:] if exact else value
    return excluded, exact, [item.split(":")[0] for item in value.split(",") if item.strip()]


def _matches(name, exact, shown):
    return [d for d in shown if d == name or (not exact and d.startswith(name))]


SOCKET_IFS = re.compile(r"^(?:NET/Socket ?: Using|Bootstrap ?: Using|NET : Using interface)\s+(.*)$")
OOB_IF = re.compile(r"; OOB ([\w.-]+):")
INTERFACE = re.compile(r"(?:\[\d+\])?([\w.-]+):[0-9a-fA-F.:%\w-]*<\d+>")


def _shown_devices(c):
    """The RDMA devices the log's NET/IB lists (every host's) and the node's wiring show."""
    shown = {d.split(":")[0] for msg in c.log.messages if (found := IB_LIST.search(msg.text))
             for d in BRACKETED.findall(found.group(1))}
    return shown | (set(c.wiring.nics) if c.wiring is not None else set())


def _shown_interfaces(log):
    """The IP interfaces NCCL's lines show it using: `NET/Socket : Using [0]eth0:...`, `Bootstrap :
    Using eth0:...`, NET/IB's `OOB ib0:...`."""
    shown = set()
    for m in log.messages:
        found = SOCKET_IFS.search(m.text)
        if found:
            shown |= set(INTERFACE.findall(found.group(1)))
        found = OOB_IF.search(m.text) if IB_LIST.search(m.text) else None
        if found:
            shown.add(found.group(1))
    return shown


@rule("setting-names-absent-device", "WARN", "network",
      "`NCCL_IB_HCA` (`mlx5_0:1,mlx5_1`, `=mlx5_0`, `^mlx5_bond_0`, `^=mlx5_8,^=mlx5_14`) naming a device that "
      "neither the log's `NET/IB : Using` lists nor the node's wiring has; `NCCL_SOCKET_IFNAME` (`eth`, `=eth0`, "
      "`ib0,eth0`) none of whose names is among the interfaces NCCL's `NET/Socket : Using`, `Bootstrap : Using` or "
      "`OOB` lines show it using (a list may name each host's own; an exclusion `^` is never shown)",
      "the setting names a device or an interface this node does not have: NCCL uses the others, or none and falls "
      "back (another device, TCP sockets); an exclusion that NCCL's list shows still in use (`^` or `=` repeated "
      "inside the list: NCCL reads `^=mlx5_14` as a name), or that names no device of the wiring's, excludes nothing",
      "name the node's devices (ibv_devices; ip -br link); NCCL matches a name as a prefix (mlx5 takes every mlx5_N, "
      "eth every ethN), `=` asks the exact name, `^` excludes; or unset it",
      f"{ENV_DOCS}: NCCL_IB_HCA, NCCL_SOCKET_IFNAME")
def setting_names_absent_device(r, c):
    out = []
    devices = _shown_devices(c)
    checks = (("NCCL_IB_HCA", devices, "RDMA devices",
               "the log's NET/IB list" + (" and nvidia-smi topo -m" if c.wiring is not None else "")),
              ("NCCL_SOCKET_IFNAME", _shown_interfaces(c.log), "interfaces NCCL uses",
               "NCCL's NET/Socket, Bootstrap and OOB lines"))
    for name, shown, what, where in checks:
        given = settings(c.log).get(name, [])[:1]
        if not given or not shown:
            continue
        setting = given[0]
        excluded, exact, names = _listed(setting.value)
        said = f"{', '.join(sorted(shown))} ({where})"
        if excluded:
            found = _excluded_in_use(name, setting, names, exact, shown, c.wiring, said)
            if found:
                out.append(r.finding(setting.line, *found))
            continue
        absent = [n for n in names if not _matches(n, exact, shown)]
        if not absent or (name == "NCCL_SOCKET_IFNAME" and len(absent) < len(names)):
            continue  # a list of interfaces names each host's own (eno1,eth0: NVIDIA/nccl#286): one present will do
        if name == "NCCL_SOCKET_IFNAME":
            why = (f"NCCL uses {said} instead: the setting did not reach NCCL's processes (not exported to them: "
                   "mpirun -x, srun --export, the container's environment) or another file overrides it")
        elif len(absent) == len(names):
            why = f"none of them is among the node's {what}: {said}; NCCL finds none it may use"
        else:
            why = f"{', '.join(absent)} is not among the node's {what}: {said}; NCCL uses the others only"
        out.append(r.finding(setting.line, f"{name}={setting.value} names {', '.join(absent)}, absent on this node",
                             why + _misplaced(name, absent)))
    return out


def _misplaced(name, said):
    """NVIDIA/nccl-tests#150: in '^=mlx5_8,^=mlx5_14' NCCL reads the second item as a name."""
    misplaced = [n for n in said if n[:1] in "^="]
    if not misplaced:
        return ""
    return f"; `^` and `=` go once, before the whole list ({name}=^=a,b): NCCL reads {misplaced[0]} as a name"


def _excluded_in_use(name, setting, names, exact, shown, wiring, said):
    """(what, why) where an exclusion does not exclude: a name NCCL still uses (its `^` or `=` repeated
    inside the list, NVIDIA/nccl-tests#150), or, with the node's wiring, a name no device has. NCCL
    never lists an excluded device or interface, so the log alone cannot show one absent."""
    in_use = [n for n in names if n[:1] in "^=" and _matches(n.lstrip("^="), exact, shown)]
    if in_use:
        meant = ", ".join(n.lstrip("^=") for n in in_use)
        return (f"{name}={setting.value} does not exclude {meant}: NCCL uses it",
                f"NCCL's list shows {meant} in use: {said}" + _misplaced(name, in_use))
    if name == "NCCL_IB_HCA" and wiring is not None and wiring.nics:
        absent = [n for n in names if not _matches(n.lstrip("^="), exact, set(wiring.nics))]
        if absent:
            return (f"{name}={setting.value} excludes {', '.join(absent)}, which this node does not have",
                    f"the exclusion excludes nothing (a misspelt name leaves the device meant in use); the node's "
                    f"RDMA devices (nvidia-smi topo -m): {', '.join(sorted(wiring.nics))}" + _misplaced(name, absent))
    return None


IB_NONE = re.compile(r"^NET/IB ?: No device found")
RDMA_NETWORK = re.compile(r"^Using network (?!Socket\b)\S")  # IB, or a plugin's (AWS Libfabric, ...)
# Settings that only mean something where NCCL is to use InfiniBand/RoCE: one set says the job expects it
# (NCCL_IB_DISABLE=0 is NCCL's default, so writing it out says as much)
ASKS_RDMA = {"NCCL_IB_DISABLE": lambda v: v.strip() == "0", "NCCL_IB_HCA": lambda v: bool(v.strip()),
             "NCCL_NET": lambda v: v.strip().upper() == "IB", "NCCL_IB_GID_INDEX": lambda v: bool(v.strip()),
             "NCCL_IB_CUDA_SUPPORT": lambda v: v.strip() not in ("", "0")}


@rule("rdma-asked-none-found", "WARN", "node",
      "a setting that asks for InfiniBand/RoCE (`NCCL_IB_DISABLE=0`, `NCCL_IB_HCA`, `NCCL_NET=IB`, `NCCL_IB_GID_INDEX`, "
      "`NCCL_IB_CUDA_SUPPORT=1`: on a command line, an export or NCCL's `set by environment` line) and NCCL's "
      "`NET/IB : No device found` on a host, with no RDMA network chosen and NCCL_IB_DISABLE not turned on",
      "the job expects RDMA, but NCCL's libibverbs sees no device on the host: its data between nodes goes over TCP "
      "sockets (NET/Socket), many times slower; a container not given the host's /dev/infiniband is the usual cause, "
      "else the HCA's kernel driver (mlx5_ib) or rdma-core missing on the host",
      "in a container, give it the RDMA devices (docker run --device=/dev/infiniband --cap-add=IPC_LOCK; srun "
      "--container-mounts=/dev/infiniband:/dev/infiniband; Kubernetes: an RDMA device plugin's resource); on the host, "
      "check `ibv_devices` lists the HCAs (modprobe mlx5_ib; apt install rdma-core ibverbs-providers)",
      f"{ENV_DOCS}: NCCL_IB_DISABLE, NCCL_IB_HCA; pytorch/pytorch#111424 (/dev/infiniband mounted into the NeMo "
      "container: NET/IB then found the devices)")
def rdma_asked_none_found(r, c):
    log = c.log
    none, _ = log.first(IB_NONE)
    if none is None or log.first(RDMA_NETWORK)[0] is not None:
        return None
    if first_setting(log, "NCCL_IB_DISABLE", turned_on):
        return None  # sockets were the job's choice (socket-fallback says so)
    named = [f"{name}={s.value} (line {s.line})" for name, meant in ASKS_RDMA.items()
             for s in settings(log).get(name, [])[:1] if meant(s.value)]
    if not named:
        return None
    hosts = sorted({m.host for m in log.messages if m.host and IB_NONE.match(m.text)})
    where = f" on {', '.join(hosts)}" if hosts else ""
    return r.finding(none.line, f"InfiniBand asked for ({'; '.join(named)}), but NCCL found no IB device{where}",
                     f"`{none.text.strip()}`: libibverbs sees no device{where}, so NCCL's inter-node data goes over "
                     "TCP sockets; in a container, most often because /dev/infiniband is not given to it")


TOPO_UNOPENED = re.compile(r"Could not open XML (topology|graph) file (\S+) : (.+?)\s*$")


@rule("setting-names-absent-file", "WARN", "node",
      "`Could not open XML topology file F : No such file or directory` (NCCL_TOPO_FILE; an INFO line from NCCL 2.19, "
      "a WARN before) or `Could not open XML graph file F : ...` (NCCL_GRAPH_FILE)",
      "the setting names a file NCCL could not open: for a topology file NCCL goes on and discovers the node itself "
      "(the file meant, a VM's true PCI layout, is not used); for a graph file NCCL stops",
      "give the path as the job's processes see it (inside the container), readable by the job's user; or unset the "
      "setting (NCCL_TOPO_FILE is for VMs whose PCI layout NCCL cannot see; NCCL_GRAPH_FILE only for experiments)",
      f"{ENV_DOCS}: NCCL_TOPO_FILE, NCCL_GRAPH_FILE; NCCL src/graph/xml.cc (ncclTopoGetXmlFromFile, "
      "ncclTopoGetXmlGraphFromFile)")
def setting_names_absent_file(r, c):
    m, found = c.log.first(TOPO_UNOPENED)
    if m is None:
        return None
    kind, file, reason = found.groups()
    setting = "NCCL_TOPO_FILE" if kind == "topology" else "NCCL_GRAPH_FILE"
    then = ("NCCL discovers the node itself instead" if kind == "topology"
            else "NCCL cannot load the graph it was asked to: the communicator fails")
    return r.finding(m.line, f"{setting} names {file}, which NCCL could not open{' on ' + m.host if m.host else ''}",
                     f"{reason}: {then}")


NET_NOT_FOUND = re.compile(r"Error: network (.*?) not found\.?|Failed to initialize any NET plugin")
NET_LOADED = re.compile(r"^(?:Using network (.+?)\s*$|NET/Plugin ?: Loaded net plugin (.+?) \(v\d+\))")


@rule("net-not-loaded", "FAIL", "any",
      "NCCL's `WARN Error: network X not found.` (before 2.23) or `WARN Failed to initialize any NET plugin` with "
      "NCCL_NET set",
      "NCCL_NET names a network NCCL did not load: a plugin not installed (libnccl-net-X.so not on the library path, "
      "NCCL_NET_PLUGIN), a misspelt name, or IB without a device; the communicator fails",
      "spell the network as NCCL names it (`IB`, `Socket`, a plugin's own name such as `AWS Libfabric`), put the "
      "plugin's library on LD_LIBRARY_PATH (or NCCL_NET_PLUGIN), or unset NCCL_NET and let NCCL choose",
      f"{ENV_DOCS}: NCCL_NET, NCCL_NET_PLUGIN; NCCL src/net.cc (2.12-2.22), src/plugin/net.cc")
def net_not_loaded(r, c):
    m, found = c.log.first(NET_NOT_FOUND, warn_only=True)
    forced = settings(c.log).get("NCCL_NET", [])[:1]
    if m is None or (not found.group(1) and not forced):
        return None
    asked = found.group(1) or forced[0].value
    loaded = sorted({f.group(1) or f.group(2) for x in c.log.messages if (f := NET_LOADED.search(x.text))})
    seen = f"; the log shows {', '.join(loaded)} loaded" if loaded else ""
    return r.finding(m.line, f"NCCL_NET={asked}: NCCL loaded no network of that name{' on ' + m.host if m.host else ''}",
                     f"NCCL_NET names a network NCCL did not load{seen}: a plugin not installed, a misspelt name, or "
                     "IB without a device")


def _nccl_version(log):
    """(version key, where it was read) of the one NCCL the log shows, as fixed_in_later_nccl reads it (NCCL's
    `NCCL version` lines, else PyTorch's error, else the paste's prose): where: "" for a line of NCCL's or PyTorch's,
    " (read from the prose at line N)" for prose; (None, "") where the log says none, or several that differ."""
    said = fixed_in_later_nccl.versions(log)
    if len({version for version, _ in said.values()}) != 1:
        return None, ""
    version, line = next(iter(said.values()))
    return version, (f" (read from the prose at line {line})" if fixed_in_later_nccl.from_prose(log, line) else "")


# Names people set for something NCCL has no setting for, with what they meant: the closest known name would mislead
# (NCCL_TIMEOUT=7200 is not NCCL_IB_TIMEOUT, InfiniBand's retransmission timeout exponent of 1 to 31:
# mlfoundations/open_clip#1087 exported NCCL_TIMEOUT=7200 and its ALLGATHER still timed out at PyTorch's 1,800,000 ms)
MEANT = {
    "NCCL_TIMEOUT": ("NCCL has no timeout setting: the collective timeout that fires is the framework's (PyTorch's "
                     "watchdog: `Watchdog caught collective operation timeout ... ran for N milliseconds`)",
                     "set it where the framework takes it: PyTorch's init_process_group(timeout=datetime.timedelta("
                     "seconds=N)) (accelerate: InitProcessGroupKwargs(timeout=...), DeepSpeed: "
                     "deepspeed.init_distributed(timeout=...)); NCCL_IB_TIMEOUT is InfiniBand's retransmission timeout "
                     "exponent (1-31), not this"),
}


@rule("unknown-setting", "WARN", "any",
      "an `NCCL_X=V` on a command line, an export or an env listing (or NCCL's `NCCL_X set by environment`) whose "
      "name is no parameter of NCCL's, of its network plugins', nccl-tests' or PyTorch's "
      "(suites/nccl-parameters.csv), or one the log's NCCL version does not read yet or any more",
      "NCCL ignores a name it does not read, silently: the job runs without the setting meant (NCCL_SOCKET_IFNAMES, "
      "NCCL_IB_HCAS, NCCL_TIMEOUT)",
      "spell the name as NCCL's documentation does (the closest known name is said), or drop it; a setting NCCL's "
      "version does not read needs that version",
      f"{ENV_DOCS}; NVIDIA/nccl src/ (NCCL_PARAM, ncclGetEnv) at every release tag, suites/nccl-parameters.csv")
def unknown_setting(r, c):
    known = parameters.known()
    read_by_nccl = {found.group(1) for m in c.log.messages if (found := SETTING.match(m.text))}
    version, where = _nccl_version(c.log)
    out = []
    for name, said in settings(c.log).items():
        if name in read_by_nccl:
            continue  # NCCL printed it: it read it, whatever the list says
        first = said[0]
        p = known.known(name)
        if p is None and name in MEANT:
            why, fix = MEANT[name]
            out.append(r.finding(first.line, f"{name} is not a setting NCCL knows: {why.split(':')[0]}",
                                 f"{name}={first.value} is no parameter of NCCL's: NCCL ignores it without a word; {why}",
                                 fix))
        elif p is None:
            close = difflib.get_close_matches(name, sorted(known.names), n=1, cutoff=0.8)
            hint = f": did you mean {close[0]}?" if close else ""
            out.append(r.finding(first.line, f"{name} is not a setting NCCL knows{hint}",
                                 f"{name}={first.value} is no parameter of NCCL's (nor of its plugins', nccl-tests' or "
                                 "PyTorch's): NCCL ignores it without a word, so the job runs without it",
                                 f"set {close[0]} instead" if close else None))
        elif p.owner == parameters.OWNER_NCCL and p.how == "documented only":
            out.append(r.finding(first.line, f"{name} is read by no NCCL release from 2.3.7 on",
                                 f"NCCL's documentation lists {name}, but no NCCL release from 2.3.7 on reads it: "
                                 "NCCL ignores it"))
        elif p.owner == parameters.OWNER_NCCL and version:
            introduced = parameters.version_key(p.first.replace("after ", ""))
            if introduced and (version < introduced or (p.first.startswith("after ") and version <= introduced)):
                out.append(r.finding(first.line, f"{name} is not read by NCCL {'.'.join(map(str, version))}{where}",
                                     f"NCCL reads {name} from {p.first} on: this NCCL ignores it"))
            dropped = parameters.version_key(p.last)
            if dropped and version > dropped:
                out.append(r.finding(first.line, f"{name} is no longer read by NCCL {'.'.join(map(str, version))}{where}",
                                     f"NCCL read {name} up to {p.last} and dropped it: this NCCL ignores it"))
    return out
