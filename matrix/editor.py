"""JSON Schemas of a matrix's own files, for editors: completion, hover text and squiggles in
``features.toml`` and ``runners/<id>.toml`` (taplo, the engine of VS Code's Even Better TOML,
reads a ``#:schema ./features.schema.json`` line at the top of a file).

The schemas are JSON Schema draft-07, which taplo implements in full. They are generated from
the specs the loader structures the files with (`matrix._converter`: each spec a table, its
fields the keys, a field without a default required, the marks on its type the patterns and
enums) and the table of descriptions in `matrix._format`: a key added to a spec is in them
without more. Per matrix they name its runner ids (the keys of ``support``, ``forces.runner``,
an order's ``runners``), the gates a refusal may name (its feature ids, and those derived from the
runner files and orders: `matrix.schema.gate_ids`) and its requirement kinds (the keys
of a runner's ``[requires]``); without a matrix (`features_schema()`), any well-formed id is
allowed: the generic schemas the wheel ships (``matrix/features.schema.json``,
``matrix/runner.schema.json``, and ``matrix/overlay.schema.json`` of an overlay file) are these. What a schema cannot say (the predicate language
inside ``when``, a status history's order, cross-field rules) stays with ``matrix check``, and
the descriptions say so.
"""

from __future__ import annotations

import json
import os
from typing import Annotated, Any, Dict, List, Optional, Tuple, Union, get_args, get_origin

import attrs

from . import _converter, _format
from ._given import RESERVED_ROOTS
from ._stages import CHOICE
from ._error_kinds import ERROR_KINDS
from .schema import ADJUSTMENT_LEVELS, ADJUSTMENT_SAYS, APPLIES, FIELD_TYPES, REDIRECT_APPLIES, STATUSES, Matrix, gate_ids

__all__ = ["features_schema", "overlay_schema", "runner_schema", "schema_paths", "text", "write", "stale"]

DRAFT = "http://json-schema.org/draft-07/schema#"

_JSON_TYPES = {str: "string", int: "integer", bool: "boolean", float: "number"}
# The order a value's shapes are tried in, by JSON type (see `_union`).
_SHAPE_ORDER = ("string", "array", "object")


@attrs.frozen
class _Known:
    """What a matrix narrows its schemas to: its runner ids, the gates a refusal may name and its
    requirement kinds (None: any well-formed id or gate, the generic schemas)."""

    runners: Optional[Tuple[str, ...]] = None
    gates: Optional[Tuple[str, ...]] = None
    kinds: Optional[Tuple[str, ...]] = None


def _ids(known: Optional[Tuple[str, ...]]) -> Dict[str, Any]:
    if known is None:
        return {"type": "string", "pattern": _format.anchored(_format.ID)}
    return {"type": "string", "enum": list(known)}


def _mark(mark: object, known: _Known) -> Dict[str, Any]:
    """The JSON Schema keywords a mark of `matrix._converter` adds to its type's."""
    c = _converter
    bare = [s for s in STATUSES if s != "partial"]  # a bare status cannot carry the note partial needs
    table: Dict[object, Dict[str, Any]] = {
        c.VERSION: {"pattern": _format.anchored(_format.VERSION)},
        c.ID: {"pattern": _format.anchored(_format.ID)},
        # A [config] key or a path an adjustment sets: never under a reserved root ('given', 'role').
        c.PATH: {"pattern": _format.anchored(f"(?!(?:{'|'.join(RESERVED_ROOTS)})(?:\\.|$)){_format.FIELD_PATH}")},
        c.CLASS: {"pattern": _format.anchored(_format.CLASS_SPEC)},
        c.PREDICATE: {},
        c.STATUS: {"enum": list(STATUSES)},
        c.BARE_STATUS: {"enum": bare},
        c.FIELD_TYPE: {"enum": list(FIELD_TYPES)},
        c.APPLIES: {"enum": list(APPLIES)},
        c.REDIRECT_APPLIES: {"enum": list(REDIRECT_APPLIES)},
        c.SAYS: {"enum": list(ADJUSTMENT_SAYS)},
        c.LEVEL: {"enum": list(ADJUSTMENT_LEVELS)},
        c.ERROR_KIND: {"enum": list(ERROR_KINDS)},
        c.RUNNER: _ids(known.runners),
        c.SUPPORT_KEY: _ids(None if known.runners is None else (*known.runners, "default")),
        c.GATE: {"type": "string", "pattern": _format.anchored(_format.GATE)} if known.gates is None else
        {"type": "string", "enum": list(known.gates)},
        c.KIND: _ids(known.kinds),
        c.NONEMPTY: {"minItems": 1},
        c.UNIQUE: {"uniqueItems": True},
        c.NOT_BLANK: {"pattern": "\\S"},
        c.SCALAR: {"type": ["string", "integer", "number", "boolean"]},
        c.NUMBER: {"type": "number"},
        c.ANY: {},
    }
    words = _format.SHAPES.get(str(mark))
    return {**table.get(mark, {}), **({"description": words} if words is not None else {})}


