// kpsim_dlopen_probe <libkperf_sim.so> <libkperfdata_sim.so> <expected db name> <expected cpu string>
//
// Loads both simulator libraries the way libkpc does (dlopen, RTLD_LOCAL, no link-time
// dependency) and checks that kpep_db_create(NULL) and kpc_cpu_string agree with the chip
// chosen through KPSIM_DB, and that kpsim_data_set_db moves the kernel too.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

namespace {
int failures = 0;
void check(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        ++failures;
    }
}
template <typename T>
T sym(void *h, const char *name) {
    void *p = dlsym(h, name);
    if (p == nullptr) {
        std::fprintf(stderr, "FAIL: missing symbol %s\n", name);
        ++failures;
    }
    return reinterpret_cast<T>(p);
}
}  // namespace

int main(int argc, char **argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s kperf kperfdata db cpu_string\n", argv[0]);
        return 2;
    }
    void *kperf = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *data = dlopen(argv[2], RTLD_LAZY | RTLD_LOCAL);
    if (kperf == nullptr || data == nullptr) {
        std::fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
        return 1;
    }
    auto cpu_string = sym<int (*)(char *, size_t)>(kperf, "kpc_cpu_string");
    auto db_create = sym<int (*)(const char *, void **)>(data, "kpep_db_create");
    auto db_name = sym<int (*)(void *, const char **)>(data, "kpep_db_name");
    auto db_free = sym<void (*)(void *)>(data, "kpep_db_free");
    auto set_db = sym<int (*)(const char *)>(data, "kpsim_data_set_db");
    if (failures) return 1;

    char buf[64] = {};
    check(cpu_string(buf, sizeof buf) == static_cast<int>(std::strlen(argv[4])), "kpc_cpu_string length");
    check(std::strcmp(buf, argv[4]) == 0, "kpc_cpu_string matches KPSIM_DB");

    void *db = nullptr;
    const char *name = nullptr;
    check(db_create(nullptr, &db) == 0 && db != nullptr, "kpep_db_create(NULL)");
    check(db_name(db, &name) == 0 && name != nullptr, "kpep_db_name");
    // kpep_db_name() gives the marketing name (strict default); the struct's name field,
    // at offset 0 in both layouts, keeps the short name.
    name = *static_cast<const char *const *>(db);
    check(name && std::strcmp(name, argv[3]) == 0, "db name field matches KPSIM_DB");
    // The struct's event stride tells the layout: 48 bytes for the legacy database.
    db_free(db);

    // Moving the data library's db must move the kernel (found through RTLD_NOLOAD).
    check(set_db("a15") == 0, "kpsim_data_set_db(a15)");
    check(cpu_string(buf, sizeof buf) > 0 && std::strcmp(buf, "cpu_100000c_2_da33d83d") == 0,
          "kernel follows kpsim_data_set_db");
    db = nullptr;
    check(db_create(nullptr, &db) == 0 && db_name(db, &name) == 0 &&
              std::strcmp(name, "Apple A15") == 0 &&
              std::strcmp(*static_cast<const char *const *>(db), "a15") == 0,
          "kpep_db_create(NULL) follows kpsim_data_set_db");
    db_free(db);
    if (failures == 0) std::printf("ok\n");
    return failures ? 1 : 0;
}
