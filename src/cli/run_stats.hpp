// Mean and spread of a quantity over the runs of kpc stat -r N.
#pragma once

#include <vector>

namespace kpc_cli {

struct Summary {
    double mean = 0;
    double stddev = 0;      // sample standard deviation (n-1); 0 for a single run
    double stddev_pct = 0;  // stddev as a percentage of the mean; 0 when the mean is 0
    double min = 0;
    double max = 0;
    std::vector<double> values;  // one per run, in run order
};

// Summary of `values` (empty gives all zeros).
Summary summarize(const std::vector<double> &values);

}  // namespace kpc_cli
