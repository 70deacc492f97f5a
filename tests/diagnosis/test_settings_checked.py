"""Each NCCL_* the log shows set, checked against what NCCL reads (suites/nccl-parameters.csv) and
against the devices, interfaces, files and networks the log shows (settings.py): unknown-setting,
setting-names-absent-device, setting-names-absent-file, net-not-loaded, topology-file. Real logs
where each fires and healthy real logs where each stays quiet (tests/data/nccl/ORIGINS.md)."""
import re
import subprocess

import pytest
from diagnosis_helpers import DATA, ROOT, diagnose, found, ids, parse, read_log
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import parameters

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"
HEALTHY = ("nccl-844-azure-socket-settings.log", "nccl-tests-166-two-hosts-named-ubuntu.log",
           "vllm-14025-init-start.log", "single-node-8gpu-socket-no-ib.log", "nccl-226-aws-64-hosts-socket.log",
           "nvls-8gpu-one-node-socket.log", "multinode-net.log", "ib-network-select.log")
SETTING_RULES = {"unknown-setting", "setting-names-absent-device", "setting-names-absent-file", "net-not-loaded",
                 "topology-file"}


def said(log, rule):
    return [f for f in diagnose(log) if f.id == rule]


def test_a_name_nccl_does_not_read_is_said_on_the_real_command_line_that_set_it():
    """NVIDIA/nccl#1008 (corpus, train): `NCCL_TOPOLOGY=IGNORE ... ./build/all_reduce_perf` to stop
    NCCL loading /opt/microsoft/ncv4/topo.xml, and NCCL loads it all the same: no NCCL release reads
    NCCL_TOPOLOGY. The file came from /etc/nccl.conf (the reporter found it there): topology-file
    reads NCCL's `Loading topology file` line, which no ENV line explains."""
    log = read_log(CORPUS / "nccl-1008.log")
    [unknown] = said(log, "unknown-setting")
    assert unknown.line == 1 and unknown.what == "NCCL_TOPOLOGY is not a setting NCCL knows"
    assert "NCCL ignores it without a word" in unknown.why
    [topology] = said(log, "topology-file")
    assert topology.what == "NCCL's topology comes from a file: /opt/microsoft/ncv4/topo.xml"
    assert "/etc/nccl.conf" in topology.why


@pytest.mark.parametrize("name", HEALTHY)
def test_healthy_real_logs_with_their_settings_say_nothing_of_them(name):
    """NCCL_SOCKET_IFNAME=eth0 with eth0 in use, NCCL_IB_PCI_RELAXED_ORDERING, NCCL_IB_DISABLE
    (NVIDIA/nccl#844), NCCL_COMM_BLOCKING, NCCL_CHECK_POINTERS, NCCL_DMABUF_ENABLE
    (NVIDIA/nccl-tests#166), vLLM's NCCL_IB_DISABLE and NCCL_SOCKET_IFNAME (vllm-project/vllm#14025)."""
    assert not {f.id for f in diagnose(read_log(DATA / name))} & SETTING_RULES


def test_a_misspelt_name_gets_the_closest_and_others_names_are_not_misspelt():
    said_ = found("$ NCCL_SOCKET_IFNAMES=eth0 NCCL_IB_HCAS=mlx5_0 torchrun --nproc_per_node=8 train.py\n")
    assert [(f.id, f.what) for f in said_] == [
        ("unknown-setting", "NCCL_SOCKET_IFNAMES is not a setting NCCL knows: did you mean NCCL_SOCKET_IFNAME?"),
        ("unknown-setting", "NCCL_IB_HCAS is not a setting NCCL knows: did you mean NCCL_IB_HCA?")]
    assert said_[0].fix == "set NCCL_SOCKET_IFNAME instead"
    # a plugin's, nccl-tests', PyTorch's and a CUDA image's own names (an env listing in the log)
    others = ("NCCL_VERSION=2.17.1-1\nNCCL_ASYNC_ERROR_HANDLING=1\nNCCL_TESTS_SPLIT_MASK=0x7\n"
              "NCCL_SHARP_DISABLE=1\nNCCL_FAST_SOCKET_ENABLE=1\nexport NCCL_BLOCKING_WAIT=1\n")
    assert found(others) == []


