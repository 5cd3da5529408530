# Runs a Homebrew formula's `install` and `test` blocks without Homebrew, so CI on Linux
# proves the formula builds, installs and passes its own test against this source tree.
#
# It is a stand-in for the small part of the Formula DSL that packaging/homebrew/kpc.rb
# uses, with Homebrew's documented behaviour: `std_cmake_args` gives a Release build into
# the keg prefix, builds run in a staged copy of the sources, `test do` runs in a fresh
# temporary directory. Any other DSL call is an error, so a formula that grows beyond what
# is checked here fails loudly instead of being half-tested.
#
# usage: ruby formula_shim.rb FORMULA SOURCE_DIR WORK_DIR
require "fileutils"
require "open3"
require "pathname"

module Shim
  class Failure < StandardError; end

  # Homebrew's license DSL ("MIT", any_of: [...], all_of: [...]) as an SPDX expression.
  def self.spdx(license)
    case license
    when String then license
    when Hash
      raise Failure, "license #{license.inspect}: one of any_of/all_of expected" unless license.size == 1
      op, list = license.first
      joiner = { any_of: " OR ", all_of: " AND " }[op]
      raise Failure, "license #{op}: not modelled by this shim" unless joiner && list.is_a?(Array)
      list.map { |l| spdx(l) }.join(joiner)
    else
      raise Failure, "license #{license.inspect}: not modelled by this shim"
    end
  end

  def self.run!(*cmd, chdir:)
    puts "==> #{cmd.join(' ')}"
    out, status = Open3.capture2e(*cmd.map(&:to_s), chdir: chdir.to_s)
    puts out
    raise Failure, "command failed (#{status.exitstatus}): #{cmd.join(' ')}" unless status.success?
    out
  end
end

# ENV.cc: the C compiler Homebrew would use.
class << ENV
  def cc
    ENV.fetch("CC", "cc")
  end
end

class Formula
  class << self
    attr_reader :meta

    def record(key, value)
      (@meta ||= {})[key] = value
    end

    def desc(text) = record(:desc, text)
    def homepage(url) = record(:homepage, url)
    def url(url, **opts) = record(:url, [url, opts])
    def sha256(sum) = record(:sha256, sum)
    def license(spdx) = record(:license, spdx)
    def head(url, **opts) = record(:head, [url, opts])

    def depends_on(spec)
      (@meta ||= {})[:depends_on] = (@meta[:depends_on] || []) << spec
    end

    def test(&block) = record(:test, block)

    def method_missing(name, *args)
      raise Shim::Failure, "formula uses '#{name}', which this shim does not model; " \
                           "extend tests/homebrew/formula_shim.rb with Homebrew's behaviour"
    end

    def respond_to_missing?(*) = false
  end

  attr_reader :prefix, :testpath

  def initialize(prefix)
    @prefix = Pathname(prefix)
  end

  def bin = prefix/"bin"
  def lib = prefix/"lib"
  def include = prefix/"include"

  # Homebrew's standard CMake arguments (Formula#std_cmake_args), minus macOS-only ones.
  def std_cmake_args
    %W[
      -DCMAKE_INSTALL_PREFIX=#{prefix}
      -DCMAKE_INSTALL_LIBDIR=lib
      -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_FIND_FRAMEWORK=LAST
      -DCMAKE_VERBOSE_MAKEFILE=ON
      -Wno-dev
      -DBUILD_TESTING=OFF
    ]
  end

  def system(*cmd)
    Shim.run!(*cmd, chdir: Dir.pwd)
    true
  end

  def shell_output(cmd, expected_status = 0)
    out, status = Open3.capture2e(cmd)
    unless status.exitstatus == expected_status
      raise Shim::Failure, "'#{cmd}' exited #{status.exitstatus}, expected #{expected_status}:\n#{out}"
    end
    out
  end

  def assert_match(pattern, text)
    raise Shim::Failure, "expected #{pattern.inspect} to match #{text.inspect}" unless pattern.match?(text)
  end

  def run_test(dir)
    @testpath = Pathname(dir)
    Dir.chdir(dir) { instance_exec(&self.class.meta.fetch(:test)) }
  end
end

formula_path, source_dir, work_dir = ARGV
abort "usage: ruby formula_shim.rb FORMULA SOURCE_DIR WORK_DIR" unless work_dir
begin
  load formula_path
  klass = Formula.subclasses.first or raise Shim::Failure, "#{formula_path} defines no Formula"
  meta = klass.meta || {}
  %i[desc homepage].each { |k| raise Shim::Failure, "formula has no #{k}" unless meta[k] }
  raise Shim::Failure, "formula has neither url nor head" unless meta[:url] || meta[:head]
  raise Shim::Failure, "a url needs its sha256" if meta[:url] && !meta[:sha256]
  raise Shim::Failure, "formula has no test block" unless meta[:test]
  # brew audit --new requires a license; it must say what the source tree's LICENSE says.
  raise Shim::Failure, "formula has no license" unless meta[:license]
  tree_spdx = File.read(File.join(source_dir, "LICENSE"))[/SPDX-License-Identifier: *(.+)$/, 1]
  raise Shim::Failure, "#{source_dir}/LICENSE has no SPDX-License-Identifier line" unless tree_spdx
  unless Shim.spdx(meta[:license]) == tree_spdx.strip
    raise Shim::Failure, "formula license #{meta[:license].inspect} is '#{Shim.spdx(meta[:license])}'; " \
                         "LICENSE says '#{tree_spdx.strip}'"
  end

  FileUtils.rm_rf(work_dir)
  stage = File.join(work_dir, "stage")
  keg = File.join(work_dir, "keg")
  testdir = File.join(work_dir, "test")
  FileUtils.mkdir_p([stage, testdir])
  # Homebrew unpacks a release tarball or a clean checkout: copy the files git would ship
  # (tracked, or new and not ignored), never build trees; without git, all but build dirs.
  files, status = Open3.capture2("git", "-C", source_dir, "ls-files", "-z", "--cached",
                                 "--others", "--exclude-standard")
  if status.success?
    files.split("\0").each do |rel|
      src = File.join(source_dir, rel)
      next unless File.file?(src)
      dst = File.join(stage, rel)
      FileUtils.mkdir_p(File.dirname(dst))
      FileUtils.cp(src, dst, preserve: true)
    end
  else
    Dir.children(source_dir).each do |entry|
      next if entry.start_with?("build", ".git", ".build", ".swiftpm", ".cache")
      FileUtils.cp_r(File.join(source_dir, entry), stage)
    end
  end
  ENV["MAKEFLAGS"] ||= "-j#{ENV.fetch('KPC_JOBS', '2')}"  # Homebrew sets -j<cores> too
  formula = klass.new(keg)
  Dir.chdir(stage) { formula.install }
  formula.run_test(testdir)
  puts "formula install and test blocks passed"
rescue Shim::Failure => e
  warn "FAILED: #{e.message}"
  exit 1
end
