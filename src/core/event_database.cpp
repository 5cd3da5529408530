#include "core/event_database.hpp"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace kpc {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

size_t edit_distance(const std::string &a, const std::string &b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

}  // namespace

const Event *EventDatabase::add(Event e) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_name_.find(e.name);
    if (it != by_name_.end()) return it->second;
    events_.push_back(std::move(e));
    const Event *p = &events_.back();
    by_name_.emplace(p->name, p);
    return p;
}

const Event *EventDatabase::add_looked_up(Event e) {
    std::lock_guard<std::mutex> lock(mu_);
    const bool keyed = !e.lookup_key.empty();
    const auto &index = keyed ? by_lookup_key_ : by_name_;
    auto it = index.find(keyed ? e.lookup_key : e.name);
    if (it != index.end()) return it->second;
    if (looked_up_ >= kMaxLookedUp)
        fail(KP_ENOMEM, "the sampler already holds " + std::to_string(kMaxLookedUp) +
                            " events found by raw code or native name, its limit, so '" + e.name +
                            "' was not added; free the sampler and look it up in a new sampler");
    e.looked_up = true;
    events_.push_back(std::move(e));
    const Event *p = &events_.back();
    ++looked_up_;
    by_name_.emplace(p->name, p);
    if (keyed) by_lookup_key_.emplace(p->lookup_key, p);
    return p;
}

const Event *EventDatabase::find(std::string_view name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : it->second;
}

size_t EventDatabase::size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_.size();
}

const Event *EventDatabase::at(size_t index) const {
    std::lock_guard<std::mutex> lock(mu_);
    return index < events_.size() ? &events_[index] : nullptr;
}

std::string EventDatabase::suggest(std::string_view name) const {
    if (name.size() > kMaxSuggested) return "";
    std::lock_guard<std::mutex> lock(mu_);
    const std::string want = lower(name);
    const size_t close = std::max<size_t>(2, want.size() / 3);
    std::vector<std::pair<size_t, const std::string *>> scored;
    for (const Event &e : events_) {
        if (e.looked_up) continue;  // raw codes and the like are not what a typo meant
        std::string cand = lower(e.name);
        bool substring = !want.empty() && cand.find(want) != std::string::npos;
        // The distance is at least the difference in length: skip the table when that
        // alone is too far.
        const size_t gap = cand.size() > want.size() ? cand.size() - want.size()
                                                     : want.size() - cand.size();
        size_t d = substring || gap > close ? gap : edit_distance(want, cand);
        if (d <= close || substring) scored.emplace_back(substring ? 0 : d, &e.name);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::string out;
    for (size_t i = 0; i < scored.size() && i < 3; ++i) {
        out += (i ? ", " : "");
        out += *scored[i].second;
    }
    return out;
}

}  // namespace kpc
