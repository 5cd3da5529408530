// Per-thread counts: thread_selfcounts (apple-recount.md §1) and
// proc_pidinfo(PROC_PIDTHREADCOUNTS) (§2).
#include <cerrno>
#include <climits>
#include <cstring>

#include "linux_cpu.h"
#include "model.h"

namespace rcsim {
namespace {

// Entries of a per-perf-level answer; returns how many.
// order_by_kind: 13.0–14.1 thread_selfcounts, recount CPU-kind order [E, P], always 2 entries
// (a one-level machine puts everything in entry 0). Otherwise perf-level order [P, E] with
// one entry per level.
size_t per_level(const Config &c, const usage_words &total, bool order_by_kind, usage_words out[2]) {
    if (c.perf_levels == 1) {
        out[0] = total;
        out[1] = usage_words{};
        return order_by_kind ? 2 : 1;
    }
    usage_words p, e;
    split_usage(c, total, &p, &e);
    out[0] = order_by_kind ? e : p;
    out[1] = order_by_kind ? p : e;
    return 2;
}

}  // namespace
}  // namespace rcsim

using namespace rcsim;

#ifndef RCSIM_OMIT_THREAD_SELFCOUNTS
static size_t element_size(uint32_t kind) {
    switch (kind) {
        case THSC_CPI:
        case THSC_CPI_PER_PERF_LEVEL:
            return kThscCpiSize;
        case THSC_TIME_CPI:
        case THSC_TIME_CPI_PER_PERF_LEVEL:
            return kThscTimeCpiSize;
        default:
            return kThscTimeEnergyCpiSize;
    }
}

RCSIM_EXPORT int thread_selfcounts(uint32_t kind, void *dst, size_t size) {
    const Config c = config();
    if (c.vm) return fail(ENOTSUP);  // no CONFIG_PERVASIVE_CPI (≤12.x: no MONOTONIC)
    if (!at_least(c, 13, 0)) {
        if (kind != THSC_CPI) return fail(EINVAL);
    } else if (kind < THSC_CPI || kind > THSC_TIME_ENERGY_CPI_PER_PERF_LEVEL) {
        return fail(ENOTSUP);
    }
    const usage_words total = total_usage(c, calling_thread_cpu());
    usage_words entries[2] = {total, usage_words{}};
    size_t count = 1;
    if (kind % 2 == 0) count = per_level(c, total, !at_least(c, 14, 2), entries);

    // Pack `count` elements, each a prefix of the five usage words.
    const size_t elem = element_size(kind);
    unsigned char packed[2 * sizeof(usage_words)];
    for (size_t i = 0; i < count; ++i) std::memcpy(packed + i * elem, &entries[i], elem);
    const size_t full = count * elem;
    return copy_out(dst, packed, size < full ? size : full) ? 0 : fail(EFAULT);
}
#endif

RCSIM_EXPORT int proc_pidinfo(int pid, int flavor, uint64_t arg, void *buffer, int buffersize) {
    const Config c = config();
    // proc_pidinfo returns the byte count, or 0 with errno.
    auto error = [](int err) {
        errno = err;
        return 0;
    };
    if (flavor != PROC_PIDTHREADCOUNTS || !at_least(c, 13, 0)) return error(EINVAL);
    if (buffersize < static_cast<int>(sizeof(proc_threadcounts_header))) return error(ENOMEM);
    ProcessInfo proc;
    if (!find_process(pid, &proc) || proc.zombie) return error(ESRCH);
    if (!may_inspect(c, proc.own, proc.euid)) return error(EPERM);
    if (c.vm) return error(ENOTSUP);

    CpuTime cpu;
    // tid 0 or the caller's own id: the calling thread, whatever `pid` is (task_findtid).
    if (arg == 0 || arg == current_tid()) {
        cpu = calling_thread_cpu();
    } else if (!other_thread_cpu(pid, arg, &cpu)) {
        return error(ESRCH);
    }

    struct {
        proc_threadcounts_header header;
        usage_words counts[2];
    } out{};
    static_assert(sizeof out == 8 + 2 * 40, "no padding");
    const size_t len = per_level(c, total_usage(c, cpu), false, out.counts);
    out.header.ptc_len = static_cast<uint16_t>(len);
    const size_t full = sizeof out.header + len * sizeof(usage_words);
    const size_t n = static_cast<size_t>(buffersize) < full ? static_cast<size_t>(buffersize) : full;
    if (!copy_out(buffer, &out, n)) return error(EFAULT);
    return static_cast<int>(n);
}
