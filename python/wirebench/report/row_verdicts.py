"""The first verdict of each row, judged alone: a bandwidth against its link's ceiling, a small
message's latency against its class's typical figure, a data check, a step against the cost model."""
from . import judging
from .extra import row_items
from .sweeps import sweep_key
from .verdict import NO_CEILING, Verdict, metric_of


WARN_BAND = 0.05
ABOVE_CEILING = 1.05
LATENCY_WARN_FACTOR = 2.0

# Step emulation (wb-step): a step is judged against its prediction, made from the calibration
# before any step ran (predicted_us; rows that say judge=prediction, issue 56): within
# STEP_PREDICTION_TOLERANCE the step is what the wiring was measured to give. Beyond it, the step's
# own operations replayed under the framework's overlap rules (replayed_us, as trace-driven models
# such as Lumos predict a step) say where the time went: a replay that misses too means time no
# operation holds (a stall, a late rank, a wait the rules do not have); a replay that explains the
# step means its collectives ran slower than calibrated, and the row names the one over its
# prediction by the most and what ran beside it. Runs from before (no judge item) are judged as they
# were: against the replay (REPLAY_TOLERANCE), or before replayed_us against the prediction
# (PREDICTION_TOLERANCE). Above EXPOSED_FINDING_PCT exposed communication the wiring costs the job
# (the mission's "up to 40% of a step"): a finding shown beside the other wirings.
EXPOSED_FINDING_PCT = 40.0
PREDICTION_TOLERANCE = 0.20
REPLAY_TOLERANCE = 0.10
STEP_PREDICTION_TOLERANCE = 0.10
# A difference that the measurement's own spread covers cannot be told from its noise: no WARN
# rests on it (issue 44: on a healthy 2-core machine 3 ranks' samples spread 17-80%).
UNDECIDED_SPREAD_FACTOR = 1.0


def undecided(spread_pct, difference):
    """Whether a measurement's spread (p95-p05 over the median, percent) is at least a relative
    difference: then the difference may be the measurement's own noise, and decides nothing."""
    return spread_pct is not None and spread_pct / 100 >= UNDECIDED_SPREAD_FACTOR * abs(difference)


def _judge_step(row):
    step = row.number("time_us")
    if step is None:
        return Verdict(row, "ERROR", "no measured step time in the row", "time_us")
    extra = row_items(row)
    try:
        compute = float(extra["compute_us"])
        exposed = float(extra["exposed_us"])
        predicted = float(extra["predicted_us"])
        replayed = float(extra["replayed_us"]) if "replayed_us" in extra else None
    except (KeyError, ValueError):
        return Verdict(row, "ERROR", "a step row without compute_us, exposed_us and predicted_us in extra",
                       "time_us", step)
    exposed_pct = 100 * exposed / step if step > 0 else 0
    error = (predicted - step) / step if step > 0 else 0
    finding = ""
    if exposed_pct > EXPOSED_FINDING_PCT:
        finding = (f"{row.text('case')} of {row.text('src')} on {row.text('dst') or 'this wiring'} waits "
                   f"{exposed_pct:.0f}% of its step on communication")
    split = (f"step {step / 1e3:.4g} ms: compute {compute / 1e3:.4g} ms, exposed communication "
             f"{exposed / 1e3:.4g} ms ({exposed_pct:.0f}%)")
    if replayed is None:
        return _judge_step_by_prediction(row, step, split, predicted, error, finding)
    if extra.get("judge") == "prediction":
        return _judge_step_before_it_ran(row, step, split, predicted, replayed, extra, finding)
    replay_error = (replayed - step) / step if step > 0 else 0
    reason = (f"{split}; its own collectives and compute replayed under the framework's overlap rules make "
              f"{replayed / 1e3:.4g} ms ({100 * replay_error:+.0f}%); the links' alpha-beta fit predicts "
              f"{predicted / 1e3:.4g} ms ({100 * error:+.0f}%)")
    expected = (f"{replayed / 1e3:.4g} ms +-{100 * REPLAY_TOLERANCE:.0f}% (its own operations replayed under the "
                "overlap rules)")
    if abs(replay_error) <= REPLAY_TOLERANCE:
        return Verdict(row, "PASS", reason + "; the step is what its operations make it", "time_us", step,
                       expected=expected, finding=finding)
    spread = row.number("spread_pct")
    if undecided(spread, replay_error):
        return Verdict(row, "NOT JUDGED", reason + f"; not judged: the step's samples spread {spread:.0f}%, as "
                       f"much as the {100 * abs(replay_error):.0f}% it misses by or more", "time_us", step,
                       expected=expected, finding=finding)
    return Verdict(row, "WARN", reason + f"; the step holds {100 * abs(replay_error):.0f}% its operations do not "
                   "explain: a host stall, a late rank or a wait the overlap rules do not have", "time_us", step,
                   expected=expected, finding=finding)


