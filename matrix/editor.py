"""JSON Schemas of a matrix's own files, for editors: completion, hover text and squiggles in
``features.toml`` and ``runners/<id>.toml`` (taplo, the engine of VS Code's Even Better TOML,
reads a ``#:schema ./features.schema.json`` line at the top of a file).

The schemas are JSON Schema draft-07, which taplo implements in full. Per matrix they name its
runner ids (the keys of ``support``, ``forces.runner``, an order's ``runners``), its feature ids
(in ``[refusals]``) and its requirement kinds (the keys of a runner's ``[requires]``); without a
matrix (`features_schema()`), any well-formed id is allowed: the generic schemas the wheel ships
(``matrix/features.schema.json``, ``matrix/runner.schema.json``) are these. What a schema cannot
say (the predicate language inside ``when``, a status history's order, cross-field rules) stays
with ``matrix check``, and the descriptions say so.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .schema import APPLIES, FIELD_TYPES, STATUSES, Matrix

__all__ = ["features_schema", "runner_schema", "schema_paths", "text", "write", "stale"]

DRAFT = "http://json-schema.org/draft-07/schema#"
_ID = "^[A-Za-z0-9_][A-Za-z0-9_.-]*$"
_PATH = "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"
# PEP 440, as packaging's Version accepts it (case-insensitive, with a leading v).
_VERSION = ("^\\s*[vV]?(?:[0-9]+!)?[0-9]+(?:\\.[0-9]+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
            "(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?(?:[-_.]?dev[-_.]?[0-9]*)?(?:\\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?"
            "\\s*$")
_PREDICATE = ("A predicate over the config (Python-like: and, or, not, ==, in, is None, path % 16). "
              "Its syntax and types are checked by `matrix check`, not by this schema.")


def _version(description: str) -> Dict[str, Any]:
    return {"type": "string", "pattern": _VERSION, "description": description + " (a PEP 440 version, as text)"}


def _links() -> Dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": "URLs: issues, pull requests, docs"}


def _table(properties: Dict[str, Any], required: Sequence[str] = (), description: str = "") -> Dict[str, Any]:
    out: Dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    if description:
        out["description"] = description
    return out


def _shapes(string: Optional[Dict[str, Any]] = None, array: Optional[Dict[str, Any]] = None,
            table: Optional[Dict[str, Any]] = None, other: Optional[Dict[str, Any]] = None,
            description: str = "") -> Dict[str, Any]:
    """A value that may take several shapes, each checked by its own schema, chosen by the
    value's JSON type (if/then/else): a mistake is then reported once, by the schema of its
    shape, at its place (``"bol" is not one of …`` on the type). An ``anyOf`` of the shapes
    reports only that no shape matched, and taplo repeats that on every token of a table."""
    shapes = [(kind, schema) for kind, schema in (("string", string), ("array", array), ("object", table))
              if schema is not None]
    out: Dict[str, Any] = other if other is not None else shapes.pop()[1]
    for kind, schema in reversed(shapes):
        out = {"if": {"type": kind}, "then": schema, "else": out}
    if description:
        out = {"description": description, **out}
    return out


def _ids(known: Optional[List[str]], what: str) -> Dict[str, Any]:
    if known is None:
        return {"type": "string", "pattern": _ID, "description": what}
    return {"type": "string", "enum": list(known), "description": what}


def features_schema(matrix: Optional[Matrix] = None) -> Dict[str, Any]:
    """The JSON Schema of *matrix*'s ``features.toml`` (the generic one without a matrix)."""
    runners = [r.id for r in matrix.runners] if matrix is not None else None
    features = [f.id for f in matrix.features] if matrix is not None else None
    status = {"type": "string", "enum": list(STATUSES),
              "description": "yes; no; partial (supported with a caveat: needs a note); opt-in (works only when the "
                             "runner is asked for, never chosen automatically)"}
    # A bare status cannot carry the note that partial needs.
    bare = {"type": "string", "enum": [s for s in STATUSES if s != "partial"],
            "description": "yes, no or opt-in; partial needs a note: { status = \"partial\", note = \"…\" }"}
    statement = _table({"status": status, "note": {"type": "string", "description": "What is missing or different"},
                        "links": _links(), "since": _version("The release this statement took over")},
                       ["status"], "A support statement")
    statement["if"] = {"properties": {"status": {"const": "partial"}}}
    statement["then"] = {"required": ["note"]}
    cell = _shapes(string=bare, array={"type": "array", "items": _shapes(string=bare, table=statement), "minItems": 1},
                   table=statement,
                   description="A status, a statement table, or a history: an array of statements, ordered by since "
                               "(the order is checked by matrix check)")
    if runners is None:
        support: Dict[str, Any] = {"type": "object", "additionalProperties": cell,
                                   "propertyNames": {"pattern": _ID},
                                   "description": "Runner id (or default) → its support"}
    else:
        support = _table({r: cell for r in [*runners, "default"]},
                         description="Runner id (or default, for every runner not named) → its support")
        if matrix is None or matrix.default_support is None:  # else [matrix] default_support stands for each
            support["anyOf"] = [{"required": ["default"]}, {"required": list(runners)}]  # a cell for every runner
    field_type = {"type": "string", "enum": list(FIELD_TYPES), "description": "The field's type"}
    scalar = {"type": ["string", "integer", "number", "boolean"]}
    choice = _shapes(table=_table({"value": scalar, "since": _version("The release the value appeared in"),
                                   "until": _version("The release that removed the value")}, ["value"]), other=scalar)
    field: Dict[str, Any] = _table({
        "type": field_type,
        "choices": {"type": "array", "items": choice, "uniqueItems": True,
                    "description": "The values allowed (str, int, float)"},
        "min": {"type": "number"}, "max": {"type": "number"},
        "default": {"description": "The value when the config leaves it out"},
        "nullable": {"type": "boolean", "description": "May be None (None by default when no default is given)"},
        "doc": {"type": "string", "description": "Shown in the docs' config reference"},
        "fact": {"type": "boolean", "description": "Computed by the host and passed to resolve(facts=…)"},
        "since": _version("The release the host's config gained this field"),
        "until": _version("The release the host's config lost this field"),
        "classes": {"type": "boolean", "description": "A str or list[str] field whose values may be classes, "
                                                      "read as their qualified names (module.Qualname)"},
    }, ["type"], "A config field")
    field.update({"if": {"properties": {"classes": {"const": True}}, "required": ["classes"]},
                  "then": {"properties": {"type": {"enum": ["str", "list[str]"]}}}})
    feature = _table({
        "name": {"type": "string", "description": "Display string, used in messages, lists and docs"},
        "when": {"type": "string", "description": "When a config uses the feature. " + _PREDICATE},
        "support": support,
        "note": {"type": "string"},
        "links": _links(),
        "since": _version("The gate exists from this release"),
        "until": _version("The gate exists until this release (exclusive)"),
        "group": {"type": "string", "description": "The heading the docs show it under"},
        "deprecated": {**_table({
            "since": _version("Deprecated from"), "remove_in": _version("Refused from"),
            "message": {"type": "string"}, "replacement": {"type": "string", "description": "What to use instead"},
            "removed": {"type": "boolean", "description": "The host has removed it: the gate is the record"},
        }, ["since"], "The lifecycle of a deprecated gate"),
            "if": {"properties": {"removed": {"const": True}}, "required": ["removed"]},
            "then": {"required": ["remove_in"]}},
        "forces": _table({"runner": _ids(runners, "The runner a config that uses it must run on"),
                          "override": {"type": "boolean", "description": "Override a request for another runner"},
                          "message": {"type": "string"}}, ["runner"], "A feature that forces a runner"),
        "applies": {"enum": list(APPLIES), "description": "When the gate is in force: always (the default), "
                    "only in automatic choice, or only when a runner is asked for"},
        "prefers": _table({"runner": _ids(runners, "The runner automatic choice tries first"),
                           "outright": {"type": "boolean", "description": "Chosen whatever blocks it"},
                           "message": {"type": "string"}}, ["runner"], "A feature that changes automatic choice"),
    }, ["name", "when", "support"], "A feature: its condition and its support by each runner")
    refusal = _table({
        "reason": {"type": "string", "description": "Why no runner is meant to serve these combinations"},
        "links": _links(),
        "together": {"type": "array", "minItems": 1, "description": "Lists of gate ids: any of each, active at once",
                     "items": {"type": "array", "minItems": 1, "items": _ids(features, "A feature id")}},
    }, ["reason", "together"], "Combinations no runner is meant to serve")
    return {
        "$schema": DRAFT,
        "title": "features.toml of a support matrix" + (f": {matrix.name}" if matrix is not None else ""),
        "description": "The features, their support by each runner, the config schema. Generated by "
                       "`matrix schema --json-schema`; `matrix check` checks what a schema cannot.",
        **_table({
            "matrix": _table({
                "name": {"type": "string"},
                "version": _version("The release this file describes; resolve() evaluates as of it"),
                "runners": {"type": "string", "description": "Folder of runner files, relative to this file"},
                "config_class": {"type": "string", "pattern": "^[A-Za-z_][\\w.]*:[A-Za-z_][\\w.]*$",
                                 "description": "MODULE:CLASS of the host's config class [config] describes"},
                "default_support": {**bare, "description": "The support of a runner a feature's support table "
                                                           "leaves out (when it has no default)"},
            }, ["name", "version"], "The matrix itself"),
            "config": {"type": "object", "description": "The config schema: one quoted dotted path per field",
                       "propertyNames": {"pattern": _PATH},
                       "additionalProperties": _shapes(string=field_type, table=field,
                                                       description="A type, or a table with the type")},
            "requirements": {"type": "object", "propertyNames": {"pattern": _ID},
                             "description": "Kinds of runner requirements, in the order they are checked",
                             "additionalProperties": _table({
                                 "name": {"type": "string", "description": "The row of the capability table"},
                                 "reason": {"type": "string", "description": "What users read when it fails"},
                             }, ["name"])},
            "orders": {"type": "object", "propertyNames": {"pattern": _ID},
                       "description": "Orders of automatic choice that apply when their condition holds",
                       "additionalProperties": _table({
                           "name": {"type": "string"},
                           "when": {"type": "string", "description": _PREDICATE},
                           "runners": {"type": "array", "minItems": 1, "uniqueItems": True,
                                       "items": _ids(runners, "A runner, tried in this order before the rest"),
                                       "description": "Tried first, in this order; then the others by priority"},
                       }, ["name", "when", "runners"])},
            "features": {"type": "object", "description": "Feature id (the stable key) → the feature",
                         "propertyNames": {"pattern": _ID}, "additionalProperties": feature},
            "refusals": {"type": "object", "propertyNames": {"pattern": _ID}, "additionalProperties": refusal},
            "check": _table({"ignore": {"type": "array", "description": "Findings matrix check ignores, each with "
                                                                         "its reason (ignore-unused when none matches)",
                                        "items": _table({
                                            "code": {"type": "string", "description": "The finding's code"},
                                            "gate": {"type": "string",
                                                     "description": "The feature or runner id it is about (default: any)"},
                                            "reason": {"type": "string", "minLength": 1,
                                                       "description": "Why it is not a mistake"},
                                        }, ["code", "reason"])}}, [], "What matrix check is told"),
        }, ["matrix"]),
    }


