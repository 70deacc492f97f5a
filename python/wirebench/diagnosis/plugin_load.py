"""A plugin of NCCL's that failed to load: NCCL prints the loader's own words (dlerror) when its network
plugin (libnccl-net*.so: aws-ofi-nccl, HPC-X's SHARP plugin), its tuner or its profiler plugin (2.19 on)
cannot be opened, then goes on with its internal implementation (often sockets, where the job meant EFA or
InfiniBand). NCCL's line changed over the releases (src/init.cc, src/net.cc, src/misc/tuner.cc,
src/plugin/plugin_open.cc at the release tags):
  2.4-2.17  `NET/Plugin : Plugin load returned %d : %s.`            2.18  `NET/Plugin : Plugin load (%s) returned %d : %s`
  2.19-2.20 `NET/Plugin : dlerror=%s No plugin found (%s), using internal implementation`, and the tuner's
            `Tuner: plugin load '%s' returned error (%d : %s), using default tuner instead.`
  2.21-2.22 `NET/Plugin: Plugin load returned %d : %s when loading %s` (and `... : when loading %s`,
            `Most recent plugin load returned %d : %s. All attempts to load '%s' also failed.`), TUNER/ alike
  2.23 on   `NET/Plugin: <dlerror>` (TUNER/, PROFILER/), and `X/Plugin: Could not find: <names>.` for absent files
and a plugin NCCL opened but could not use says `Failed to find ncclNetPlugin symbol (>= v5)...` (2.19-2.26;
`(v4 or v5)` in 2.18), `Failed to find ncclNetPlugin_vN symbol.` with no `Loaded net plugin` after it.
An absent plugin file is NCCL's ordinary case on every host without one (NVIDIA/nccl#1231, #259: harmless);
it is a finding only where the log shows the job meant to use a plugin."""
import re
from dataclasses import dataclass

from . import errors
from .registry import rule
from .log_facts import first_setting
from .sources import ENV_DOCS

PLUGIN_LINE = re.compile(r"^(?:(NET|TUNER|PROFILER|ENV)/Plugin ?:|(Tuner):)\s*(.*)$")
# the loader's classes (glibc's dlerror texts), each searched in the line's text after its prefix
VERSION_NOT_FOUND = re.compile(r"([^\s:'`()=]+): version `([^']+)' not found \(required by ([^)\s]+)\)")
UNDEFINED = re.compile(r"([^\s:'`()=]+): undefined symbol: ([^\s,)]+)")
ELF_CLASS = re.compile(r"([^\s:'`()=]+): wrong ELF class: (ELFCLASS\d+)")
MISSING = re.compile(r"([^\s:'`()=]+): cannot open shared object file: No such file or directory")
# the plugin file NCCL tried, where the line names it
TRIED = re.compile(r"No plugin found \(([^)]+)\)|Plugin load \(([^)]+)\)|when loading (\S+?)\.?$|"
                   r"plugin load '([^']+)'|attempts to load '([^']+)'")
PLUGIN_FILE = re.compile(r"\b(?:libnccl|librccl)-(?:net|tuner|profiler|env)[\w.-]*\.so\b")
# an absent plugin file: 2.23 on (`Could not find: names.`), 2.4-2.17 and 2.21 (`No plugin found (name)`), the 2.19 tuner
ABSENT = re.compile(r"^Could not find: ?(.+?)\.(?: Using internal| ?$)|^no plugin found '([^']+)'|^No plugin found \(([^)]+)\)")
# a plugin opened whose API this NCCL does not take: the final line (2.18-2.26), or NCCL 2.4-2.17's and
# 2.27's per-version line where no `Loaded net plugin` follows; CollNet's symbols are left out: a network
# plugin without CollNet (aws-ofi-nccl) prints them on every healthy run
SYMBOL_FINAL = re.compile(r"^Failed to find (ncclNetPlugin) symbol \((?:>= v5|v4 or v5)\)|"
                          r"^Failed to find (ncclTunerPlugin_v\d+) symbol, using internal tuner|"
                          r"^failed to find (ncclTunerPlugin\w*) in plugin \(([^)]*)\)|"
                          r"^failed to find (ncclProfiler\w*)\.")
