// Loads kperf.framework and kperfdata.framework by path and fills the kp_kperf_api_t table
// (include/kpc/kperf_raw.h) with their functions.
#pragma once

#include <string>

#include "kpc/kperf_raw.h"

namespace kpc::kperf {

// A dlopen() handle, closed on destruction.
class Library {
public:
    Library() = default;
    ~Library();
    Library(const Library &) = delete;
    Library &operator=(const Library &) = delete;
    // Throws KP_ELOAD naming `path`, quoting dlerror() and saying how to fix it.
    void open(const std::string &path, const char *framework, const char *env_var);
    void *handle() const { return handle_; }
    const std::string &path() const { return path_; }

private:
    void *handle_ = nullptr;
    std::string path_;
};

// Both frameworks and the table of their functions. Every symbol counting needs is
// resolved or the constructor throws KP_ELOAD naming it; optional ones may stay NULL.
class Frameworks {
public:
    Frameworks(const std::string &kperf_path, const std::string &kperfdata_path);
    const kp_kperf_api_t &api() const { return api_; }
    void *kperf_handle() const { return kperf_.handle(); }

private:
    Library kperf_, kperfdata_;
    kp_kperf_api_t api_{};
};

}  // namespace kpc::kperf
