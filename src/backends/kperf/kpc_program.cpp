#include "backends/kperf/kpc_program.hpp"

#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "backends/kperf/kperf_errors.hpp"
#include "backends/kperf/placement.hpp"
#include "core/error.hpp"

namespace kpc::kperf {
namespace {

// Bounded: kpep's allocator is deterministic, so a handful of orders settles it.
constexpr size_t kMaxOrders = 24;

struct ConfigDeleter {
    const kp_kperf_api_t *api;
    void operator()(kp_kpep_config_t *c) const { api->kpep_config_free(c); }
};
using ConfigPtr = std::unique_ptr<kp_kpep_config_t, ConfigDeleter>;

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", v);
    return buf;
}

}  // namespace

KpcProgram build_program(const kp_kperf_api_t &api, kp_kpep_db_t *db,
                         const std::vector<ProgramEvent> &events, uint32_t available,
                         uint32_t fixed, kp_kpep_event_t *fixed_anchor) {
    const size_t n = events.size();
    bool uses_fixed = false;
    for (const ProgramEvent &e : events) uses_fixed = uses_fixed || (e.mask & ~fixed) == 0;
    kp_kpep_event_t *anchor = uses_fixed ? nullptr : fixed_anchor;
    std::vector<PlacementEvent> pe(n);
    KpcProgram prog;
    for (size_t i = 0; i < n; ++i) {
        pe[i] = {events[i].label, events[i].mask};
        prog.events += (i ? ", " : "") + events[i].label;
    }
    if (n + (anchor ? 1 : 0) > KP_KPC_MAX_COUNTERS)
        fail(KP_ECONFLICT, "too many events for the counters");
    Placement placement = place_events(pe, available, fixed);
    if (!placement.ok) fail(placement.status, placement.message);

    std::string last_refusal;
    for (const std::vector<size_t> &order : kpep_add_orders(pe, placement, kMaxOrders)) {
        kp_kpep_config_t *raw = nullptr;
        if (int rc = api.kpep_config_create(db, &raw)) throw_kpep("kpep_config_create", rc);
        if (!raw) fail(KP_EFRAMEWORK, "kperfdata: kpep_config_create returned no configuration");
        ConfigPtr cfg(raw, ConfigDeleter{&api});
        if (int rc = api.kpep_config_force_counters(cfg.get()))
            throw_kpep("kpep_config_force_counters", rc);

        bool refused = false;
        for (size_t pos = 0; pos < n && !refused; ++pos) {
            const ProgramEvent &e = events[order[pos]];
            kp_kpep_event_t *ev = e.event;
            uint32_t err = 0;
            int rc = api.kpep_config_add_event(cfg.get(), &ev, e.add_flag, &err);
            if (rc == KP_KPEP_ERR_CONFLICTING_EVENTS) {
                refused = true;
                last_refusal = "adding '" + e.label + "' after";
                for (size_t k = 0; k < pos; ++k) last_refusal += (k ? ", '" : " '") + events[order[k]].label + "'";
                if (pos == 0) last_refusal += " nothing";
                last_refusal += " gave kpep error 12 (CONFLICTING_EVENTS), conflict bitmap " + hex(err);
                std::string named;
                for (size_t k = 0; k < n && k < 32; ++k)
                    if (err >> k & 1u) named += (named.empty() ? "" : ", ") + ("'" + events[order[k]].label + "'");
                if (!named.empty()) last_refusal += " (" + named + ")";
            } else if (rc != 0) {
                throw_kpep("kpep_config_add_event", rc, " while adding event '" + e.label + "'");
            }
        }
        if (!refused && anchor) {
            kp_kpep_event_t *ev = anchor;
            uint32_t err = 0;
            if (int rc = api.kpep_config_add_event(cfg.get(), &ev, KP_KPEP_ADD_ALL_MODES, &err))
                throw_kpep("kpep_config_add_event", rc, " while adding the fixed cycle counter");
        }
        if (refused) continue;

        uint32_t classes = 0;
        size_t word_count = 0;
        kp_kpc_config_t words[KP_KPC_MAX_COUNTERS] = {};
        size_t map[KP_KPC_MAX_COUNTERS] = {};
        if (int rc = api.kpep_config_kpc_classes(cfg.get(), &classes))
            throw_kpep("kpep_config_kpc_classes", rc);
        if (int rc = api.kpep_config_kpc_count(cfg.get(), &word_count))
            throw_kpep("kpep_config_kpc_count", rc);
        if (word_count > KP_KPC_MAX_COUNTERS)
            fail(KP_ELAYOUT, "kperfdata: kpep_config_kpc_count reports " + std::to_string(word_count) +
                                 " configuration words; at most 32 exist");
        if (int rc = api.kpep_config_kpc(cfg.get(), words, sizeof words))
            throw_kpep("kpep_config_kpc", rc);
        const size_t mapped = n + (anchor ? 1 : 0);
        if (int rc = api.kpep_config_kpc_map(cfg.get(), map, mapped * sizeof map[0]))
            throw_kpep("kpep_config_kpc_map", rc);

        prog.classes = classes;
        prog.words.assign(words, words + word_count);
        prog.index.assign(n, 0);
        std::set<size_t> used;
        for (size_t pos = 0; pos < n; ++pos) {
            if (map[pos] >= KP_KPC_MAX_COUNTERS || !used.insert(map[pos]).second)
                fail(KP_ELAYOUT, "kperfdata: kpep_config_kpc_map gave event '" +
                                     events[order[pos]].label + "' counter slot " +
                                     std::to_string(map[pos]) +
                                     ", which is out of range or shared; libkpc cannot read it");
            prog.index[order[pos]] = static_cast<uint32_t>(map[pos]);
        }
        return prog;
    }
    fail(KP_ECONFLICT,
         "kperfdata refused every order libkpc tried for events " + prog.events +
             ", although each event has a counter in its counters_mask; last refusal: " +
             last_refusal + ". Count some of them in a separate run");
}

}  // namespace kpc::kperf