def test_a_name_the_logs_nccl_version_does_not_read_yet_or_any_more():
    version = "NCCL version 2.16.5+cuda11.8\n"
    [early] = found("export NCCL_NVLS_ENABLE=1\n" + version)
    assert early.what == "NCCL_NVLS_ENABLE is not read by NCCL 2.16.5" and "from 2.17.1 on" in early.why
    [late] = found("export NCCL_RINGS='0 1 2 3'\n" + version)
    assert late.what == "NCCL_RINGS is no longer read by NCCL 2.16.5" and "up to 2.4.8" in late.why
    [documented] = found("export NCCL_CHECKS_DISABLE=1\n" + version)
    assert documented.what == "NCCL_CHECKS_DISABLE is read by no NCCL release from 2.3.7 on"
    assert found("export NCCL_NVLS_ENABLE=1\nNCCL version 2.18.3+cuda12.2\n") == []
    # NCCL printing it read a name is proof enough, whatever the list says (a release newer than it)
    assert found("n:1:1 [0] NCCL INFO NCCL_FUTURE_KNOB set by environment to 1.\n") == []


def test_an_ib_exclusion_that_repeats_its_marks_leaves_the_device_in_use():
    """NVIDIA/nccl-tests#150: `NCCL_IB_HCA='^=mlx5_8,^=mlx5_14'` on the command line (as posted;
    sjeaugey: `^` and `=` once, `^=mlx5_8,mlx5_14`); NCCL reads the second item as a name, so
    mlx5_14 stays in NET/IB's list (the lines in NCCL 2.17's formats)."""
    log = read_log(DATA / "nccl-tests-150-hca-exclude-twice.log")
    assert ids(diagnose(log)) == ["setting-names-absent-device:WARN@1"]  # two hosts agreeing on all else
    [f] = said(log, "setting-names-absent-device")
    assert f.line == 1 and f.what == "NCCL_IB_HCA=^=mlx5_8,^=mlx5_14 does not exclude mlx5_14: NCCL uses it"
    assert "NCCL reads ^=mlx5_14 as a name" in f.why
    corrected = (DATA / "nccl-tests-150-hca-exclude-twice.log").read_text().replace(
        "^=mlx5_8,^=mlx5_14", "^=mlx5_8,mlx5_14").replace(" [12]mlx5_14:1/IB", "")
    assert not said(parse(corrected, "x"), "setting-names-absent-device")


def test_device_lists_in_their_forms_against_the_devices_shown(h100):
    ib = ("n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_10:1/IB ; OOB ib0:10.0.0.1<0>\n"
          "n:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n")
    setting = "n:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to {}\n"
    what = lambda value, wiring=None: [f.what for f in found(setting.format(value) + ib, wiring)  # noqa: E731
                                       if f.id == "setting-names-absent-device"]
    assert what("mlx5") == [] and what("mlx5_1") == []                      # prefixes: mlx5_1 takes mlx5_10 too
    assert what("=mlx5_1,mlx5_10") == []
    assert what("=mlx5_1:1,mlx5_9:1") == ["NCCL_IB_HCA==mlx5_1:1,mlx5_9:1 names mlx5_9, absent on this node"]
    assert what("=mlx5_9") == ["NCCL_IB_HCA==mlx5_9 names mlx5_9, absent on this node"]
    assert what("=mlx5_1") == [] and what("=mlx5") == ["NCCL_IB_HCA==mlx5 names mlx5, absent on this node"]
    # an exclusion: the log never lists what is excluded; the wiring tells a misspelt name
    assert what("^mlxl5_7") == []
    assert what("^mlxl5_7", h100) == ["NCCL_IB_HCA=^mlxl5_7 excludes mlxl5_7, which this node does not have"]
    assert what("^mlx5_7", h100) == []