# What a mark says of a key, after the key's own description.
_MARK_WORDS: Dict[object, str] = {_converter.VERSION: " (a PEP 440 version, as text)",
                                  _converter.PREDICATE: ". " + _format.PREDICATE}
# Rules across the keys of a table that a JSON Schema can say (the others are the loader's).
_RULES: Dict[str, Dict[str, Any]] = {
    "StatementSpec": {"if": {"properties": {"status": {"const": "partial"}}}, "then": {"required": ["note"]}},
    "DeprecationSpec": {"if": {"properties": {"removed": {"const": True}}, "required": ["removed"]},
                        "then": {"required": ["remove_in"]}},
}


def _of(kind: Any, known: _Known) -> Dict[str, Any]:
    """The JSON Schema of a value of the spec type *kind*."""
    origin, args = get_origin(kind), get_args(kind)
    if origin is Annotated:
        out = _of(args[0], known)
        for mark in args[1:]:
            out = {**out, **_mark(mark, known)}
        return out
    if attrs.has(kind):
        return _table(kind, known)
    if origin is Union:
        shapes = [_of(a, known) for a in args if a is not type(None)]
        return shapes[0] if len(shapes) == 1 else _union(shapes)
    if origin is tuple:
        return {"type": "array", "items": _of(args[0], known)}
    if origin is dict:
        keys, values = _of(args[0], known), _of(args[1], known)
        if "enum" in keys:
            return {"type": "object", "properties": {k: values for k in keys["enum"]}, "additionalProperties": False}
        names = {k: v for k, v in keys.items() if k != "type"}
        return {"type": "object", **({"propertyNames": names} if names else {}), "additionalProperties": values}
    if kind is object:
        return {}
    return {"type": _JSON_TYPES[kind]}


def _union(shapes: List[Dict[str, Any]]) -> Dict[str, Any]:
    """A value that may take several shapes, each checked by its own schema, chosen by the
    value's JSON type (if/then/else): a mistake is then reported once, by the schema of its
    shape, at its place (``"bol" is not one of …`` on the type). An ``anyOf`` of the shapes
    reports only that no shape matched, and taplo repeats that on every token of a table."""
    by_type = sorted((s for s in shapes if s.get("type") in _SHAPE_ORDER), key=lambda s: _SHAPE_ORDER.index(s["type"]))
    rest = [s for s in shapes if s.get("type") not in _SHAPE_ORDER]
    assert len(rest) <= 1, shapes  # two shapes of one JSON type could not be told apart
    out = rest[0] if rest else by_type.pop()
    for shape in reversed(by_type):
        out = {"if": {"type": shape["type"]}, "then": shape, "else": out}
    return out


