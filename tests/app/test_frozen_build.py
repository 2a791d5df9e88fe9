"""The frozen build's checks (tests/frozen_build.py, run by make smoke)
find what they look for: a library shipped twice, every OpenBLAS."""

from tests.frozen_build import identical_copies, openblas_copies


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_same_library_twice_is_found_links_and_other_bytes_are_not(
        tmp_path):
    # same name and bytes (numpy.libs, scipy.libs); same name, other bytes
    _write(tmp_path / "numpy.libs" / "libgfortran-1.so.5", b"same")
    _write(tmp_path / "scipy.libs" / "libgfortran-1.so.5", b"same")
    _write(tmp_path / "a" / "libother.so", b"one build")
    _write(tmp_path / "b" / "libother.so", b"another build")
    (tmp_path / "libgfortran-1.so.5").symlink_to(
        "numpy.libs/libgfortran-1.so.5")
    # a wheel's version links, unpacked as files
    _write(tmp_path / "pyarrow" / "libarrow_python.so", b"arrow")
    _write(tmp_path / "pyarrow" / "libarrow_python.so.2600", b"arrow")
    assert identical_copies(tmp_path) == [
        ["numpy.libs/libgfortran-1.so.5", "scipy.libs/libgfortran-1.so.5"],
        ["pyarrow/libarrow_python.so", "pyarrow/libarrow_python.so.2600"]]


def test_every_openblas_is_counted_with_its_integer_interface(tmp_path):
    # the names numpy's (ILP64) and scipy's (LP64) wheels give them
    _write(tmp_path / "numpy.libs" / "libscipy_openblas64_-32a4b2a6.so",
           b"ilp64")
    _write(tmp_path / "scipy.libs" / "libscipy_openblas-6cdc3b4a.so",
           b"lp64")
    _write(tmp_path / "libopenblas.so.0", b"a system one")
    (tmp_path / "libscipy_openblas-6cdc3b4a.so").symlink_to(
        "scipy.libs/libscipy_openblas-6cdc3b4a.so")
    assert openblas_copies(tmp_path) == {
        "numpy.libs/libscipy_openblas64_-32a4b2a6.so": "ILP64",
        "libopenblas.so.0": "LP64",
        "scipy.libs/libscipy_openblas-6cdc3b4a.so": "LP64"}