def runner_schema(matrix: Optional[Matrix] = None) -> Dict[str, Any]:
    """The JSON Schema of a runner file of *matrix* (the generic one without a matrix)."""
    kinds = [k.id for k in matrix.requirement_kinds] if matrix is not None else None
    clause = _table({"condition": {"type": "string", "description": "Must hold. " + _PREDICATE},
                     "reason": {"type": "string", "description": "What users read when it fails"},
                     "doc": {"type": "string", "description": "The clause in words, for the capability table"}},
                    ["condition"])
    requirement = _shapes(string={"type": "string", "description": "A condition that must hold. " + _PREDICATE},
                          array={"type": "array", "items": clause, "minItems": 1,
                                 "description": "A chain: the first clause that fails is the reason"},
                          table=clause)
    if kinds is None:
        requires: Dict[str, Any] = {"type": "object", "propertyNames": {"pattern": _ID},
                                    "additionalProperties": requirement}
    else:
        requires = _table({k: requirement for k in kinds})
    requires["description"] = "Kind (declared in [requirements] of features.toml) → what this runner requires"
    return {
        "$schema": DRAFT,
        "title": "A runner file of a support matrix" + (f": {matrix.name}" if matrix is not None else ""),
        "description": "runners/<id>.toml: the file's stem is the runner id. Generated by "
                       "`matrix schema --json-schema`.",
        **_table({
            "name": {"type": "string", "description": "Display name"},
            "priority": {"type": "integer", "description": "Automatic choice tries higher priorities first; no two alike"},
            "description": {"type": "string"},
            "links": _links(),
            "candidate": {"type": "string", "description": "A candidate for automatic choice only when this holds. "
                                                          + _PREDICATE},
            "requires": requires,
        }, ["name", "priority"]),
    }