def _table(cls: type, known: _Known) -> Dict[str, Any]:
    """The JSON Schema of a table of the spec *cls*: each of its keys, its required ones, no other."""
    name = cls.__name__
    properties = {}
    for field in attrs.fields(cls):
        schema = _of(field.type, known)
        words = _format.DESCRIPTIONS.get((name, field.name), _format.DESCRIPTIONS.get((None, field.name)))
        if words is not None:
            words += "".join(_MARK_WORDS.get(m, "") for m in _converter.marks(field.type))
            schema = {"description": words, **{k: v for k, v in schema.items() if k != "description"}}
        properties[field.name] = schema
    out: Dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    required = [f.name for f in attrs.fields(cls) if f.default is attrs.NOTHING]
    if required:
        out["required"] = required
    if (name, None) in _format.DESCRIPTIONS:
        out["description"] = _format.DESCRIPTIONS[(name, None)]
    return {**out, **_RULES.get(name, {})}


def _known(matrix: Optional[Matrix]) -> _Known:
    if matrix is None:
        return _Known()
    # Every clause of each runner's file and of [requires], as the loader named the gates when it
    # read [refusals]: those of roles and stages were set apart after (`matrix._staged`, `_load_roles`).
    staged = matrix.staged
    gates = gate_ids([f.id for f in matrix.features], [o.id for o in matrix.orders if not o.fallback],
                     [*matrix.requires, *(c for c in staged if c.wide)],
                     [(r, [*r.requires, *r.role_requires, *(c for c in staged if c.runner == r.id)])
                      for r in matrix.runners])
    return _Known(tuple(r.id for r in matrix.runners), tuple(gates), tuple(k.id for k in matrix.requirement_kinds))


def _stages(node: Any, stages: Tuple[str, ...]) -> None:
    """Every ``stage`` key below *node* (an adjustment's, a requirement clause's) an enum of *stages*."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict) and isinstance(properties.get("stage"), dict):
            properties["stage"] = {**properties["stage"], "enum": list(stages)}
            properties["stage"].pop("pattern", None)
        for value in node.values():
            _stages(value, stages)
    elif isinstance(node, list):
        for value in node:
            _stages(value, stages)


def features_schema(matrix: Optional[Matrix] = None) -> Dict[str, Any]:
    """The JSON Schema of *matrix*'s ``features.toml`` (the generic one without a matrix),
    generated from the specs the loader structures the file with."""
    document = _table(_converter.DocumentSpec, _known(matrix))
    document["properties"]["matrix"]["properties"]["stages"]["contains"] = {"const": CHOICE}  # issue 30, F6
    if matrix is not None and matrix.stages:  # an adjustment or a requirement names one (issue 30, F6)
        _stages(document, matrix.stages)
    if matrix is not None and matrix.default_support is None:  # else [matrix] default_support stands for each
        support = document["properties"]["features"]["additionalProperties"]["properties"]["support"]
        support["anyOf"] = [{"required": ["default"]}, {"required": [r.id for r in matrix.runners]}]
    return {"$schema": DRAFT,
            "title": "features.toml of a support matrix" + (f": {matrix.name}" if matrix is not None else ""),
            **document}


def runner_schema(matrix: Optional[Matrix] = None) -> Dict[str, Any]:
    """The JSON Schema of a runner file of *matrix* (the generic one without a matrix),
    generated from the spec the loader structures runner files with."""
    table = _table(_converter.RunnerSpec, _known(matrix))
    if matrix is not None and matrix.stages:  # a requirement clause or a redirect names one (issue 30, F6)
        _stages(table, matrix.stages)
        # A redirect acts at a stage after the choice (`matrix._load_redirects`).
        redirect = table["properties"]["redirects"]["items"]["properties"]["stage"]
        redirect["enum"] = list(matrix.stages[matrix.stages.index(CHOICE) + 1:])
    return {"$schema": DRAFT,
            "title": "A runner file of a support matrix" + (f": {matrix.name}" if matrix is not None else ""),
            **table}


def overlay_schema() -> Dict[str, Any]:
    """The JSON Schema of an overlay file (generic: any well-formed id), generated from the
    specs of the tables it adds and the loader's keys of its changes (`matrix._editor_overlay`)."""
    from ._editor_overlay import overlay_schema as body

    known = _Known()
    return {"$schema": DRAFT, "title": "An overlay file of a support matrix",
            **body(lambda cls: _table(cls, known), _ids(None))}


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
