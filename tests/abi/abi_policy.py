"""Facts of docs/api-stability.md that the ABI checks share."""

# Public headers outside the stability promise: the raw layer mirrors Apple's private
# kperf/kperfdata layouts and function table, which Apple may change in any OS release.
# Their symbols carry the "raw" flag in docs/symbols.txt, and their structs are not
# held to the options-struct rule. A future experimental header is added here.
RAW_HEADERS = {"kperf_raw.h"}
