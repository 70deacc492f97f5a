"""What the fifth and sixth fresh sets (tests/data/nccl-fresh-2026-12-08 and -08-b, collected blind, measured
once before anything was written from them: bench/MEASUREMENTS.md, session 34) showed the diagnosis did not
read, each read over NCCL's (or the library's) own printf, not a thread's wording; and their healthy logs, where
each new reading stays quiet."""
from pathlib import Path

import pytest

from wirebench.diagnosis import diagnose, parse, read_log
from wirebench.importer.paste import Paste

ROOT = Path(__file__).resolve().parents[2]
FIFTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-08"
SIXTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-08-b"
HEALTHY = sorted(ROOT.glob("tests/data/nccl-fresh-*/healthy/*.log"))


def found(path):
    log = read_log(path)
    return {f.id: f for f in diagnose(log)}, log


def said_of(text):
    return {f.id: f for f in diagnose(parse(text, "job.log"))}


# -- NCCL's line quoted inline, between backticks, in a note's prose ---------------------------------------------

def test_an_nccl_line_quoted_inline_in_prose_is_read():
    # NVIDIA/nccl#733: the reporter's comment (config snippets in fences) quotes its one WARN line in a sentence
    said, log = found(SIXTH / "nccl-733.log")
    f = said["ib-completion-error"]
    assert f.line == 31 and "from 172.17.127.143<49577>: 12" in f.what and "task-646--1-mhpnk" in f.what
    assert "IBV_WC_RETRY_EXC_ERR" in f.why and "NVIDIA/nccl#733" in f.source
    assert [m.host for m in log.messages] == ["task-646--1-mhpnk"]


def test_an_inline_span_crossing_lines_gives_the_host_without_its_backtick():
    # aws/aws-ofi-nccl#156: the span opens before mpirun's tag and closes at the end of the next line
    _, log = found(SIXTH / "aws-ofi-nccl-156.log")
    assert [(m.host, m.pid, m.location) for m in log.messages] == [("nccl-tests-worker-1", "35", "ofi_process_cq:1039")]


@pytest.mark.parametrize("prose", [
    "we set `NCCL_DEBUG=INFO` and saw `NCCL WARN` lines",
    "the log says `NCCL INFO Bootstrap : Using eth0` then nothing",
    "the `node1:123` host and `[0] NCCL WARN` text",
])
def test_prose_naming_nccls_words_between_backticks_is_no_line_of_nccls(prose):
    note = f"My job hangs.\n{prose}\n```\n$ ./all_reduce_perf -g 1\n```\n"
    assert Paste.of(note).nccl == []


def test_an_inline_quote_inside_a_code_block_is_left_as_the_block_has_it():
    note = "Log:\n```\nnode1:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\necho `date`\n```\n"
    assert [line.text for line in Paste.of(note).nccl] == ["node1:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"]


# -- NCCL's last WARN as XLA quotes it ------------------------------------------------------------------------------

def test_nccls_last_warn_quoted_by_xla_is_read_as_the_warn_it_is():
    # marin-community/marin#7018: JAX's `ncclCommInitRankConfig(...) failed: invalid usage ... Last NCCL
    # warning(error): 'Bootstrap : no socket interface found'` (the line wrapped after `failed:`)
    said, log = found(FIFTH / "marin-7018.log")
    assert [(m.line, m.warn, m.text) for m in log.messages] == [(3, True, "Bootstrap : no socket interface found")]
    f = said["bootstrap-interface"]
    assert f.verdict == "FAIL" and f.line == 3 and "invalid usage" in f.what and "NCCL_SOCKET_IFNAME" in f.fix
    assert set(said) == {"bootstrap-interface"}, said  # the error line is the rule's, not a generic finding too