SYMBOL_STEP = re.compile(r"^Failed to find (ncclNetPlugin_v\d+) symbol\.")
NEEDED = re.compile(r"Error: network .* not found|Failed to initialize any NET plugin")
LOADED = re.compile(r"^(?:NET/Plugin ?: ?Loaded net plugin|Successfully loaded external plugin|Loaded net plugin)")
WENT_ON = re.compile(r"^(?:Using network |NET/IB ?: Using|NET/Socket ?: Using|NET/IB ?: No device found)")
# the files NCCL looks for on every run, and RCCL's names for them (its hipified source renames libnccl-* librccl-*:
# `PROFILER/Plugin: Could not find: librccl-profiler.so.` on a healthy MI355X run, Ahalperin/amd-dev's debug log)
DEFAULT_NAMES = ("libnccl-net.so", "librccl-net.so", "libnccl-tuner.so", "librccl-tuner.so", "libnccl-profiler.so",
                 "librccl-profiler.so", "libnccl-env.so", "librccl-env.so")
# what says the job meant to use a plugin: its settings and aws-ofi-nccl's, HPC-X's or EFA's words
SETTING_OF = {"network": "NCCL_NET_PLUGIN", "tuner": "NCCL_TUNER_PLUGIN", "profiler": "NCCL_PROFILER_PLUGIN",
              "environment": "NCCL_ENV_PLUGIN"}
MEANT_TEXT = re.compile(r"\bNCCL_NET_PLUGIN\"?\s*[=:]\s*\"?(?!none\b)[\w./]|\bFI_PROVIDER\"?\s*[=:]\s*\"?efa|"
                        r"\bFI_EFA_\w+\"?\s*[=:]|LD_PRELOAD\"?\s*[=:]\s*\"?\S*libnccl-net|aws-ofi-nccl|"
                        r"/opt/amazon/(?:efa|ofi-nccl)|nccl_rdma_sharp_plugin|\bNCCL_COLLNET_ENABLE\"?\s*[=:]\s*\"?1", re.I)
# NCCL's lines of a plugin meant: aws-ofi-nccl's, HPC-X SHARP's (not NVLink SHARP, which is NVLS)
MEANT_MESSAGE = re.compile(r"^NET/OFI |Plugin name set by env|sharp_plugin|SHARP coll|nccl_rdma_sharp_plugin")
# a symbol version's prefix: the library that defines it
PREFIXES = (("FABRIC_", "libfabric"), ("GLIBCXX_", "libstdc++"), ("CXXABI_", "libstdc++"), ("GLIBC_", "glibc"),
            ("IBVERBS_", "libibverbs"), ("MLX5_", "libmlx5"), ("RDMACM_", "librdmacm"), ("NCCL_", "NCCL (libnccl)"),
            ("libcudart", "the CUDA runtime (libcudart)"), ("CUDA", "CUDA"), ("OPENSSL_", "OpenSSL"),
            ("HWLOC_", "hwloc"), ("GCC_", "libgcc"))
KINDS = {"NET": "network", "TUNER": "tuner", "Tuner": "tuner", "PROFILER": "profiler", "ENV": "environment"}
SOURCE = ("NCCL src/init.cc, src/net.cc, src/misc/tuner.cc, src/plugin/plugin_open.cc (2.4-2.30: the plugin's dlopen "
          f"and dlerror); {ENV_DOCS}: NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_PROFILER_PLUGIN; "
          "awslabs/awsome-distributed-ai#292 (aws-ofi-nccl 1.9.0 needs a newer Libfabric than the EFA install's: "
          "version `FABRIC_1.7' not found; fixed by aws-ofi-nccl 1.9.1); NVIDIA/nccl#1292 (ncclNetPlugin symbols "
          "v4 and lower are not supported); NVIDIA/nccl#1231 (an absent libnccl-net.so is harmless)")