def test_a_socket_interface_list_none_of_whose_names_nccl_uses():
    """NCCL's Using lines show the interfaces it chose: a setting none of whose names is among them
    did not reach NCCL (NCCL with a setting naming nothing fails, `no socket interface found`). A list
    naming each host's own interface (NVIDIA/nccl#286: `eno1,eth0`) is fine where one is in use."""
    lines = ("a:1:1 [0] NCCL INFO Bootstrap : Using eno1:10.0.0.1<0>\n"
             "a:1:1 [0] NCCL INFO NET/Socket : Using [0]eno1:10.0.0.1<0>\n"
             "b:2:2 [0] NCCL INFO Bootstrap : Using eno1:10.0.0.2<0>\n")  # two hosts: the network carries data
    assert found("$ NCCL_SOCKET_IFNAME=eno1,eth0 mpirun -np 2 ./a.out\n" + lines) == []
    assert found("$ NCCL_SOCKET_IFNAME==eno1 mpirun -np 2 ./a.out\n" + lines) == []
    assert found("$ NCCL_SOCKET_IFNAME=^docker,lo mpirun -np 2 ./a.out\n" + lines) == []
    [f] = found("$ NCCL_SOCKET_IFNAME=ib0 mpirun -np 2 ./a.out\n" + lines)
    assert (f.id, f.what) == ("setting-names-absent-device", "NCCL_SOCKET_IFNAME=ib0 names ib0, absent on this node")
    assert "did not reach NCCL's processes" in f.why


def test_a_topology_file_nccl_could_not_open():
    """NCCL's `Could not open XML topology file F : No such file or directory` (graph/xml.cc, a WARN
    in 2.6-2.18, an INFO from 2.19): NCCL goes on and discovers the node. Not topology-file's
    'the topology comes from a file': it does not."""
    log = read_log(DATA / "topo-file-not-opened.log")
    assert [f.id for f in diagnose(log)] == ["setting-names-absent-file"]
    [f] = said(log, "setting-names-absent-file")
    assert f.line == 6 and "NCCL_TOPO_FILE names /opt/microsoft/ndv4-topo.xml, which NCCL could not open" in f.what
    assert f.why.startswith("No such file or directory: NCCL discovers the node itself instead")
    info = ("n:1:2 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /topo.xml\n"
            "n:1:2 [0] NCCL INFO Could not open XML topology file /topo.xml : Permission denied\n")
    assert [x.id for x in found(info)] == ["setting-names-absent-file"]
    assert [x.id for x in found(info.splitlines(True)[0])] == ["topology-file"]


def test_the_ofi_plugins_own_topology_file_is_not_a_finding():
    """aws/aws-ofi-nccl#889 (lines as posted): the plugin sets NCCL_TOPO_FILE to the file it ships for
    the instance type it found; NCCL then says it is set. That file is meant for this machine."""
    log = ("ip-10-36-22-140:85:2505 [0] NCCL INFO NET/OFI Running on p4d.24xlarge platform, Setting NCCL_TOPO_FILE "
           "environment variable to /opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n"
           "ip-10-36-22-140:85:2505 [0] NCCL INFO NCCL_TOPO_FILE set by environment to "
           "/opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n")
    assert found(log) == []


