"""The loader's order, and errors that name every path tried."""
import os
import subprocess
import sys

import pytest

import libkpc
from libkpc import _native


def test_kpc_library_is_the_only_candidate_when_set(tmp_path):
    assert _native.candidates({"KPC_LIBRARY": "/x/libkpc.so.0"}, str(tmp_path)) == ["/x/libkpc.so.0"]


def test_bundled_copy_comes_before_the_system(tmp_path):
    paths = _native.candidates({}, str(tmp_path))
    assert paths[0].startswith(str(tmp_path) + os.sep)
    assert any(os.sep not in p for p in paths)  # then dlopen's own search by file name
    first_system = next(i for i, p in enumerate(paths) if os.sep not in p)
    assert all(p.startswith(str(tmp_path)) for p in paths[:first_system])


def test_failure_names_every_path_tried(tmp_path, monkeypatch):
    monkeypatch.setattr(_native, "_LIBRARY_FILES", ("libkpc-missing-for-test.so.0",))
    monkeypatch.setattr(_native, "_SYSTEM_DIRS", ("/nonexistent-lib-dir",))
    with pytest.raises(libkpc.LibraryNotFoundError) as info:
        _native.load({}, str(tmp_path))
    text = str(info.value)
    for path in (str(tmp_path / "libkpc-missing-for-test.so.0"), "libkpc-missing-for-test.so.0",
                 "/nonexistent-lib-dir/libkpc-missing-for-test.so.0"):
        assert path in text
    assert len(info.value.tried) == 3
    assert "KPC_LIBRARY" in text  # the fix


def test_bad_kpc_library_is_an_error_not_a_fallback(tmp_path):
    env = dict(os.environ, KPC_LIBRARY=str(tmp_path / "nope.so"))
    code = "import libkpc\ntry:\n libkpc.Sampler()\nexcept libkpc.LibraryNotFoundError as e:\n print(e)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert str(tmp_path / "nope.so") in out.stdout and "from KPC_LIBRARY" in out.stdout


def test_not_a_library_quotes_dlopen(tmp_path):
    fake = tmp_path / "libkpc.so.0"
    fake.write_text("not an ELF file")
    with pytest.raises(libkpc.LibraryNotFoundError) as info:
        _native.load({"KPC_LIBRARY": str(fake)})
    assert str(fake) in str(info.value) and info.value.tried[0][1] != "no such file"