def test_xlas_own_wording_of_the_last_warn_is_read_too():
    # ToStatus (xla/service/gpu/runtime/nccl_api.cc): `%s:%d: NCCL operation %s failed: %s. Last NCCL warning(error)
    # log entry (may be unrelated) '%s'.`
    said = said_of("E0101 00:00:00.000 1 nccl_api.cc:120] nccl_api.cc:120: NCCL operation ncclCommInitRank(&comm, n, "
                   "id, r) failed: invalid usage. Last NCCL warning(error) log entry (may be unrelated) 'Bootstrap : no "
                   "socket interface found'.\n")
    assert "bootstrap-interface" in said, said
    # an XLA error whose last WARN is empty (none printed) quotes nothing of NCCL's: the program's error is said
    said = said_of("NCCL operation ncclAllReduce(a, b) failed: unhandled system error. Last NCCL warning(error) log "
                   "entry (may be unrelated) ''.\n")
    assert "bootstrap-interface" not in said and said, said


# -- a link-local address first, across hosts ----------------------------------------------------------------------

def test_a_link_local_address_first_across_hosts_is_a_warn():
    # NVIDIA/nccl#529: both processes of the first host list ip6tnl0's fe80:: first; the paste ends in the second
    # host's prefix (`NvYt-ae683c69ce53-...:84:206`)
    said, log = found(FIFTH / "nccl-529.log")
    assert log.hosts() == ["NvYt-ae683c69ce53-1bdf2bc9-79ce82ee-3fe03e8-c2959af0",
                           "NvYt-dcf441d17e21-1bdf2bc9-79ce82ee-3fe03e8-c2959af0"]
    f = said["address-link-local"]
    assert f.verdict == "WARN" and f.line == 3 and "ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0" in f.what
    assert "NCCL_SOCKET_IFNAME" in f.fix and "NVIDIA/nccl#529" in f.source


def test_a_link_local_address_is_quiet_on_one_host_and_where_the_bootstrap_has_a_routable_one_first():
    text = (FIFTH / "nccl-529.log").read_text()
    one_host = text[:text.rstrip("\n").rindex("\n") + 1]  # without the second host's cut prefix: two processes of one host
    assert "address-link-local" not in said_of(one_host)
    listed = "[0]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0> [1]veth0:2a02:6b8:fc1d:3606:0:4457:edef:600a<0>"
    routable = "[0]veth0:2a02:6b8:fc1d:3606:0:4457:edef:600a<0>"
    # the bootstrap uses its first interface only: a link-local one after a routable one is never used; NCCL's socket
    # transport uses each it lists (Oneflow-Inc/libai#415: a veth's fe80:: second in NET/Socket's list)
    bootstrap_only = "".join(line.replace(listed, routable + " [1]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0>")
                             if "Bootstrap" in line else line.replace(listed, routable)
                             for line in text.splitlines(keepends=True))
    assert bootstrap_only != text and "address-link-local" not in said_of(bootstrap_only)
    socket_second = text.replace(listed, routable + " [1]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0>")
    assert "among NCCL's socket devices" in said_of(socket_second)["address-link-local"].what
    # the bootstrap on a routable address, NCCL's socket devices listing the link-local one first: the socket
    # transport's first device is still some channels' (the head of NET/Socket's list was skipped before)
    socket_first = "".join(line.replace(listed, routable) if "Bootstrap" in line else line
                           for line in text.splitlines(keepends=True))
    f = said_of(socket_first)["address-link-local"]
    assert "lists ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0" in f.what and "among NCCL's socket devices" in f.what


