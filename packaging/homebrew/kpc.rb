# Homebrew formula for libkpc: the shared library, its headers, pkg-config file, CMake
# package and the kpc command-line tool.
#
# Until the first tagged release this formula builds from the main branch only
# (`brew install --HEAD`); packaging/homebrew/README.md says how to install it from a local
# tap and what a release adds (url, sha256, livecheck). tests/homebrew runs this file's
# install and test blocks on Linux through a stand-in for the Formula DSL.
class Kpc < Formula
  desc "Per-thread CPU performance counters (Apple Silicon kperf, Linux perf_event)"
  homepage "https://github.com/libkpc/libkpc"
  license any_of: ["MIT", "Apache-2.0"]
  head "https://github.com/libkpc/libkpc.git", branch: "main"

  depends_on "cmake" => :build

  def install
    args = %w[
      -DKPC_BUILD_TESTS=OFF
      -DKPC_BUILD_BENCH=OFF
      -DKPC_BUILD_BINDINGS=OFF
      -DKPC_WITH_LIBPFM=OFF
    ]
    system "cmake", "-S", ".", "-B", "build", *args, *std_cmake_args
    system "cmake", "--build", "build"
    system "cmake", "--install", "build"
  end

  test do
    assert_match(/^kpc \d+\.\d+\.\d+$/, shell_output("#{bin}/kpc --version").strip)

    # Opening a sampler needs no privileges on either platform (counting needs root on
    # macOS), so this runs inside Homebrew's test sandbox.
    (testpath/"probe.c").write <<~C
      #include <kpc/kpc.h>
      #include <stdio.h>

      int main(void) {
          kp_sampler_t *s = NULL;
          if (kp_sampler_new(&s, NULL) != KP_OK) {
              fprintf(stderr, "%s\\n", kp_error_last_message());
              return 1;
          }
          printf("%s %s\\n", kp_sampler_backend_name(s), kp_version_string());
          kp_sampler_free(s);
          return 0;
      }
    C
    # The rpath lets the probe find libkpc on Linux too; on macOS it is harmless.
    system ENV.cc, "probe.c", "-I#{include}", "-L#{lib}", "-Wl,-rpath,#{lib}", "-lkpc", "-o", "probe"
    assert_match(/^(kperf|perf_event) \d+\.\d+\.\d+$/, shell_output("./probe").strip)
  end
end
