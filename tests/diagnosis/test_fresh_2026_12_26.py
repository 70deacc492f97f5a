"""Session 38's later blind sets (tests/data/nccl-fresh-2026-12-26, -26-b, -27: measured once before anything was
written from them, bench/MEASUREMENTS.md) and what was written from their misses: a link-local socket device after a
routable one, the ranks' open-file limit, a communicator another NCCL made."""
from pathlib import Path

from diagnosis_helpers import found
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
LIBAI = DATA / "nccl-fresh-2026-12-26-b" / "libai-415.log"


def test_a_veths_link_local_address_second_among_the_socket_devices_is_said():
    """Oneflow-Inc/libai#415: `NET/Socket : Using [0]bond0:172.27.231.79<0> [1]veth8739016:fe80::...%veth8739016<0>` on
    a job across nodes that failed until NCCL_SOCKET_IFNAME=bond0. The paste shows one host (its two processes): said as
    not a finding, with its WARN where the job crosses hosts; with a second host's line, the WARN."""
    log = read_log(LIBAI)
    assert "address-link-local" not in [f.id for f in diagnose(log)]
    assert any(w.startswith("address-link-local: m5-autorl-test01 lists veth8739016:fe80::5804:edff:fe5b:6570"
                            "%veth8739016, a link-local address, among NCCL's socket devices")
               for _, _, w in log.explained)
    second = LIBAI.read_text() + "m5-autorl-test02:5:5 [0] NCCL INFO Bootstrap : Using bond0:172.27.231.80<0>\n"
    said = [f for f in found(second) if f.id == "address-link-local"]
    assert [f.verdict for f in said] == ["WARN"] and "veth8739016" in said[0].what
    # the routable list alone is quiet
    assert "address-link-local" not in [f.id for f in found(second.replace(
        " [1]veth8739016:fe80::5804:edff:fe5b:6570%veth8739016<0>", ""))]


def test_too_many_open_files_is_the_ranks_open_file_limit():
    """goodfire-ai/spd#957: a 4-node B200 job under Slurm with a 1024 soft limit: `ncclOsSocketTryAccept: Accept failed:
    Too many open files` (quoted in the PR's prose); raising the limit to the hard one in the batch prologue fixed it."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-26-b" / "spd-957.log"))
    assert [f.id for f in said] == ["open-files-limit"] and "ulimit -n" in said[0].fix
    line = "n1:7:9 [0] os/linux.cc:204 NCCL WARN ncclOsSocketTryAccept: Accept failed: Too many open files\n"
    assert [f.id for f in found(line)] == ["open-files-limit"]


def test_a_corrupted_comm_object_names_a_second_nccl_in_the_process():
    """jax-ml/jax#39167 (its prose quotes NCCL's WARN; the excerpt is a note whose code blocks hold no log: refused
    until session 40, read now, test_prose_quotes.py): NCCL's CommCheck failing on a communicator TensorFlow's copy of
    NCCL did not make."""
    line = "kaggle:41:41 [0] misc/argcheck.cc:41 NCCL WARN Error: corrupted comm object detected\n"
    said = found(line)
    assert [f.id for f in said] == ["corrupted-comm-object"]
    assert "tensorflow-cpu" in said[0].fix and "/proc/PID/maps" in said[0].fix


def test_nothing_written_this_session_fires_on_these_sets_healthy_logs():
    for path in sorted(DATA.glob("nccl-fresh-2026-12-2[67]*/healthy/*.log")):
        try:
            said = diagnose(read_log(path))
        except InputError as error:  # refused: nothing of NCCL's in it
            assert "no line of NCCL's" in str(error), path
            continue
        assert said == [], (path, [f.id for f in said])