def _judge_step_before_it_ran(row, step, split, predicted, replayed, extra, finding):
    """The step against the prediction its calibration made before it ran; the replay explains a miss."""
    error = (predicted - step) / step if step > 0 else 0
    replay_error = (replayed - step) / step if step > 0 else 0
    basis = extra.get("costs", "calibrated")
    source = "its calibration" if basis == "calibrated" else (
        "wb-coll's fits" if basis == "fits.csv" else f"another run's {basis}")
    reason = (f"{split}; predicted before the steps ran, from {source}: {predicted / 1e3:.4g} ms "
              f"({100 * error:+.1f}%); its own operations replayed under the overlap rules: {replayed / 1e3:.4g} ms "
              f"({100 * replay_error:+.1f}%)")
    expected = (f"{predicted / 1e3:.4g} ms +-{100 * STEP_PREDICTION_TOLERANCE:.0f}% (predicted before the steps "
                f"ran, from {source})")
    if abs(error) <= STEP_PREDICTION_TOLERANCE:
        return Verdict(row, "PASS", reason + "; the step is what the wiring was measured to give", "time_us", step,
                       expected=expected, finding=finding)
    spread = row.number("spread_pct")
    if undecided(spread, error):
        return Verdict(row, "NOT JUDGED", reason + f"; not judged: the step's samples spread {spread:.0f}%, as much "
                       f"as the {100 * abs(error):.0f}% the prediction misses by or more", "time_us", step,
                       expected=expected, finding=finding)
    # The prediction's tolerance and the step's own noise add: a miss past 10% by less than the
    # step's spread cannot be told from the two together (one healthy run in 20 missed by 14.2%
    # with its samples spread 14%).
    if spread is not None and abs(error) <= STEP_PREDICTION_TOLERANCE + spread / 100:
        return Verdict(row, "NOT JUDGED", reason + f"; not judged: {100 * abs(error):.1f}% is past the "
                       f"{100 * STEP_PREDICTION_TOLERANCE:.0f}% tolerance by less than the step's own spread of "
                       f"{spread:.0f}%", "time_us", step, expected=expected, finding=finding)
    if abs(replay_error) > REPLAY_TOLERANCE and not undecided(spread, replay_error):
        return Verdict(row, "WARN", reason + f"; the step holds {100 * abs(replay_error):.0f}% its operations do not "
                       "explain: a host stall, a late rank or a wait the overlap rules do not have", "time_us", step,
                       expected=expected, finding=finding)
    shared = _cores_the_calibration_did_not_share(extra)
    if shared and error < 0:
        return Verdict(row, "NOT JUDGED", reason + f"; not judged: {shared}", "time_us", step, expected=expected,
                       finding=finding)
    culprit = ""
    if extra.get("miss_op"):
        try:
            took, given = float(extra["miss_op_us"]), float(extra["miss_op_predicted_us"])
            culprit = (f": most of all '{extra['miss_op']}', {took / 1e3:.4g} ms against {given / 1e3:.4g} ms "
                       f"predicted, beside {extra.get('miss_op_beside', 'nothing')}")
        except (KeyError, ValueError):
            culprit = f": most of all '{extra['miss_op']}'"
    slower = "slower" if error < 0 else "faster"
    return Verdict(row, "WARN", reason + f"; its operations explain the step, and its collectives ran {slower} than "
                   f"calibrated{culprit} (what ran beside them, or a link that changed since the calibration)",
                   "time_us", step, expected=expected, finding=finding)


def _cores_the_calibration_did_not_share(extra):
    """Why a step slower than another run's calibration predicted is not the wiring's: its ranks share
    the CPU's cores more than the calibrating run's did (wb-step's ranks_per_core, of the busiest
    machine). The model has no CPU; each round that waits for a new partner also waits for that
    rank's turn on a core (8 virtual nodes on 2 cores ran 25% over a 2-node calibration's
    prediction: bench/MEASUREMENTS.md, session 30). None where the two shared alike."""
    try:
        here = float(extra.get("ranks_per_core", "1"))
    except ValueError:
        return None
    then = extra.get("calibration_ranks_per_core")
    if here <= 1 or then is None:
        return None
    try:
        if float(then) >= here:
            return None
        was = f"its calibration's run had {float(then):.3g}"
    except ValueError:
        was = "its calibration's file does not say how many its run had (format 2)"
    return (f"its ranks share the CPU, {here:.3g} ranks per core on the busiest machine, and {was}: the model has "
            "no CPU, and each round that waits for a new partner also waits for that rank's turn on a core, which "
            "that calibration never saw (give each rank a core, or calibrate at this size)")