def test_a_network_nccl_net_names_that_nccl_did_not_load():
    """`mpirun -x NCCL_NET=IB` on hosts without rdma-core: NCCL 2.18's `net.cc:285 NCCL WARN Error:
    network IB not found.` (its format), then the error chain and nccl-tests' failure."""
    log = read_log(DATA / "net-ib-not-found.log")
    findings = diagnose(log)
    assert [f.id for f in findings][:1] == ["net-not-loaded"]
    [f] = said(log, "net-not-loaded")
    assert f.verdict == "FAIL" and f.line == 9 and f.what.startswith("NCCL_NET=IB: NCCL loaded no network of that name")
    assert "Error: network IB not found." in f.what  # the error line quoted (never silent)
    newer = ("n:1:1 [0] NCCL INFO Using network Socket\n"
             "n:1:1 [0] plugin/net.cc:349 NCCL WARN Failed to initialize any NET plugin\n")
    assert [x.id for x in found("export NCCL_NET=AWS-Libfabric\n" + newer)][:1] == ["net-not-loaded"]
    assert "net-not-loaded" not in [x.id for x in found(newer)]  # no NCCL_NET: another cause


def test_the_parameter_list_is_read_and_refuses_bad_rows(tmp_path):
    known = parameters.read()
    assert {"NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_P2P_LEVEL", "NCCL_NVLS_ENABLE"} <= set(known.nccls())
    assert known.known("NCCL_NVLS_ENABLE").first == "2.17.1" and known.known("NCCL_RINGS").last == "2.4.8"
    assert known.known("OFI_NCCL_PROTOCOL").owner == "aws/aws-ofi-nccl"  # a prefix row
    assert known.known("NCCL_SOCKET_IFNAMES") is None
    header = "name,owner,first,last,how,source\n"
    for row, problem in (("NCCL_X,,,,,s\n", "NCCL_X has no owner or no source"),
                         ("nccl_x,NCCL,,,,s\n", "'nccl_x' is not an NCCL_* name"),
                         ("NCCL_X,NCCL,,,,s\nNCCL_X,NCCL,,,,s\n", "NCCL_X is listed twice")):
        file = tmp_path / "p.csv"
        file.write_text("# comment\n" + header + row)
        line = 4 if "twice" in problem else 3
        with pytest.raises(InputError, match=re.escape(f"p.csv:{line}: {problem}")):
            parameters.read(file)


def test_the_list_is_written_from_ncclS_release_tags(tmp_path):
    """parameters.py reads each release tag's src/: a name's first and last release."""
    repo = tmp_path / "nccl"
    (repo / "src").mkdir(parents=True)
    git = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("config", "user.email", "t@t"), git("config", "user.name", "t")
    (repo / "src" / "a.cc").write_text('NCCL_PARAM(Old, "OLD_KNOB", 0);\nconst char* e = ncclGetEnv("NCCL_KEPT");\n')
    git("add", "-A"), git("commit", "-qm", "a"), git("tag", "v2.3.7-1")
    (repo / "src" / "a.cc").write_text('NCCL_PARAM(New, "NEW_KNOB", 0);\nconst char* e = ncclGetEnv("NCCL_KEPT");\n')
    git("commit", "-qam", "b"), git("tag", "v2.10.3-1")
    rows = {r[0]: r[1:3] for r in parameters.collect_nccl(repo / ".git")}
    assert rows == {"NCCL_OLD_KNOB": ("", "2.3.7"), "NCCL_NEW_KNOB": ("2.10.3", ""), "NCCL_KEPT": ("", "")}


def test_a_cloud_plugins_own_settings_are_not_misspelt_nccl_ones():
    """The export block of a public A3 Mega job script as written (GPUDirect-TCPXO: NCCL_FASTRAK_*,
    NCCL_SHIMNET_*, NCCL_TUNER_CONFIG_PATH, NCCL_USE_SNAP beside NCCL's own): nothing unknown."""
    exports = (DATA / "a3-mega-tcpxo-exports.log").read_text()
    log = parse(exports, "a3.log")
    assert len(diagnose(log)) >= 1  # NCCL_NVLS_ENABLE=0 is read and said (nvls-unavailable)
    assert said(log, "unknown-setting") == []
    assert [f.what for f in said(parse(exports.replace("NCCL_USE_SNAP", "NCCL_USE_SNAPP"), "x"), "unknown-setting")] \
        == ["NCCL_USE_SNAPP is not a setting NCCL knows: did you mean NCCL_USE_SNAP?"]
