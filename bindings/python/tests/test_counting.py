"""Software events on perf_event count what the thread did."""
from conftest import burn_cpu, touch_fresh_pages


def test_page_faults_match_touched_pages(sampler):
    with sampler.counters("page-faults") as c:
        for pages in (16, 256):
            with c.measure() as m:
                touch_fresh_pages(pages)
            # each fresh page faults once; Python may add a few faults of its own
            assert pages <= m.counts[0] <= pages + pages // 10 + 4, (pages, m.counts)


def test_per_iteration(sampler):
    with sampler.counters("page-faults") as c:
        with c.measure(iterations=10) as m:
            for _ in range(10):
                touch_fresh_pages(32)
        assert 32 <= m.per_iteration()["page-faults"] <= 36


def test_task_clock_grows_with_cpu_time(sampler):
    with sampler.counters("task-clock", "page-faults") as c:
        c.start()
        before = c.sample()
        burn_cpu(0.05)
        after = c.sample()
        assert after[0] - before[0] >= 40_000_000  # ns: at least 40 ms of the 50 ms burnt
        assert all(a >= b for a, b in zip(after, before))


def test_stop_freezes_and_start_resumes(sampler):
    with sampler.counters("task-clock") as c:
        c.start()
        c.stop()
        assert not c.is_running
        frozen = c.sample()
        burn_cpu(0.02)
        assert c.sample() == frozen
        c.start()
        burn_cpu(0.02)
        assert c.sample()[0] > frozen[0]


def test_sample_into_writes_the_given_buffer(sampler):
    with sampler.counters("task-clock", "page-faults") as c:
        c.start()
        buf = c.new_buffer()
        assert c.sample_into(buf) is buf
        assert buf[0] > 0
        before = buf[0]
        burn_cpu(0.01)
        c.sample_into(buf)
        assert buf[0] > before


def test_sample_full_reports_no_multiplexing_for_software_events(sampler):
    with sampler.counters("task-clock", "page-faults") as c:
        c.start()
        burn_cpu(0.01)
        full = c.sample_full()
        assert len(full.values) == 2 and full.values[0] > 0
        assert full.complete == [True, True]
        assert full.time_running_ns == full.time_enabled_ns > 0


def test_calibrate_and_subtract_overhead(sampler):
    with sampler.counters("page-faults", "task-clock") as c:
        c.start()
        offsets = c.calibrate(rounds=50)
        assert offsets[0] == 0  # an empty region takes no page fault
        with c.measure(subtract_overhead=True) as m:
            touch_fresh_pages(64)
        assert 64 <= m.counts[0] <= 74


def test_events_are_copies_describing_the_set(sampler):
    with sampler.counters(["page-faults", "task-clock"]) as c:
        assert c.names == ["page-faults", "task-clock"]
        event = c.events[0]
    # the handle is freed; the copy still reads
    assert event.native_name == "PERF_COUNT_SW_PAGE_FAULTS"
    assert event.kind.name == "SOFTWARE" and event.is_available and event.is_generic
    assert event.unit.name == "COUNT"
    assert sampler.find_event("task-clock").unit.name == "NANOSECONDS"
    assert event.counts_kernel in (True, False)
    assert sampler.find_event("task-clock").is_available
    assert "page-faults" in [e.name for e in sampler.events()]