@dataclass
class Failure:
    message: object   # log_reader.Message
    kind: str         # network, tuner, profiler, environment
    plugin: str       # the plugin file, where the line names it
    cls: str          # version, undefined, elf, missing, absent, api
    what: str
    why: str
    fix: str
    library: str = ""  # the library a version class names (libfabric)


def library_of(version, file):
    for prefix, library in PREFIXES:
        if version.startswith(prefix):
            return library
    return file


def _plugin_named(text, kind):
    found = TRIED.search(text)
    if found:
        return next(g for g in found.groups() if g)
    named = PLUGIN_FILE.search(text)
    return named.group(0) if named else f"the {kind} plugin"


def _classed(m, kind, text):
    """The Failure a plugin line's loader text says, or None where it says none of the classes."""
    plugin = _plugin_named(text, kind)
    found = VERSION_NOT_FOUND.search(text)
    if found:
        loaded, version, needing = found.groups()
        library = library_of(version, loaded)
        return Failure(m, kind, plugin, "version",
                       f"NCCL's {kind} plugin ({plugin}) did not load: {loaded} has no symbol version {version}, "
                       f"which {needing} needs",
                       f"{needing} was built against a newer {library} than the one loaded ({loaded}): the loaded "
                       f"{library} is too old for it",
                       f"install a {library} at least as new as the one {needing} was built against (on the host and in "
                       f"the container alike), or use a build of the plugin made for this {library} (check which file "
                       f"is loaded: ldd {needing})", library)
    found = UNDEFINED.search(text)
    if found:
        file, symbol = found.groups()
        return Failure(m, kind, plugin, "undefined",
                       f"NCCL's {kind} plugin ({plugin}) did not load: {file} needs the symbol {symbol}, which no "
                       f"loaded library defines",
                       f"{file} was built against another version of the library that defines {symbol} (NCCL, CUDA, "
                       "libfabric, libibverbs) than the one loaded",
                       f"rebuild the plugin against the libraries the job loads, or load the ones it was built with "
                       f"(ldd -r {file} lists what is undefined)")
    found = ELF_CLASS.search(text)
    if found:
        file, elf = found.groups()
        return Failure(m, kind, plugin, "elf",
                       f"NCCL's {kind} plugin ({plugin}) did not load: {file} is {elf}, not this process's class",
                       f"{file} is a {'32' if elf.endswith('32') else '64'}-bit library in a process of the other class",
                       f"put the 64-bit build of {file} first on the library path (file {file} says its class)")
    found = MISSING.search(text)
    if found:
        file = found.group(1)
        if file.rsplit("/", 1)[-1] == plugin.rsplit("/", 1)[-1] or PLUGIN_FILE.fullmatch(file.rsplit("/", 1)[-1]):
            return Failure(m, kind, file, "absent",
                           f"NCCL found no {kind} plugin file {file}, though the job meant to use one",
                           f"{file} is not on the library path of this process (LD_LIBRARY_PATH, the container's "
                           "image)",
                           f"put the plugin's directory on LD_LIBRARY_PATH (or give its full path in "
                           f"NCCL_{'NET' if kind == 'network' else kind.upper()}_PLUGIN) on every node")
        return Failure(m, kind, plugin, "missing",
                       f"NCCL's {kind} plugin ({plugin}) did not load: a library it needs, {file}, is not found",
                       f"the plugin is installed but {file}, which it links against, is not on the library path "
                       "of this process",
                       f"put the directory holding {file} on LD_LIBRARY_PATH (or install it) on every node; "
                       f"ldd on the plugin lists what is not found")
    return None


