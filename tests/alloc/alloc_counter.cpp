// Allocation interposer behind alloc_counter.hpp. See the header for how it works.
#include "alloc_counter.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

using MallocFn = void *(*)(size_t);
using CallocFn = void *(*)(size_t, size_t);
using ReallocFn = void *(*)(void *, size_t);
using FreeFn = void (*)(void *);
using PosixMemalignFn = int (*)(void **, size_t, size_t);
using AlignedAllocFn = void *(*)(size_t, size_t);

MallocFn real_malloc;
CallocFn real_calloc;
ReallocFn real_realloc;
FreeFn real_free;
PosixMemalignFn real_posix_memalign;
AlignedAllocFn real_aligned_alloc;
AlignedAllocFn real_memalign;

std::atomic<bool> g_armed{false};
std::atomic<uint64_t> g_count{0};
std::atomic<size_t> g_first_size{0};
std::atomic<const void *> g_first_caller{nullptr};

// dlsym may allocate while we look the real functions up; those few requests are served
// from this buffer and never freed.
alignas(alignof(std::max_align_t)) char g_boot[8192];
size_t g_boot_used = 0;
bool g_resolving = false;

bool from_boot(const void *p) {
    return p >= static_cast<const void *>(g_boot) &&
           p < static_cast<const void *>(g_boot + sizeof g_boot);
}

void *boot_alloc(size_t n) {
    const size_t a = alignof(std::max_align_t);
    size_t start = (g_boot_used + a - 1) / a * a;
    if (start + n > sizeof g_boot) return nullptr;
    g_boot_used = start + n;
    return g_boot + start;
}

template <typename Fn>
Fn next(const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        std::fprintf(stderr, "alloc_counter: dlsym(RTLD_NEXT, %s) failed\n", name);
        std::abort();
    }
    return reinterpret_cast<Fn>(p);
}

// First allocation happens during start-up, before any second thread exists.
bool resolve() {
    if (real_malloc) return true;
    if (g_resolving) return false;
    g_resolving = true;
    real_calloc = next<CallocFn>("calloc");
    real_realloc = next<ReallocFn>("realloc");
    real_free = next<FreeFn>("free");
    real_posix_memalign = next<PosixMemalignFn>("posix_memalign");
    real_aligned_alloc = next<AlignedAllocFn>("aligned_alloc");
    real_memalign = next<AlignedAllocFn>("memalign");
    real_malloc = next<MallocFn>("malloc");
    g_resolving = false;
    return true;
}

inline void note(size_t size, const void *caller) {
    if (!g_armed.load(std::memory_order_relaxed)) return;
    if (g_count.fetch_add(1, std::memory_order_relaxed) == 0) {
        g_first_size.store(size, std::memory_order_relaxed);
        g_first_caller.store(caller, std::memory_order_relaxed);
    }
}

#define CALLER __builtin_return_address(0)

void *counted_new(size_t size, const void *caller) {
    note(size, caller);
    if (!resolve()) return boot_alloc(size ? size : 1);
    return real_malloc(size ? size : 1);
}

void *counted_aligned_new(size_t size, size_t align, const void *caller) {
    note(size, caller);
    resolve();
    void *p = nullptr;
    if (real_posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align,
                            size ? size : 1) != 0)
        p = nullptr;
    return p;
}

void release(void *p) {
    if (!p || from_boot(p)) return;
    resolve();
    real_free(p);
}

}  // namespace