def test_an_ipv4_link_local_address_across_two_hosts_is_the_same_warn():
    said = said_of("a1:1:1 [0] NCCL INFO Bootstrap : Using eth1:169.254.10.2<0>\n"
                   "b2:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n")
    assert "a1 uses eth1:169.254.10.2 first" in said["address-link-local"].what
    assert "address-link-local" not in said_of("a1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                                               "b2:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n")


def test_only_a_last_line_that_is_nccls_prefix_alone_names_a_host():
    log = parse("n1:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nn2:84:206", "job.log")
    assert log.hosts() == ["n1", "n2"]
    for last in ("12:34:56", "n2:84:206 and more", "see node n2"):
        assert parse(f"n1:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n{last}", "job.log").hosts() == ["n1"]


# -- a dial to Docker's default bridge from another host ---------------------------------------------------------

def test_a_dial_to_dockers_default_bridge_from_another_node_is_named():
    # OpenRLHF/OpenRLHF#265: a vLLM worker on the node at 10.0.1.75 (Ray's prefix) timed out connecting to
    # (172.17.0.2, 44737): the other node's container address on docker0's subnet
    said, log = found(SIXTH / "OpenRLHF-265.log")
    assert log.origins[1] == "10.0.1.75" and log.origins[12] == "10.0.1.75"
    f = said["docker-bridge-address-dialled"]
    assert f.verdict == "FAIL" and f.line == 1 and "172.17.0.2" in f.what and "the dialling node is 10.0.1.75" in f.what
    assert "looks like Docker's default bridge" in f.what and "docker0" in f.fix and "OpenRLHF/OpenRLHF#265" in f.source


C10D = "[E socket.cpp:922] [c10d] The client socket has timed out after 1800s while trying to connect to (172.17.0.2, 44737)."


@pytest.mark.parametrize("text", [
    C10D + "\n",  # nothing shows where the hosts are
    f"(RayWorkerVllm pid=1, ip=172.17.0.9) {C10D}\n",  # the dialling node is on 172.17 itself: a network of that range
    # a Kubernetes pod network in 172.17.0.0/16 (NVIDIA/nccl#733's peers): the hosts' own addresses are there too
    "p1:1:1 [0] NCCL INFO Bootstrap : Using eth0:172.17.127.140<0>\np1:1:1 [0] misc/socket.cc:484 NCCL WARN "
    "Connect to 172.17.127.143<49577> failed : Connection timed out\n",
    # the target is one of the hosts the log shows
    "a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nb:1:1 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.2<0>\n"
    "a:1:1 [0] misc/socket.cc:484 NCCL WARN Connect to 172.17.0.2<3000> failed : Connection timed out\n",
])
def test_a_dial_to_172_17_is_not_called_dockers_bridge_without_the_hosts_shown_elsewhere(text):
    assert "docker-bridge-address-dialled" not in said_of(text)


def test_nccls_own_failed_connect_to_the_bridge_with_the_hosts_on_10_is_named():
    said = said_of("a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                   "a:1:1 [0] misc/socket.cc:484 NCCL WARN Connect to 172.17.0.2<3000> failed : Connection timed out\n")
    assert "the hosts' own addresses are 10.0.0.1" in said["docker-bridge-address-dialled"].what


# -- aws-ofi-nccl's failed request (EFA) ------------------------------------------------------------------------------

def test_an_efa_request_completed_with_error_names_the_security_group_and_fi_pingpong():
    # aws/aws-ofi-nccl#156: ofi_process_cq's WARN (RC: 20) and libfabric's rxr_cq_write_tx_error; the security group
    said, _ = found(SIXTH / "aws-ofi-nccl-156.log")
    f = said["ofi-request-completed-with-error"]
    assert f.verdict == "FAIL" and f.line == 3 and "(RC 20)" in f.what and "nccl-tests-worker-1:35:89" in f.what
    assert "security group" in f.why and "fi_pingpong -p efa" in f.fix and "aws/aws-ofi-nccl#156" in f.source
    assert "warn-not-in-catalogue" not in said and "error-not-in-catalogue" not in said


# -- the healthy logs of every fresh set ---------------------------------------------------------------------------

# the findings the healthy logs had before these readings (session 34): aws-ofi-nccl#64's copy ends after the header
# at a first row cut to its size (nccl-tests-stopped-before-first-size); nothing else
KNOWN = {"aws-ofi-nccl-64.log": {"nccl-tests-stopped-before-first-size"}}
NEW = {"ib-completion-error", "bootstrap-interface", "address-link-local", "docker-bridge-address-dialled",
       "ofi-request-completed-with-error"}


@pytest.mark.parametrize("path", HEALTHY, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_no_new_reading_fires_on_a_healthy_log(path):
    from wirebench.contracts.input_files import InputError
    try:
        said, _ = found(path)
    except InputError:
        return  # nothing of NCCL's to read (a launcher's warning alone): refused before, refused now
    assert not (set(said) & NEW), (path.name, {k: said[k].what for k in set(said) & NEW})
