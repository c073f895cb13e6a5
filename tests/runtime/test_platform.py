"""Tests of runtime.platform: the probe's manifest fields (driver version, clocks)."""

from pathlib import Path

from runtime.platform import driver_version, parse_clocks, probe


def test_driver_version_nvidia(tmp_path: Path) -> None:
    f = tmp_path / "version"
    f.write_text("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
                 "Build  (dvs-builder@U16-I3-B14-2-1)  Thu Oct  2 2025\nGCC version:  gcc 13\n")
    assert driver_version(str(f), str(tmp_path / "none")) == "580.159.04"
    g = tmp_path / "legacy"
    g.write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 2023\n")
    assert driver_version(str(g), str(tmp_path / "none")) == "535.104.05"


def test_driver_version_amd_and_none(tmp_path: Path) -> None:
    a = tmp_path / "amdgpu"
    a.write_text("6.8.5\n")
    assert driver_version(str(tmp_path / "none"), str(a)) == "6.8.5"
    assert driver_version(str(tmp_path / "none"), str(tmp_path / "none2")) is None


def test_parse_clocks() -> None:
    assert parse_clocks("1980, 3201, 1980, 3201\n") == {
        "sm_mhz": 1980, "mem_mhz": 3201, "max_sm_mhz": 1980, "max_mem_mhz": 3201}
    assert parse_clocks("[N/A], 3201, 1980, 3201\n") is None
    assert parse_clocks("") is None
    assert parse_clocks("1, 2, 3\n") is None


def test_probe_has_manifest_fields() -> None:
    info = probe()
    assert "driver" in info and "clocks" in info
    if info["backend"] == "cpu":
        assert info["driver"] is None and info["clocks"] is None
