"""The JSON Schema of an overlay file (`matrix.editor.overlay_schema`): the tables it adds are
features.toml's, from the same specs (`matrix._converter`), with an operation's provenance
keys; the keys of its changes are the loader's lists (`matrix._overlay.CHANGES`), each
with the schema of the value it writes. Generic: any well-formed id (an overlay names its
upstream's, which an editor does not load)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Sequence

from . import _converter, _format, _overlay

Schema = Dict[str, Any]


def overlay_schema(table: Callable[[type], Schema], ids: Schema) -> Schema:
    """The schema's body; *table* is `matrix.editor`'s schema of a spec, *ids* of an id."""
    document = table(_converter.DocumentSpec)["properties"]
    feature = document["features"]["additionalProperties"]
    runner = table(_converter.RunnerSpec)
    words = _format.DESCRIPTIONS
    provenance: Schema = {
        "why": {"type": "string", "pattern": "\\S", "description": words[("Overlay", "why")]},
        "link": {"type": "string", "description": words[("Overlay", "link")]},
        "until": {"type": "string", "description": words[("Overlay", "until")]},
        "upstream": {"type": "string", "description": words[("Overlay", "upstream")]},
    }
    assert sorted(provenance) == sorted(_overlay.PROVENANCE)

    def operation(properties: Schema, required: Sequence[str] = ()) -> Schema:
        return {"type": "object", "properties": {**properties, **provenance}, "additionalProperties": False,
                "required": [*required, "why"]}

    def added(spec: Schema, **more: Schema) -> Schema:  # a features.toml table, with provenance
        return operation({**spec["properties"], **more}, spec.get("required", ()))

    def unset(keys: Sequence[str], *patterns: str) -> Schema:
        item: Schema = {"enum": list(keys)}
        if patterns:
            item = {"anyOf": [item, *({"type": "string", "pattern": p} for p in patterns)]}
        return {"type": "array", "items": item, "uniqueItems": True, "description": words[("Overlay", "unset")]}

    listed: Schema = {"type": "array", "items": ids, "minItems": 1, "uniqueItems": True}
    statement = table(_converter.StatementSpec)
    cell = feature["properties"]["support"]["additionalProperties"]
    every = {"type": "object", "propertyNames": {"pattern": _format.anchored(f"\\*|{_format.ID}")},
             "additionalProperties": cell}
    kind = {"type": "object", "propertyNames": {"pattern": _format.anchored(_format.ID)}}
    paths = {k: v for k, v in document["config"].items() if k in ("type", "propertyNames")}
    field = table(_converter.FieldSpec)["properties"]
    changes = {
        "config": {"add_choices": {**field["choices"], "minItems": 1, "description": words[("Overlay", "add_choices")]}},
        "features": {**{k: feature["properties"][k] for k in ("forces", "group", "links", "name", "note", "prefers")},
                     "support": every, "lift": listed, "block": listed,
                     "append": {**kind, "additionalProperties": {**statement, "required": ["status", "since"]}},
                     "unset": unset(_overlay.FEATURE_UNSET)},
        "runners": {**{k: runner["properties"][k] for k in ("candidate", "deprecated", "description", "links", "name",
                                                              "priority", "requires")},
                    "choice": {"const": False, "description": words[("Overlay", "choice")]},
                    "unset": unset(_overlay.RUNNER_UNSET, _format.anchored(f"requires\\.{_format.ID}"))},
        "orders": {**{k: document["orders"]["additionalProperties"]["properties"][k] for k in ("name", "runners", "when")},
                   "unset": unset(_overlay.ORDER_UNSET)},
        "adjustments": {**{k: document["adjustments"]["additionalProperties"]["properties"][k]
                           for k in _overlay.ADJUSTMENT_KEYS},
                        "remove": {"const": True}, "unset": unset(_overlay.ADJUSTMENT_UNSET)},
        "requires": {"entry": document["requires"]["additionalProperties"], "exempt": listed,
                     "unset": unset(_overlay.WIDE_UNSET)},
    }
    assert {k: sorted(v) for k, v in changes.items()} == {k: sorted(v) for k, v in _overlay.CHANGES.items()}
    head = {"extends": {"type": "string", "description": words[("Overlay", "extends")]},
            "after": {"type": "array", "items": {"type": "string"}, "description": words[("Overlay", "after")]},
            "name": {"type": "string", "description": words[("Overlay", "name")]},
            "targets": {"type": "string", "description": words[("Overlay", "targets")]},
            "choice": operation({"order": listed}, ["order"])}
    assert sorted(head) == sorted(_overlay.OVERLAY_KEYS)
    runner_added = added(runner, **{"from": {**ids, "description": words[("Overlay", "from")]}})
    runner_added["required"] = ["why"]  # from another, its name and priority are that one's
    runner_added["if"] = {"not": {"required": ["from"]}}
    runner_added["then"] = {"required": ["name", "priority"]}
    tables: Schema = {
        "overlay": {"type": "object", "properties": head, "additionalProperties": False, "required": ["extends"]},
        "config": {**document["config"], "additionalProperties": added(table(_converter.FieldSpec))},
        "runners": {**kind, "additionalProperties": runner_added},
        "features": {**document["features"], "additionalProperties": added(feature)},
        "adjustments": {**document["adjustments"], "additionalProperties": added(
            document["adjustments"]["additionalProperties"])},
        "refusals": document["refusals"],
        "check": document["check"],
        "change": {"type": "object", "additionalProperties": False, "properties": {
            kind_: {**(paths if kind_ == "config" else kind), "additionalProperties": operation(
                keys, ["add_choices"] if kind_ == "config" else ())} for kind_, keys in changes.items()}},
    }
    assert sorted(tables) == sorted(_overlay.TABLES)
    return {"type": "object", "properties": tables, "additionalProperties": False, "required": ["overlay"]}
