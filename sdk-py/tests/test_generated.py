"""The generated layer follows the spec: every JSON Schema file has a TypedDict with exactly its
properties and required keys; the error, requirement and feature registries equal spec/generated; and
changing a schema and running the generator changes the Python models (the generator is run for real,
on a modified copy of the schemas, into a temporary folder)."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
import typing
import unittest

from cap_sdk import ERRORS, FEATURES, REQUIREMENTS, models
from helpers.kernel import NODE, REPO

SPEC = os.path.join(REPO, "spec", "generated")
SCHEMAS = os.path.join(SPEC, "json-schema")
GENERATOR = os.path.join(REPO, "sdk-py", "scripts", "generate.mjs")


def load(path: str):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def schema_files():
    return sorted(f for f in os.listdir(SCHEMAS) if f.endswith(".json"))


class GeneratedModels(unittest.TestCase):
    def test_every_schema_file_has_a_typeddict_with_its_properties_and_required_keys(self) -> None:
        self.assertEqual(sorted(models.SCHEMAS), sorted(f[:-5] for f in schema_files()))
        for file in schema_files():
            with self.subTest(file):
                schema = load(os.path.join(SCHEMAS, file))
                model = getattr(models, file[:-5])
                if "anyOf" in schema:  # a union of models, e.g. Cancellation
                    names = [a["$ref"].rsplit("/", 1)[-1][:-5] for a in schema["anyOf"]]
                    self.assertEqual(typing.get_args(model), tuple(getattr(models, n) for n in names))
                    continue
                self.assertEqual(set(model.__annotations__), set(schema.get("properties", {})))
                self.assertEqual(set(model.__required_keys__), set(schema.get("required", [])))

    def test_documented_event_types_map_to_their_payload_models(self) -> None:
        self.assertEqual(
            sorted(models.PAYLOADS),
            ["heartbeat.tick", "mention.received", "message.posted", "summary.ready", "task.assigned"],
        )
        self.assertIs(models.PAYLOADS["mention.received"], models.MentionReceivedPayload)

    def test_the_error_registry_equals_spec_errors(self) -> None:
        spec = {e["code"]: (e["status"], e["surface"]) for e in load(os.path.join(SPEC, "errors.json"))["errors"]}
        self.assertEqual({c: (e.status, e.surface) for c, e in ERRORS.items()}, spec)

    def test_the_requirement_ids_and_features_equal_the_manifest(self) -> None:
        manifest = load(os.path.join(SPEC, "requirements.json"))["requirements"]
        self.assertEqual(list(REQUIREMENTS), [r["id"] for r in manifest])
        self.assertEqual(set(FEATURES), {r["feature"] for r in manifest if r["feature"]})

    def test_changing_a_schema_field_and_regenerating_changes_the_models(self) -> None:
        work = tempfile.mkdtemp(prefix="cap-sdk-py-gen-")
        try:
            schemas = os.path.join(work, "json-schema")
            shutil.copytree(SCHEMAS, schemas)
            event = load(os.path.join(schemas, "Event.json"))
            event["properties"]["priority"] = {"type": "integer", "description": "A field added by this test."}
            event["required"].append("priority")
            del event["properties"]["leaseExpiresAt"]
            with open(os.path.join(schemas, "Event.json"), "w") as f:
                json.dump(event, f)
            out = os.path.join(work, "_generated")
            subprocess.run([NODE, GENERATOR, "--schemas", schemas, "--out", out, "--no-docs"], check=True, capture_output=True, timeout=60)
            spec = importlib.util.spec_from_file_location("changed_models", os.path.join(out, "models.py"))
            changed = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(changed)
            self.assertIn("priority", changed.Event.__required_keys__)
            self.assertNotIn("leaseExpiresAt", changed.Event.__annotations__)
            self.assertIn("leaseExpiresAt", models.Event.__annotations__)  # the committed models are untouched
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
