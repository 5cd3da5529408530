# kpc_alloc_counter: tests/alloc/alloc_counter.cpp (a counting replacement of the heap
# allocator, see alloc_counter.hpp) as an object library, for the zero-allocation test and
# the benchmarks that print allocation counts. Linking it replaces the executable's
# allocator. It is never instrumented: the shim runs before a sanitizer runtime has set up
# its shadow memory (ASan's own start-up allocates).
if(NOT TARGET kpc_alloc_counter)
  add_library(kpc_alloc_counter OBJECT ${PROJECT_SOURCE_DIR}/tests/alloc/alloc_counter.cpp)
  target_include_directories(kpc_alloc_counter PUBLIC ${PROJECT_SOURCE_DIR}/tests/alloc)
  target_compile_options(kpc_alloc_counter PRIVATE -fno-sanitize=all -Wall -Wextra
                         $<$<BOOL:${KPC_WERROR}>:-Werror>)
endif()
