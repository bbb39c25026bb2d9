"""The PEP 517 build backend of `commonly-cap`, in the standard library only.

Why not setuptools or flit: with build isolation (pip's default) pip installs `build-system.requires`
from a package index before building, and none is reachable where this SDK is tested and often where
drivers run. A backend in the source tree (`backend-path`) with `requires = []` needs nothing: pip
imports this file and calls the hooks below. The package is pure Python, so a wheel is a zip of
`cap_sdk/` plus three metadata files (PEP 427, PEP 566) and the license text (PEP 639), and an sdist a tar
of the source tree.

It reads its metadata from `pyproject.toml` (tomllib on Python >= 3.11, a reader of the few TOML forms
that file uses on 3.9/3.10) and must never write outside the directories pip hands it.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "cap_sdk"
# Fixed timestamp so two builds of the same tree give the same bytes (1980-01-01, the zip epoch).
EPOCH = (1980, 1, 1, 0, 0, 0)


def _read_toml_subset(text: str) -> dict:
    """Tables, `key = "string"` and `key = [ "strings" ]` (one line or several): what pyproject.toml uses."""
    data: dict = {}
    table = data
    lines = iter(text.splitlines())
    for line in lines:
        line = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if not line:
            continue
        header = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
        if header:
            table = data
            for part in header.group(1).split("."):
                table = table.setdefault(part, {})
            continue
        key, _, value = (s.strip() for s in line.partition("="))
        if value.startswith("[") and not value.endswith("]"):
            for more in lines:
                value += more.strip()
                if more.strip().endswith("]"):
                    break
        if value.startswith("["):
            table[key] = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
        elif value.startswith('"'):
            table[key] = value[1:-1].replace('\\"', '"')
        else:
            raise ValueError(f"pyproject.toml: cannot read {key} = {value} (cap_build reads strings and lists)")
    return data


def _project() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    try:
        import tomllib  # Python >= 3.11
    except ImportError:
        return _read_toml_subset(text)["project"]
    return tomllib.loads(text)["project"]


def _dist_name(project: dict) -> str:
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _license_files(project: dict) -> list:
    """PEP 639 `license-files`: the license texts shipped in the sdist and under the wheel's .dist-info/licenses/."""
    files = project.get("license-files", [])
    for name in files:
        if not os.path.isfile(os.path.join(ROOT, name)):
            raise FileNotFoundError(f"pyproject.toml license-files names {name}, which is not in {ROOT}")
    return files


def _metadata(project: dict) -> str:
    # 2.4 is the first metadata version with License-Expression and License-File (PEP 639).
    lines = [
        "Metadata-Version: 2.4",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
        f"License-Expression: {project['license']}",
        f"Keywords: {','.join(project.get('keywords', []))}",
    ]
    lines += [f"License-File: {name}" for name in _license_files(project)]
    lines += [f"Project-URL: {label}, {url}" for label, url in project.get("urls", {}).items()]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(ROOT, project["readme"]), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join(lines) + "\n\n" + readme


def _package_files() -> list:
    """Every file of the import package, sorted; caches and editor droppings left out."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo", "~")):
                continue
            path = os.path.join(folder, name)
            found.append(os.path.relpath(path, ROOT).replace(os.sep, "/"))
    return found


def _dist_info_files(project: dict, editable: bool = False) -> dict:
    tag = "py3-none-any"
    wheel = f"Wheel-Version: 1.0\nGenerator: cap_build\nRoot-Is-Purelib: true\nTag: {tag}\n"
    return {"METADATA": _metadata(project), "WHEEL": wheel}


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(directory: str, entries: list) -> str:
    project = _project()
    dist = _dist_name(project)
    info = f"{dist}-{project['version']}.dist-info"
    for name, data in _dist_info_files(project).items():
        entries.append((f"{info}/{name}", data.encode()))
    for name in _license_files(project):
        with open(os.path.join(ROOT, name), "rb") as f:
            entries.append((f"{info}/licenses/{name}", f.read()))
    record = [_record_line(n, d) for n, d in entries] + [f"{info}/RECORD,,"]
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    filename = f"{dist}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for name, data in entries:
            item = zipfile.ZipInfo(name, EPOCH)
            item.external_attr = 0o644 << 16
            item.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(item, data)
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = _project()
    info = f"{_dist_name(project)}-{project['version']}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for name, data in _dist_info_files(project).items():
        with open(os.path.join(metadata_directory, info, name), "w", encoding="utf-8") as f:
            f.write(data)
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    entries = []
    for name in _package_files():
        with open(os.path.join(ROOT, name), "rb") as f:
            entries.append((name, f.read()))
    return _write_wheel(wheel_directory, entries)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel holding one .pth file that puts this source tree on sys.path."""
    return _write_wheel(wheel_directory, [("commonly_cap_editable.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    files = ["pyproject.toml", project["readme"], *_license_files(project), "_build/cap_build.py"] + _package_files()
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name in files:
            with open(os.path.join(ROOT, name), "rb") as f:
                data = f.read()
            item = tarfile.TarInfo(f"{base}/{name}")
            item.size, item.mode, item.mtime = len(data), 0o644, 315532800
            tar.addfile(item, io.BytesIO(data))
        pkg_info = _metadata(project).encode()
        item = tarfile.TarInfo(f"{base}/PKG-INFO")
        item.size, item.mode, item.mtime = len(pkg_info), 0o644, 315532800
        tar.addfile(item, io.BytesIO(pkg_info))
    return filename