def text(schema: Dict[str, Any]) -> str:
    """A schema as the files hold it: indented JSON, keys in the order built, a final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def schema_paths(matrix: Matrix) -> Dict[str, str]:
    """Where `write` puts the schemas: ``<stem>.schema.json`` next to the features file, and
    ``runner.schema.json`` in the runner folder. Raises `UsageError` for a matrix not read
    from a file."""
    if not _from_its_file(matrix):
        from . import _messages
        from .errors import UsageError

        raise UsageError(_messages.json_schema_write_default())
    assert matrix.file is not None
    base, _ = os.path.splitext(matrix.file)
    folder = os.path.dirname(next((r.file for r in matrix.runners if r.file), matrix.file))
    return {"features": base + ".schema.json", "runner": os.path.join(folder, "runner.schema.json")}


def _files(matrix: Matrix) -> List[Tuple[str, str]]:
    """(path, text) of both schemas, where `write` puts them."""
    paths = schema_paths(matrix)
    return [(paths["features"], text(features_schema(matrix))), (paths["runner"], text(runner_schema(matrix)))]


def write(matrix: Matrix) -> List[str]:
    """Write both schemas next to the files they describe; returns the paths written."""
    written = []
    for path, content in _files(matrix):
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        written.append(path)
    return written


def stale(matrix: Matrix) -> List[str]:
    """The schema files next to *matrix* that exist and differ from what `write` would write
    (only for a matrix read from its file: one built from text under a file's name has none)."""
    if not _from_its_file(matrix):
        return []
    out = []
    for path, content in _files(matrix):
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                if f.read() != content:
                    out.append(path)
    return out


def _from_its_file(matrix: Matrix) -> bool:
    """Whether *matrix* was read from the file it names (one built from text under a file's
    name, or from no file, has no place for schemas)."""
    if matrix.file is None or not os.path.isfile(matrix.file):
        return False
    with open(matrix.file, encoding="utf-8") as f:
        return f.read() == matrix.text