def _meant(log, kind):
    """The line that shows the job meant to use a plugin of `kind`, or None: its setting; for the network
    plugin also EFA's, aws-ofi-nccl's and HPC-X SHARP's settings and lines, NCCL_COLLNET_ENABLE=1."""
    name = SETTING_OF.get(kind)
    found = name and first_setting(log, name, lambda v: v.strip().lower() not in ("", "none"))
    if found:
        return found.line
    if kind != "network":
        return None  # NCCL looks for a tuner and a profiler on every run (and in the network plugin's file)
    collnet = first_setting(log, "NCCL_COLLNET_ENABLE", lambda v: v.strip() == "1")
    if collnet:
        return collnet.line
    for m in log.messages:
        if MEANT_MESSAGE.search(m.said):
            return m.line
    for o in log.others:
        if MEANT_TEXT.search(o.text):
            return o.line
    return None


def failures(log):
    """Every plugin-load failure the log's NCCL lines show, one per process and kind, in the log's order."""
    out, seen = [], set()
    meant = {}
    processes = {}
    for m in log.messages:
        processes.setdefault(m.rank, []).append(m)
    for m in log.messages:
        found = PLUGIN_LINE.match(m.text)
        text = found.group(3) if found else m.text
        kind = KINDS[(found.group(1) or found.group(2))] if found else "network"
        failure = None
        if found:
            failure = _classed(m, kind, text)
            if failure is None:
                absent = ABSENT.match(text)
                if absent:
                    names = next(g for g in absent.groups() if g).split()
                    failure = Failure(m, kind, names[0], "absent",
                                      f"NCCL found no {kind} plugin file ({', '.join(names)}), though the job meant "
                                      "to use one",
                                      (f"neither {' nor '.join(names)} is" if len(names) > 1 else f"{names[0]} is not")
                                      + " on the library path of this process (LD_LIBRARY_PATH, the container's image)",
                                      "put the plugin's directory on LD_LIBRARY_PATH (or give its full path in the "
                                      "NCCL_*_PLUGIN setting) on every node")
        symbol = SYMBOL_FINAL.search(text)
        if failure is None and symbol is None and found is None:
            symbol = SYMBOL_FINAL.search(m.text)
        step = SYMBOL_STEP.search(text)
        if failure is None and (symbol or step):
            later = [o for o in processes.get(m.rank, []) if o.line > m.line] if m.rank else \
                [o for o in log.messages if o.line > m.line]
            if step and not symbol and (any(LOADED.search(o.text) for o in later)
                                         or not any(WENT_ON.search(o.text) for o in later)):
                continue  # NCCL goes on to an older version's symbol, or the excerpt ends before it says
            wanted = next(g for g in (symbol or step).groups() if g)
            kind = "tuner" if "Tuner" in wanted else "profiler" if "Profiler" in wanted else "network"
            if kind != "network" and not _meant(log, kind):
                continue  # NCCL also looks for a tuner in the network plugin's file, which rarely has one
            failure = Failure(m, kind, f"the {kind} plugin", "api",
                              f"NCCL opened its {kind} plugin but found no {wanted} symbol of an interface it takes",
                              f"the plugin implements an API version this NCCL does not take ({'v4 or lower' if '>= v5' in text else 'another one'}): "
                              "built for an older (or newer) NCCL",
                              "use a build of the plugin made for this NCCL's release (the plugin's release notes name "
                              "the NCCL versions it supports), or the NCCL it was built for")
        if failure is None:
            continue
        if failure.cls == "absent":
            if failure.plugin.rsplit("/", 1)[-1] not in DEFAULT_NAMES:
                meant_here = m.line  # a name of the user's: NCCL_*_PLUGIN was set
            else:
                if failure.kind not in meant:
                    meant[failure.kind] = _meant(log, failure.kind)
                meant_here = meant[failure.kind]
            if not meant_here:
                continue  # NCCL's ordinary line on every host without a plugin (NVIDIA/nccl#1231)
            failure.why += f" (line {meant_here} shows the job meant to use one)"
        key = (m.rank, failure.kind)
        if key in seen:
            continue  # one finding per process and kind: the line repeats on every rank
        seen.add(key)
        out.append(failure)
    return out


