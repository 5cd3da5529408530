#!/usr/bin/env python3
"""Checks .github/workflows/macos.yml, which cannot run on this project's Linux CI.

usage: lint_workflow.py REPO_ROOT

  - it parses as YAML and has the keys GitHub Actions requires (on, jobs, runs-on, steps);
  - runs-on is a GitHub-hosted macOS label, and the only action used is actions/checkout@v4;
  - every `run:` is one line that runs one script under scripts/ci/ (directly or through
    python3), and that script exists, is executable and starts with a #! line;
  - every such script is also named in tests/ci/CMakeLists.txt, i.e. run by CTest on Linux,
    unless it is listed below as one that only makes sense on macOS.
"""
import os
import shlex
import sys

try:
    import yaml
except ImportError:
    sys.exit("python3 has no yaml module: apt-get install python3-yaml (scripts/install-deps.sh)")

# GitHub-hosted macOS runner labels (Apple Silicon); see GitHub's runner-images list.
MACOS_LABELS = {"macos-14", "macos-15", "macos-latest"}
ACTIONS = {"actions/checkout@v4"}
# Steps the Linux suite does not run: installing with Homebrew, and the build the suite
# itself is (scripts/test.sh configures and builds the same way).
MAC_ONLY = {"scripts/ci/deps.sh", "scripts/ci/build.sh"}

errors = []


def error(msg):
    errors.append(msg)


def script_of(cmd):
    words = shlex.split(cmd)
    if words and words[0] in ("python3", "sh", "bash"):
        words = words[1:]
    return words[0] if words and words[0].startswith("scripts/ci/") else None


def check_script(root, path, step):
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        return error(f"step '{step}': {path} does not exist")
    if not os.access(full, os.X_OK):
        error(f"step '{step}': {path} is not executable (chmod +x)")
    with open(full, encoding="utf-8") as f:
        if not f.readline().startswith("#!"):
            error(f"step '{step}': {path} has no #! line")


def main(root):
    path = os.path.join(root, ".github", "workflows", "macos.yml")
    with open(path, encoding="utf-8") as f:
        wf = yaml.safe_load(f)
    # YAML 1.1 reads the key `on` as the boolean true.
    triggers = wf.get("on", wf.get(True))
    if not isinstance(triggers, dict) or not {"push", "pull_request"} <= set(triggers):
        error("the workflow must run on push and pull_request")
    jobs = wf.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        sys.exit(f"{path}: no jobs")
    with open(os.path.join(root, "tests", "ci", "CMakeLists.txt"), encoding="utf-8") as f:
        ctest_text = f.read()
    scripts = set()
    for job_name, job in jobs.items():
        if job.get("runs-on") not in MACOS_LABELS:
            error(f"job {job_name}: runs-on {job.get('runs-on')!r} is not one of {sorted(MACOS_LABELS)}")
        steps = job.get("steps") or []
        if not steps or steps[0].get("uses") not in ACTIONS:
            error(f"job {job_name}: the first step must check the repository out (actions/checkout@v4)")
        for step in steps:
            name = step.get("name") or step.get("uses") or "?"
            if "uses" in step:
                if step["uses"] not in ACTIONS:
                    error(f"step '{name}': action {step['uses']} is not one this lint knows")
                continue
            cmd = step.get("run")
            if not isinstance(cmd, str) or "\n" in cmd.strip():
                error(f"step '{name}': run must be one command line")
                continue
            script = script_of(cmd)
            if script is None:
                error(f"step '{name}': '{cmd}' does not run a script under scripts/ci/")
                continue
            check_script(root, script, name)
            scripts.add(script)
    for script in sorted(scripts - MAC_ONLY):
        if os.path.basename(script) not in ctest_text:
            error(f"{script} runs on macOS but no CTest test in tests/ci runs it on Linux")
    for e in errors:
        print(f"{path}: {e}")
    if errors:
        return 1
    print(f"{path}: {len(jobs)} job(s), {len(scripts)} scripts, all present and executable")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