def _judge_step_by_prediction(row, step, split, predicted, error, finding):
    """A run from before wb-step replayed its steps: the step against the links' prediction."""
    reason = f"{split}; the cost model predicts {predicted / 1e3:.4g} ms ({100 * error:+.0f}%)"
    expected = f"{predicted / 1e3:.4g} ms +-{100 * PREDICTION_TOLERANCE:.0f}% (the cost model's prediction)"
    if abs(error) > PREDICTION_TOLERANCE:
        return Verdict(row, "WARN", reason + f"; the prediction misses by more than {100 * PREDICTION_TOLERANCE:.0f}%: "
                       "contention, a slow rank or a route the model does not know", "time_us", step,
                       expected=expected, finding=finding)
    return Verdict(row, "PASS", reason + "; held against the cost model's prediction", "time_us", step,
                   expected=expected, finding=finding)


def _judge_latency(row, typical):
    """A ping-pong's small-message half round trip against its link class's typical latency."""
    value = row.number("time_us")
    factor = value / typical.latency_us
    limit = LATENCY_WARN_FACTOR * typical.latency_us
    reason = (f"latency {value:.4g} us (half round trip, {row.text('bytes')} B) is {factor:.2f}x the typical "
              f"{typical.latency_us:.4g} us of {row.text('link_class')} links (source: {typical.source})")
    expected = f"<= {limit:.4g} us ({LATENCY_WARN_FACTOR:g}x the typical {typical.latency_us:.4g} us)"
    if factor > LATENCY_WARN_FACTOR:
        spread = row.number("spread_pct")
        over = value / limit - 1
        if undecided(spread, over):
            return Verdict(row, "NOT JUDGED", reason + f"; more than {LATENCY_WARN_FACTOR:g}x by {100 * over:.1f}%, "
                           f"within its own spread of {spread:.0f}%: too noisy to tell", "time_us", value,
                           expected=expected)
        return Verdict(row, "WARN", reason + f"; more than {LATENCY_WARN_FACTOR:g}x", "time_us", value, expected=expected,
                       bound=limit)
    return Verdict(row, "PASS", reason, "time_us", value, expected=expected, bound=limit)


def is_small_message_latency(row, smallest):
    """A row declared to be held against its class's typical latency, at its sweep's smallest size."""
    return (judging.against(row, "typical_latency") is not None
            and int(row.text("bytes") or 0) == smallest.get(sweep_key(row)))


def _declared_at(row, metric, default):
    """Which size of its sweep the row's judgement of `metric` is made at, as its `judged` column
    declares it (METRIC@AT:AGAINST: largest, smallest or each); `default` for a row declaring none."""
    return next((j.at for j in judging.of(row) if j.metric == metric), default)