def _findings(r, c, keep):
    """One finding per kind of plugin and class of failure, at its first line; the other processes counted."""
    groups = {}
    for failure in failures(c.log):
        if keep(failure):
            groups.setdefault((failure.kind, failure.cls, failure.library), []).append(failure)
    found, errs = [], None
    for same in groups.values():
        failure, m = same[0], same[0].message
        where = f" on {m.host}" if m.host else ""
        # libfabric-too-old's own fix (the EFA installer, aws-ofi-nccl's builds) says more than the generic one
        fix = None if failure.library.startswith("libfabric") else failure.fix
        finding = r.finding(m.line, failure.what + where + f": \"{m.raw.strip()}\"", failure.why, fix)
        if len(same) > 1:
            finding.what += f" (and {len(same) - 1} other process(es) the same)"
        errs = errors.find(c.log) if errs is None else errs
        # the job failed after it: an error whose class NCCL (or the program) said, or NCCL saying it needed a network
        after = next((e for e in errs if e.line > m.line and (e.classed or NEEDED.search(e.quote))), None)
        if after is not None:
            finding.verdict = "FAIL"
            finding.why += f"; the job then failed (line {after.line})"
        else:
            finding.why += "; NCCL went on with its internal implementation"
        if failure.cls == "absent":
            finding.gives_way = True  # plugin-given-as-path-not-loaded (the catalogue) reads the same line more exactly
        found.append(finding)
    return found


@rule("plugin-not-loaded", "WARN", "any",
      "NCCL's plugin-load line with the loader's words (`NET/Plugin : dlerror=... No plugin found (...)`, `Plugin load "
      "(...) returned N : ...`, `Plugin load returned N : ... when loading ...`, `NET/Plugin: <dlerror>`, the TUNER/ and "
      "PROFILER/ lines, `Tuner: plugin load '...' returned error`): `version `X' not found (required by Y)`, `undefined "
      "symbol: S`, `wrong ELF class`, a library it needs `cannot open shared object file`; `Failed to find ncclNetPlugin "
      "symbol (>= v5)` (no interface this NCCL takes); an absent plugin file (`No such file`, `Could not find:`) only "
      "where the log shows the job meant to use one (NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, EFA's or aws-ofi-nccl's "
      "settings and lines, NCCL_COLLNET_ENABLE=1)",
      "NCCL runs without the plugin, on its internal implementation: a job meant for EFA or the SHARP plugin moves its "
      "data over sockets or plain IB, far slower, or fails later; FAIL where the log shows the job then failed. Scope "
      "any: the node's plugin install is broken whatever this job used (a one-line excerpt shows no hosts)",
      "make the loader's complaint go: the library it names at the version it needs, on LD_LIBRARY_PATH on every node",
      SOURCE)
def plugin_not_loaded(r, c):
    return _findings(r, c, lambda f: not f.library.startswith("libfabric"))


@rule("libfabric-too-old", "WARN", "any",
      "NCCL's plugin-load line with the loader's `version `FABRIC_x.y' not found (required by .../libnccl-net.so)` "
      "(`NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found ...`)",
      "the OFI network plugin (aws-ofi-nccl) was built against a newer Libfabric than the one loaded (an EFA "
      "installer's older Libfabric): it does not load and NCCL runs on its internal network, not EFA",
      "upgrade the EFA installer (its Libfabric) on the host and in the container, or install the aws-ofi-nccl build "
      "made for the installed Libfabric (fi_info --version says it); awsome-distributed-ai#292: aws-ofi-nccl 1.9.1 or "
      "1.7.4 instead of conda's 1.9.0",
      SOURCE)
def libfabric_too_old(r, c):
    return _findings(r, c, lambda f: f.library.startswith("libfabric"))
