#include "backends/kperf/placement.hpp"

#include <algorithm>
#include <bitset>
#include <numeric>
#include <set>
#include <string>

#include "kpc/errors.h"

namespace kpc::kperf {
namespace {

constexpr int kCounters = 32;

int popcount(uint32_t m) { return static_cast<int>(std::bitset<32>(m).count()); }

std::string quoted(const std::string &s) { return "'" + s + "'"; }

// Kuhn's augmenting-path step: try to give event `e` a counter, moving others along.
bool augment(size_t e, const std::vector<uint32_t> &masks, std::vector<int> &owner,
             std::vector<int> &counter_of, uint32_t &visited) {
    for (int c = 0; c < kCounters; ++c) {
        if (!(masks[e] >> c & 1u) || (visited >> c & 1u)) continue;
        visited |= 1u << c;
        if (owner[c] < 0 || augment(static_cast<size_t>(owner[c]), masks, owner, counter_of, visited)) {
            owner[c] = static_cast<int>(e);
            counter_of[e] = c;
            return true;
        }
    }
    return false;
}

}  // namespace

std::string counter_list(uint32_t mask) {
    std::string out;
    for (int c = 0; c < kCounters;) {
        if (!(mask >> c & 1u)) {
            ++c;
            continue;
        }
        int end = c;
        while (end + 1 < kCounters && (mask >> (end + 1) & 1u)) ++end;
        if (!out.empty()) out += ", ";
        out += std::to_string(c);
        if (end > c) out += (end == c + 1 ? ", " : "-") + std::to_string(end);
        c = end + 1;
    }
    return out;
}

Placement place_events(const std::vector<PlacementEvent> &events, uint32_t available,
                       uint32_t fixed) {
    Placement p;
    const size_t n = events.size();
    std::vector<uint32_t> masks(n);
    for (size_t i = 0; i < n; ++i) {
        masks[i] = events[i].mask & available;
        if (masks[i] == 0) {
            p.status = KP_EUNAVAILABLE;
            p.message = "event " + quoted(events[i].label) + " can only use counter" +
                        (popcount(events[i].mask) == 1 ? " " : "s ") +
                        counter_list(events[i].mask) + ", which this machine does not offer "
                        "(it has counters " + counter_list(available) + ")";
            return p;
        }
    }
    // Most constrained first: fewer augmenting steps, and a deterministic result.
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return popcount(masks[a]) < popcount(masks[b]);
    });
    std::vector<int> owner(kCounters, -1), counter_of(n, -1);
    for (size_t e : order) {
        uint32_t visited = 0;
        if (augment(e, masks, owner, counter_of, visited)) continue;
        // The failed search visited exactly the counters the blocking events can use, all
        // taken by events of that same group: name them.
        std::set<size_t> group{e};
        for (int c = 0; c < kCounters; ++c)
            if ((visited >> c & 1u) && owner[c] >= 0) group.insert(static_cast<size_t>(owner[c]));
        p.status = KP_ECONFLICT;
        std::string msg = "events cannot be counted together: event " + quoted(events[e].label) +
                          " needs counter" + (popcount(masks[e]) == 1 ? " " : "s ") +
                          counter_list(masks[e]) + ", already used by ";
        bool first = true;
        for (int c = 0; c < kCounters; ++c) {
            if (!(masks[e] >> c & 1u) || owner[c] < 0) continue;
            msg += (first ? "" : ", ") + quoted(events[owner[c]].label) + " (counter " +
                   std::to_string(c) + ")";
            first = false;
        }
        msg += ". Events ";
        first = true;
        for (size_t g : group) {
            msg += (first ? "" : ", ") + quoted(events[g].label);
            first = false;
        }
        msg += " compete for counter" + std::string(popcount(visited) == 1 ? " " : "s ") +
               counter_list(visited) + " (" + std::to_string(group.size()) + " events, " +
               std::to_string(popcount(visited)) + (popcount(visited) == 1 ? " counter" : " counters") + ")";
        if (visited & fixed) msg += "; counters " + counter_list(fixed) + " are fixed-function";
        msg += ". Count some of them in a separate run";
        p.message = msg;
        return p;
    }
    p.ok = true;
    p.counter = counter_of;
    return p;
}

std::vector<std::vector<size_t>> kpep_add_orders(const std::vector<PlacementEvent> &events,
                                                 const Placement &placement, size_t max_orders) {
    const size_t n = events.size();
    std::vector<std::vector<size_t>> orders;
    auto push = [&](const std::vector<size_t> &o) {
        if (orders.size() < max_orders && std::find(orders.begin(), orders.end(), o) == orders.end())
            orders.push_back(o);
    };
    std::vector<size_t> base(n);
    std::iota(base.begin(), base.end(), 0);

    // 1. By the counter our matching chose: a first-fit allocator reproduces it.
    std::vector<size_t> by_counter = base;
    std::stable_sort(by_counter.begin(), by_counter.end(), [&](size_t a, size_t b) {
        return placement.counter[a] < placement.counter[b];
    });
    push(by_counter);
    // 2. Most constrained first (fewest allowed counters), then the highest counters.
    std::vector<size_t> tight = base;
    std::stable_sort(tight.begin(), tight.end(), [&](size_t a, size_t b) {
        int pa = popcount(events[a].mask), pb = popcount(events[b].mask);
        if (pa != pb) return pa < pb;
        return placement.counter[a] > placement.counter[b];
    });
    push(tight);
    // 3. Matching order reversed (a last-fit allocator), the user's order and its reverse.
    push(std::vector<size_t>(by_counter.rbegin(), by_counter.rend()));
    push(base);
    push(std::vector<size_t>(base.rbegin(), base.rend()));
    // 4. Further permutations, bounded.
    std::vector<size_t> perm = by_counter;
    while (orders.size() < max_orders && std::next_permutation(perm.begin(), perm.end()))
        push(perm);
    return orders;
}

}  // namespace kpc::kperf
