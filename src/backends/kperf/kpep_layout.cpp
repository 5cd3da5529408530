#include "backends/kperf/kpep_layout.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "backends/kperf/kperf_errors.hpp"
#include "core/error.hpp"

namespace kpc::kperf {
namespace {

constexpr size_t kModernStride = sizeof(kp_kpep_event_t);        // 56
constexpr size_t kLegacyStride = sizeof(kp_kpep_event_legacy_t);  // 48

const char *str_or_null(const char *s) { return (s && *s) ? s : nullptr; }

// Greatest common divisor of the gaps between the sorted, distinct event addresses: the
// stride of a contiguous array (the kpep database keeps its events in one).
size_t address_gcd(std::vector<uintptr_t> addrs) {
    std::sort(addrs.begin(), addrs.end());
    addrs.erase(std::unique(addrs.begin(), addrs.end()), addrs.end());
    size_t g = 0;
    for (size_t i = 1; i < addrs.size(); ++i) g = std::gcd(g, size_t(addrs[i] - addrs[0]));
    return g;
}

}  // namespace

EventFields read_event(const kp_kperf_api_t &api, const kp_kpep_event_t *ev, size_t stride) {
    EventFields f;
    f.ptr = ev;
    auto *mut = const_cast<kp_kpep_event_t *>(ev);  // kpep's accessors are not const-correct
    // The five leading pointers and the mask sit at the same offsets in both layouts.
    const char *name = ev->name, *desc = ev->description, *alias = ev->alias;
    if (api.kpep_event_name) {
        const char *s = nullptr;
        int rc = api.kpep_event_name(mut, &s);
        if (rc != 0) throw_kpep("kpep_event_name", rc);
        name = s;
    }
    if (api.kpep_event_description) {
        const char *s = nullptr;
        int rc = api.kpep_event_description(mut, &s);
        if (rc != 0) throw_kpep("kpep_event_description", rc);
        desc = s;
    }
    if (api.kpep_event_alias) {
        const char *s = nullptr;
        int rc = api.kpep_event_alias(mut, &s);
        if (rc != 0) throw_kpep("kpep_event_alias", rc);
        alias = s;
    }
    f.name = name ? name : "";
    f.description = desc ? desc : "";
    f.alias = str_or_null(alias);
    f.errata = str_or_null(ev->errata);
    f.fallback = str_or_null(ev->fallback);
    f.mask = ev->mask;
    if (stride == kModernStride) {
        f.number = ev->number;
        f.fixed_flag = (ev->flags & KP_KPEP_EVENT_FLAG_FIXED) != 0;
    } else {
        auto *old = reinterpret_cast<const kp_kpep_event_legacy_t *>(ev);
        f.number = old->number;
        f.fixed_flag = old->is_fixed != 0;
    }
    return f;
}

DbView read_database(const kp_kperf_api_t &api, kp_kpep_db_t *db) {
    DbView view;
    size_t count = 0;
    if (int rc = api.kpep_db_events_count(db, &count)) throw_kpep("kpep_db_events_count", rc);
    std::vector<kp_kpep_event_t *> ptrs(count);
    if (count) {
        if (int rc = api.kpep_db_events(db, ptrs.data(), count * sizeof(ptrs[0])))
            throw_kpep("kpep_db_events", rc);
    }
    std::vector<uintptr_t> addrs;
    addrs.reserve(count);
    for (kp_kpep_event_t *p : ptrs) {
        if (!p) fail(KP_ELAYOUT, "kperfdata: kpep_db_events returned a NULL event pointer");
        addrs.push_back(reinterpret_cast<uintptr_t>(p));
    }

    const size_t gap = address_gcd(addrs);
    if (gap == kModernStride || gap == kLegacyStride) {
        view.event_stride = gap;
    } else if (count == 0) {
        view.event_stride = kModernStride;  // nothing will be read
    } else {
        std::string found = count == 1 ? "a single event, so the spacing cannot be measured"
                                       : "events spaced " + std::to_string(gap) +
                                             " bytes apart (greatest common gap over " +
                                             std::to_string(count) + " events)";
        fail(KP_ELAYOUT,
             "kperfdata: unrecognised kpep_event layout: found " + found +
                 ", but libkpc reads only the 56-byte layout (current macOS) and the 48-byte "
                 "one (older macOS). This macOS release changed kperfdata's private structs; "
                 "please report it with your macOS version");
    }

    // kpep_db's own fields are trusted only when they agree with what the API returned.
    if (count > 0) {
        const uintptr_t first = *std::min_element(addrs.begin(), addrs.end());
        view.db_fields_trusted = reinterpret_cast<uintptr_t>(db->event_arr) == first &&
                                 db->event_count == count;
    }

    // kpep_db_name() is reported to return the marketing name ("Apple A14/M1") on real
    // Macs, while the struct's name field keeps the short name ("a14") the chip tables use.
    // Both are kept; the field is read only once the layout agreed with the API.
    if (api.kpep_db_name) {
        const char *name = nullptr;
        if (int rc = api.kpep_db_name(db, &name)) throw_kpep("kpep_db_name", rc);
        view.api_name = name ? name : "";
    }
    if (view.db_fields_trusted) {
        if (db->name) view.name = db->name;
        if (db->marketing_name) view.marketing_name = db->marketing_name;
        view.architecture = db->architecture;
    }

    view.events.reserve(count);
    for (kp_kpep_event_t *p : ptrs) {
        EventFields f = read_event(api, p, view.event_stride);
        // The name field sits at offset 0 in both layouts; if the accessor disagrees, the
        // pointers are not event records and nothing else read from them can be trusted.
        if (api.kpep_event_name && p->name && std::strcmp(p->name, f.name.c_str()) != 0)
            fail(KP_ELAYOUT, "kperfdata: kpep_event layout mismatch: the name field of event '" +
                                 f.name + "' does not match kpep_event_name");
        view.events.push_back(std::move(f));
    }
    return view;
}

}  // namespace kpc::kperf
