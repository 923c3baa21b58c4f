"""Unit tests of scripts/check_model_deps.py on a small made-up project: a
model that links only the hardware layer and the formats passes; a model that
links the driver (directly or through the hardware layer), includes a driver
header, or names one that is not even on its include path fails, and the
message names the target chain or the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / "scripts" / "check_model_deps.py"


class Project:
    """A source tree with cpp-model/, sw-driver/hw, sw-driver/driver and a
    build tree with a generated header, plus the two files CMake writes."""

    def __init__(self, tmp: Path):
        self.src = tmp / "src"
        self.build = tmp / "build"
        self.links = {
            "model": ["hw", "$<LINK_ONLY:warnings>"],
            "model_tool": ["model::@(0x1234)", "CLI11::CLI11"],
            "hw": ["formats"],
            "driver": ["hw"],
            "formats": [],
            "warnings": [],
        }
        self.dirs = {
            "model": "cpp-model/barrier",
            "model_tool": "cpp-model/barrier",
            "hw": "sw-driver/hw",
            "driver": "sw-driver/driver",
            "formats": "rtl/spec",
            "warnings": ".",
        }
        self.write("cpp-model/barrier/include/syncfab/model/engine.hpp",
                   "#pragma once\n#include <syncfab/hw/device.hpp>\n#include <vector>\n")
        self.write("cpp-model/barrier/src/engine.cpp",
                   '#include "syncfab/model/engine.hpp"\n#include <syncfab/fmt/formats.hpp>\n')
        self.write("sw-driver/hw/include/syncfab/hw/device.hpp", "#pragma once\n#include <cstdint>\n")
        self.write("sw-driver/driver/include/syncfab/driver/nic.hpp",
                   "#pragma once\n#include <syncfab/hw/device.hpp>\n")
        (self.build / "generated/include/syncfab/fmt").mkdir(parents=True)
        (self.build / "generated/include/syncfab/fmt/formats.hpp").write_text("#include <array>\n")

    def write(self, rel: str, text: str) -> None:
        p = self.src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)

    def include_path(self, name: str) -> list[Path]:
        own = {
            "model": [self.src / "cpp-model/barrier/include"],
            "model_tool": [],
            "hw": [self.src / "sw-driver/hw/include"],
            "driver": [self.src / "sw-driver/driver/include"],
            "formats": [self.build / "generated/include"],
            "warnings": [],
        }
        out: list[Path] = []
        seen = {name}
        todo = [name]
        while todo:
            t = todo.pop()
            out += [d for d in own[t] if d not in out]
            for dep in (d.split("::@")[0] for d in self.links[t]):
                if dep in own and dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        return out

    def run(self) -> subprocess.CompletedProcess[str]:
        targets, incs = [], []
        for name, deps in self.links.items():
            kind = "EXECUTABLE" if name == "model_tool" else "STATIC_LIBRARY"
            targets.append(f"target\t{name}\t{kind}\t{self.src / self.dirs[name]}")
            targets += [f"link\t{name}\t{d}" for d in deps]
            path = ";".join(str(d) for d in self.include_path(name))
            incs.append(f"include\t{name}\t{path}")
            if kind != "EXECUTABLE":
                incs.append(f"offers\t{name}\t{path}")
        self.build.mkdir(parents=True, exist_ok=True)
        (self.build / "targets.txt").write_text("\n".join(targets) + "\n")
        (self.build / "include_dirs.txt").write_text("\n".join(incs) + "\n")
        return subprocess.run(
            [sys.executable, str(CHECKER),
             "--targets", str(self.build / "targets.txt"),
             "--include-dirs", str(self.build / "include_dirs.txt"),
             "--source-dir", str(self.src), "--binary-dir", str(self.build),
             "--check-dir", "cpp-model", "--check-dir", "sw-driver/hw",
             "--allow", "formats", "--allow", "warnings"],
            capture_output=True, text=True, check=False)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_clean_model_passes(project: Project) -> None:
    r = project.run()
    assert r.returncode == 0, r.stderr
    assert "hw, model, model_tool" in r.stdout


def test_model_linking_the_driver_fails(project: Project) -> None:
    project.links["model"].append("driver")
    r = project.run()
    assert r.returncode == 1
    assert "model (cpp-model/barrier) links driver (sw-driver/driver): model -> driver" in r.stderr
    # The tool reaches it through the library; the chain says how.
    assert "model_tool -> model -> driver" in r.stderr


def test_private_link_in_a_genex_is_seen(project: Project) -> None:
    project.links["model"].append("$<LINK_ONLY:driver>")
    r = project.run()
    assert r.returncode == 1
    assert "model -> driver" in r.stderr


def test_driver_through_the_hardware_layer_fails(project: Project) -> None:
    project.links["hw"].append("driver")
    r = project.run()
    assert r.returncode == 1
    assert "model -> hw -> driver" in r.stderr


def test_driver_header_on_the_path_fails(project: Project) -> None:
    project.links["model"].append("driver")
    project.write("cpp-model/barrier/src/engine.cpp",
                  '#include "syncfab/model/engine.hpp"\n#include <syncfab/driver/nic.hpp>\n')
    r = project.run()
    assert r.returncode == 1
    assert ("cpp-model/barrier/src/engine.cpp includes syncfab/driver/nic.hpp = "
            "sw-driver/driver/include/syncfab/driver/nic.hpp") in r.stderr


def test_driver_header_off_the_path_fails(project: Project) -> None:
    project.write("cpp-model/barrier/include/syncfab/model/engine.hpp",
                  "#pragma once\n  #  include <syncfab/driver/nic.hpp>\n")
    r = project.run()
    assert r.returncode == 1
    assert ("cpp-model/barrier/include/syncfab/model/engine.hpp includes syncfab/driver/nic.hpp "
            "= sw-driver/driver/include/syncfab/driver/nic.hpp (not on its path)") in r.stderr


def test_relative_include_out_of_the_model_fails(project: Project) -> None:
    project.write("cpp-model/barrier/src/engine.cpp",
                  '#include "../../../sw-driver/driver/include/syncfab/driver/nic.hpp"\n')
    r = project.run()
    assert r.returncode == 1
    assert "engine.cpp includes ../../../sw-driver" in r.stderr


def test_missing_inputs_are_an_error(project: Project) -> None:
    r = subprocess.run(
        [sys.executable, str(CHECKER), "--targets", "/nonexistent", "--include-dirs", "/x",
         "--source-dir", str(project.src), "--binary-dir", str(project.build),
         "--check-dir", "cpp-model"],
        capture_output=True, text=True, check=False)
    assert r.returncode == 2
    assert "is missing" in r.stderr


def test_allowing_an_unknown_target_is_an_error(project: Project) -> None:
    project.run()  # writes the input files
    r = subprocess.run(
        [sys.executable, str(CHECKER),
         "--targets", str(project.build / "targets.txt"),
         "--include-dirs", str(project.build / "include_dirs.txt"),
         "--source-dir", str(project.src), "--binary-dir", str(project.build),
         "--check-dir", "cpp-model", "--allow", "syncfab_formts"],
        capture_output=True, text=True, check=False)
    assert r.returncode == 2
    assert "--allow names no target: syncfab_formts" in r.stderr
