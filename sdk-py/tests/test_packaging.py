"""The in-tree build backend and the package's metadata: the wheel holds every file of cap_sdk (the
generated layer and py.typed included) with a valid RECORD, builds are reproducible, the TOML reader
used on Python 3.9/3.10 reads pyproject.toml as tomllib does, versions agree, and the README's error
table and the generated API reference are current."""
from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

import cap_sdk
from helpers.kernel import REPO

SDK = os.path.join(REPO, "sdk-py")


def backend():
    spec = importlib.util.spec_from_file_location("cap_build_under_test", os.path.join(SDK, "_build", "cap_build.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Packaging(unittest.TestCase):
    def setUp(self) -> None:
        self.backend = backend()
        self.tmp = tempfile.mkdtemp(prefix="cap-sdk-py-build-")

    def test_the_wheel_holds_every_package_file_with_a_valid_record(self) -> None:
        name = self.backend.build_wheel(self.tmp)
        self.assertEqual(name, f"commonly_cap-{cap_sdk.__version__}-py3-none-any.whl")
        with zipfile.ZipFile(os.path.join(self.tmp, name)) as whl:
            names = set(whl.namelist())
            for required in ("cap_sdk/__init__.py", "cap_sdk/py.typed", "cap_sdk/_generated/models.py", "cap_sdk/driver.py"):
                self.assertIn(required, names)
            self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")])
            info = f"commonly_cap-{cap_sdk.__version__}.dist-info"
            metadata = whl.read(f"{info}/METADATA").decode()
            self.assertIn("Name: commonly-cap\n", metadata)
            self.assertIn("Requires-Python: >=3.9\n", metadata)
            self.assertNotIn("Requires-Dist", metadata)
            record = whl.read(f"{info}/RECORD").decode().splitlines()
            for line in record:
                path, digest, size = line.rsplit(",", 2)
                if path.endswith("RECORD"):
                    continue
                data = whl.read(path)
                want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual((digest, int(size)), (f"sha256={want}", len(data)), path)
            self.assertEqual({line.rsplit(",", 2)[0] for line in record}, names)

    def test_the_wheel_and_the_sdist_carry_the_license_text_and_project_urls(self) -> None:
        with open(os.path.join(REPO, "LICENSE"), "rb") as f:
            license_text = f.read()
        self.assertIn(b"Apache License", license_text)
        wheel = self.backend.build_wheel(self.tmp)
        info = f"commonly_cap-{cap_sdk.__version__}.dist-info"
        with zipfile.ZipFile(os.path.join(self.tmp, wheel)) as whl:
            self.assertEqual(whl.read(f"{info}/licenses/LICENSE"), license_text)
            metadata = whl.read(f"{info}/METADATA").decode()
        for line in ("Metadata-Version: 2.4", "License-Expression: Apache-2.0", "License-File: LICENSE",
                     "Project-URL: Repository, https://github.com/commonly-ai/cap"):
            self.assertIn(f"{line}\n", metadata)
        self.assertNotIn("License: ", metadata)  # PEP 639: the expression replaces the free-text field
        sdist = self.backend.build_sdist(self.tmp)
        with tarfile.open(os.path.join(self.tmp, sdist)) as tar:
            base = sdist[: -len(".tar.gz")]
            self.assertEqual(tar.extractfile(f"{base}/LICENSE").read(), license_text)
            self.assertIn("License-File: LICENSE\n", tar.extractfile(f"{base}/PKG-INFO").read().decode())

    def test_builds_are_reproducible(self) -> None:
        first = os.path.join(self.tmp, "a")
        second = os.path.join(self.tmp, "b")
        os.makedirs(first)
        os.makedirs(second)
        a = self.backend.build_wheel(first)
        b = self.backend.build_wheel(second)
        with open(os.path.join(first, a), "rb") as fa, open(os.path.join(second, b), "rb") as fb:
            self.assertEqual(hashlib.sha256(fa.read()).hexdigest(), hashlib.sha256(fb.read()).hexdigest())

    def test_the_sdist_can_build_the_wheel_again(self) -> None:
        name = self.backend.build_sdist(self.tmp)
        with tarfile.open(os.path.join(self.tmp, name)) as tar:
            members = set(tar.getnames())
        base = name[: -len(".tar.gz")]
        for required in ("pyproject.toml", "README.md", "_build/cap_build.py", "cap_sdk/client.py", "PKG-INFO"):
            self.assertIn(f"{base}/{required}", members)

    def test_an_editable_build_points_at_the_source_tree(self) -> None:
        name = self.backend.build_editable(self.tmp)
        with zipfile.ZipFile(os.path.join(self.tmp, name)) as whl:
            self.assertEqual(whl.read("commonly_cap_editable.pth").decode().strip(), SDK)

    def test_the_toml_reader_for_python_3_9_reads_pyproject_as_tomllib_does(self) -> None:
        with open(os.path.join(SDK, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        ours = self.backend._read_toml_subset(text)
        if sys.version_info >= (3, 11):
            import tomllib

            self.assertEqual(ours, tomllib.loads(text))
        self.assertEqual(ours["build-system"], {"requires": [], "build-backend": "cap_build", "backend-path": ["_build"]})

    def test_versions_agree(self) -> None:
        with open(os.path.join(SDK, "package.json")) as f:
            package = json.load(f)
        project = self.backend._project()
        # package.json holds the semver changesets writes (1.0.0-rc.0); Python spells it per PEP 440
        # (1.0.0rc0). release/sync-versions.mjs maps one to the other; the same mapping, for the kinds it allows:
        pep440 = re.sub(r"-(?:alpha|a)\.(\d+)$", r"a\1", package["version"])
        pep440 = re.sub(r"-(?:beta|b)\.(\d+)$", r"b\1", pep440)
        pep440 = re.sub(r"-rc\.(\d+)$", r"rc\1", pep440)
        self.assertEqual({cap_sdk.__version__, project["version"], pep440}, {cap_sdk.__version__})

    def test_the_readme_error_table_equals_sdk_error_codes(self) -> None:
        with open(os.path.join(SDK, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        table = readme.split("<!-- sdk-error-codes -->", 1)[1]
        rows = dict(re.findall(r"^\| `([a-z_]+)` +\| (.+?) *\|$", table, re.M))
        self.assertEqual(rows, dict(cap_sdk.SDK_ERROR_CODES))

    def test_the_api_reference_is_current(self) -> None:
        r = subprocess.run([sys.executable, os.path.join(SDK, "scripts", "api_docs.py"), "--check"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