def judge_row(row, ceilings, largest, smallest, share=(1, "")):
    if row.status in ("SKIP", "ERROR"):
        return Verdict(row, row.status, row.text("reason") or f"the benchmark reported {row.status}")
    if judging.by_prediction(row):
        return _judge_step(row)
    metric, value, is_bandwidth = metric_of(row)
    errors = row.number("errors")
    if errors:
        return Verdict(row, "FAIL", f"{int(errors)} wrong elements in the data check", metric, value,
                       expected="0 wrong elements")
    if value is None:
        return Verdict(row, "ERROR", "no measured value in the row", metric)
    size = int(row.text("bytes") or 0)
    if is_small_message_latency(row, smallest):
        typical = ceilings.typical_latency(row)
        if typical:
            return _judge_latency(row, typical)
        virtual = ceilings.bare_metal_only(row)
        if virtual:
            return Verdict(row, "NOT JUDGED", f"not judged: the measuring node is a virtual machine ({virtual}); "
                           f"the typical {ceilings.latencies['shm'].latency_us:g} us of shm links is bare metal's, "
                           "and a VM's vCPU scheduling sets its own (osu_latency reads 1.1-1.4 us on a healthy "
                           "2-vCPU VM): nothing typical to hold it to", "time_us", row.number("time_us"),
                           not_judged_why="virtual machine")
        return Verdict(row, "NOT JUDGED", NO_CEILING, "time_us", row.number("time_us"), not_judged_why=NO_CEILING)
    at = _declared_at(row, metric, "largest" if is_bandwidth else "smallest")
    if at != "each" and size != (largest if at == "largest" else smallest).get(sweep_key(row), size):
        return Verdict(row, "DATA", f"a point of the sweep (its {at} size is judged)", metric, value)
    if not is_bandwidth:  # a latency-only measurement, against its siblings
        return Verdict(row, "NOT JUDGED", NO_CEILING, metric, value, not_judged_why=NO_CEILING)
    items_, pairs = row_items(row), 1
    # a row declared to be held against its siblings only (a copy staged through host memory) gets no ceiling
    held_to_ceiling = judging.against(row, "ceiling") is not None
    ceiling = ceilings.for_row(row) if held_to_ceiling else None
    if ceiling is None and held_to_ceiling:  # an NCCL collective: what NCCL's algorithm reaches on the node's wiring
        ceiling = ceilings.for_collective(row, items_)
    if row.text("src") == row.text("dst") == "all" and items_.get("at_once"):
        # An aggregate (a bisection matching, an all-to-all): every pair or rank at its link's ceiling at once.
        ceiling, pairs = ceilings.for_link_class(row.text("link_class")), int(items_["at_once"])
        if ceiling is None:
            return Verdict(row, "NOT JUDGED", f"not judged: the aggregate of {pairs} at once is held against {pairs} x "
                           "its link class's ceiling, which the suite does not state", metric, value)
    elif judging.against(row, "culprits"):
        # A pair's share of an all-to-all follows the others' (one that arrives late leaves room for
        # the rest): no ceiling holds it; the aggregate is judged, and the pairs name a culprit.
        return Verdict(row, "DATA", "a pair of an all-to-all: compared with the other pairs (culprits), not with a "
                       "ceiling; its aggregate is judged", metric, value)
    if ceiling is None:
        return Verdict(row, "NOT JUDGED", NO_CEILING, metric, value, not_judged_why=NO_CEILING)
    limit = ceiling.GBps * (2 if row.text("direction") == "bidir" else 1) * pairs / share[0]
    fraction = value / limit
    healthy = ceiling.healthy_fraction
    source = ceiling.source or "topology"
    reason = ceiling.reason
    if pairs > 1:
        reason = f"{pairs} {'ranks' if items_.get('pairs') == 'alltoall' else 'pairs'} at once, each {ceiling.reason}"
    if share[0] > 1:
        reason = f"its share, 1/{share[0]:g}: {share[1]}; {ceiling.reason}"
    described = (f"{value:.4g} GB/s is {100 * fraction:.1f}% of the {limit:.4g} GB/s ceiling ({reason}; "
                 f"source: {source}); healthy from {100 * healthy:.0f}%")
    expected = f">= {healthy * limit:.4g} GB/s ({100 * healthy:.0f}% of the {limit:.4g} GB/s ceiling)"
    if fraction > ABOVE_CEILING:
        verdict = "WARN"
        described += (f"; above {100 * ABOVE_CEILING:.0f}% of the ceiling: the ceiling ({source}), the topology or "
                      "the timer is wrong")
        expected = f"<= {limit:.4g} GB/s (the ceiling: {source})"
    elif fraction < healthy:
        verdict = "FAIL"
        spread = row.number("spread_pct")
        if undecided(spread, fraction / healthy - 1):  # the shortfall is inside the noise: no FAIL rests on it
            verdict = "WARN"
            described += (f"; below it by {100 * (1 - fraction / healthy):.1f}%, less than its own spread of "
                          f"{spread:.0f}%: undecided, no FAIL rests on it")
    elif fraction < healthy * (1 + WARN_BAND):
        verdict = "WARN"
        spread = row.number("spread_pct")
        if undecided(spread, fraction / healthy - 1):  # the margin is inside the noise: it passes, said so
            verdict = "PASS"
            described += (f"; within {100 * WARN_BAND:.0f}% above it, but its own spread of {spread:.0f}% is wider "
                          "than that margin: no warning rests on it")
    else:
        verdict = "PASS"
    bound = None if fraction > ABOVE_CEILING else healthy * limit
    return Verdict(row, verdict, described, metric, value, limit, fraction, healthy, expected=expected, bound=bound)
