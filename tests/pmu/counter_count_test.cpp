// kp_sampler_counter_count on QEMU's ARMv8 PMU (issue 17, section 4.2): it said 0 and 0 on a
// PMU with 7 counters. The truth comes from the kernel's boot log, which libkpc does not
// read: "hw perfevents: enabled with armv8_pmuv3_0 PMU driver, 7 counters available"
// (the cycle counter and PMCR_EL0.N event counters).
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <sys/klog.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "exact_loop.hpp"

namespace {

// The "N counters available" of the Arm PMU driver's boot line, or -1.
int boot_log_counters(std::string *line_out) {
    int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, nullptr, 0);
    if (size <= 0) return -1;
    std::vector<char> buf(static_cast<size_t>(size) + 1);
    int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf.data(), size);
    if (n <= 0) return -1;
    std::string log(buf.data(), static_cast<size_t>(n));
    size_t at = log.find("hw perfevents: enabled with ");
    if (at == std::string::npos) return -1;
    size_t end = log.find('\n', at);
    std::string line = log.substr(at, end == std::string::npos ? std::string::npos : end - at);
    *line_out = line;
    size_t c = line.find(" counters available");
    if (c == std::string::npos) return -1;
    size_t start = line.rfind(' ', c - 1);
    return std::atoi(line.substr(start + 1, c - start - 1).c_str());
}

TEST(CounterCount, WhatTheKernelFound) {
    KPC_PMU_REQUIRE_GUEST();
    std::string line;
    int total = boot_log_counters(&line);
    ASSERT_GT(total, 1) << "the guest's boot log has no Arm PMU line with a counter count ("
                        << line << "); the truth this test needs is missing";
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    uint32_t fixed = 99, configurable = 99;
    ASSERT_EQ(kp_sampler_counter_count(&fixed, &configurable, s), KP_OK) << kp_error_last_message();
    std::printf("boot log: %s\nlibkpc: %u fixed, %u configurable\n", line.c_str(), fixed, configurable);
    EXPECT_EQ(fixed, 1u);  // the cycle counter
    EXPECT_EQ(fixed + configurable, static_cast<uint32_t>(total));
    kp_sampler_free(s);
}

}  // namespace