namespace kpc_alloc {

void begin() noexcept {
    g_count.store(0, std::memory_order_relaxed);
    g_first_size.store(0, std::memory_order_relaxed);
    g_first_caller.store(nullptr, std::memory_order_relaxed);
    g_armed.store(true, std::memory_order_seq_cst);
}

Stats end() noexcept {
    g_armed.store(false, std::memory_order_seq_cst);
    Stats s;
    s.count = g_count.load(std::memory_order_relaxed);
    s.first_size = g_first_size.load(std::memory_order_relaxed);
    s.first_caller = g_first_caller.load(std::memory_order_relaxed);
    return s;
}

std::string describe(const Stats &s) {
    char buf[512];
    if (s.count == 0) return "no heap allocations";
    Dl_info info;
    std::memset(&info, 0, sizeof info);
    if (s.first_caller && dladdr(s.first_caller, &info) && info.dli_fname) {
        const char *base = static_cast<const char *>(info.dli_fbase);
        std::snprintf(buf, sizeof buf,
                      "%llu heap allocation(s); the first asked for %zu bytes, called from "
                      "%s+0x%zx (%s); resolve with addr2line -Cfe <that file> 0x%zx",
                      static_cast<unsigned long long>(s.count), s.first_size, info.dli_fname,
                      static_cast<size_t>(static_cast<const char *>(s.first_caller) - base),
                      info.dli_sname ? info.dli_sname : "symbol not exported",
                      static_cast<size_t>(static_cast<const char *>(s.first_caller) - base));
    } else {
        std::snprintf(buf, sizeof buf, "%llu heap allocation(s); the first asked for %zu bytes",
                      static_cast<unsigned long long>(s.count), s.first_size);
    }
    return buf;
}

}  // namespace kpc_alloc

// --- the interposed C allocator -------------------------------------------------------
extern "C" {

void *malloc(size_t size) {
    note(size, CALLER);
    if (!resolve()) return boot_alloc(size);
    return real_malloc(size);
}

void *calloc(size_t n, size_t size) {
    note(n * size, CALLER);
    if (!resolve()) {
        // The boot buffer is static storage, hence already zero.
        if (size && n > static_cast<size_t>(-1) / size) return nullptr;
        return boot_alloc(n * size);
    }
    return real_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    note(size, CALLER);
    resolve();
    if (from_boot(p)) {
        // Boot blocks do not record their size: copy what can have been stored in one.
        const size_t room = sizeof g_boot - static_cast<size_t>(static_cast<char *>(p) - g_boot);
        void *q = real_malloc(size);
        if (q) std::memcpy(q, p, size < room ? size : room);
        return q;
    }
    return real_realloc(p, size);
}

void free(void *p) { release(p); }

int posix_memalign(void **out, size_t align, size_t size) {
    note(size, CALLER);
    resolve();
    return real_posix_memalign(out, align, size);
}

void *aligned_alloc(size_t align, size_t size) {
    note(size, CALLER);
    resolve();
    return real_aligned_alloc(align, size);
}

void *memalign(size_t align, size_t size) {
    note(size, CALLER);
    resolve();
    return real_memalign(align, size);
}

}  // extern "C"

// --- every replaceable operator new / delete ------------------------------------------
// Defined here too because a sanitizer runtime implements them without calling malloc.
void *operator new(size_t size) {
    void *p = counted_new(size, CALLER);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t size) {
    void *p = counted_new(size, CALLER);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new(size_t size, const std::nothrow_t &) noexcept { return counted_new(size, CALLER); }
void *operator new[](size_t size, const std::nothrow_t &) noexcept { return counted_new(size, CALLER); }
void *operator new(size_t size, std::align_val_t al) {
    void *p = counted_aligned_new(size, static_cast<size_t>(al), CALLER);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t size, std::align_val_t al) {
    void *p = counted_aligned_new(size, static_cast<size_t>(al), CALLER);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new(size_t size, std::align_val_t al, const std::nothrow_t &) noexcept {
    return counted_aligned_new(size, static_cast<size_t>(al), CALLER);
}
void *operator new[](size_t size, std::align_val_t al, const std::nothrow_t &) noexcept {
    return counted_aligned_new(size, static_cast<size_t>(al), CALLER);
}

void operator delete(void *p) noexcept { release(p); }
void operator delete[](void *p) noexcept { release(p); }
void operator delete(void *p, size_t) noexcept { release(p); }
void operator delete[](void *p, size_t) noexcept { release(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { release(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { release(p); }
void operator delete(void *p, std::align_val_t) noexcept { release(p); }
void operator delete[](void *p, std::align_val_t) noexcept { release(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { release(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { release(p); }
