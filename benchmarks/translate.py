"""Translating matrix predicates into other languages, for the side-by-side benchmarks.

Each translator keeps matrix's semantics (a path through a None section is None, ordering
with None is False) where the target language can; a gate it cannot express raises
`Unsupported`. This reads predicate trees (`matrix._nodes`), which is private machinery:
benchmarks may, users should not.
"""

from __future__ import annotations

import json

from matrix._nodes import And, Compare, IsNone, ListLiteral, Literal, Not, Or, Path


class Unsupported(Exception):
    pass


def _nullable_prefixes(schema, path):
    parts = path.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts)) if schema[".".join(parts[:i])].nullable]


# --- Python: the if chain a person would write ------------------------------------------------

def python(node, schema) -> str:
    kind = type(node)
    if kind is And:
        return "(" + " and ".join(python(o, schema) for o in node.operands) + ")"
    if kind is Or:
        return "(" + " or ".join(python(o, schema) for o in node.operands) + ")"
    if kind is Not:
        return f"(not {python(node.operand, schema)})"
    if kind is IsNone:
        return f"({_py_value(node.operand, schema)} is {'not ' if node.negated else ''}None)"
    if kind is Compare:
        left, right = _py_value(node.left, schema), _py_value(node.right, schema)
        if node.op in ("<", "<=", ">", ">="):
            guards = [v for n, v in ((node.left, left), (node.right, right)) if isinstance(n, Path) and _may_be_none(schema, n.name)]
            test = f"{left} {node.op} {right}"
            return "(" + " and ".join([f"{g} is not None" for g in guards] + [test]) + ")"
        if node.op in ("in", "not in") and isinstance(node.right, Path):
            test = f"({right} is not None and {left} in {right})"
            return test if node.op == "in" else f"(not {test})"
        return f"({left} {node.op} {right})"
    if kind is Path:
        field = schema[node.name]
        value = _py_value(node, schema)
        return f"({value} is not None)" if field.type == "section" else f"bool({value})"
    return repr(bool(node.value))


def _may_be_none(schema, path):
    return bool(_nullable_prefixes(schema, path)) or schema[path].nullable


def _py_value(node, schema) -> str:
    if isinstance(node, Path):
        expr = "c"
        parts = node.name.split(".")
        for i, part in enumerate(parts):
            prefix = ".".join(parts[:i])
            if prefix and schema[prefix].nullable:
                expr = f"(None if {expr} is None else {expr}.{part})"
            else:
                expr = f"{expr}.{part}"
        return expr
    if isinstance(node, Literal):
        return repr(node.value)
    if isinstance(node, ListLiteral):
        return repr(tuple(node.values))
    return python(node, schema)


# --- CEL ------------------------------------------------------------------------------------

def cel(node, schema) -> str:
    kind = type(node)
    if kind is And:
        return "(" + " && ".join(cel(o, schema) for o in node.operands) + ")"
    if kind is Or:
        return "(" + " || ".join(cel(o, schema) for o in node.operands) + ")"
    if kind is Not:
        return f"!({cel(node.operand, schema)})"
    if kind is IsNone:
        return f"({_cel_value(node.operand, schema)} {'!=' if node.negated else '=='} null)"
    if kind is Compare:
        left, right = _cel_value(node.left, schema), _cel_value(node.right, schema)
        if node.op in ("<", "<=", ">", ">="):
            guards = [v for n, v in ((node.left, left), (node.right, right)) if isinstance(n, Path) and _may_be_none(schema, n.name)]
            return "(" + " && ".join([f"{g} != null" for g in guards] + [f"{left} {node.op} {right}"]) + ")"
        if node.op == "in":
            return f"({left} in {right})"
        if node.op == "not in":
            return f"!({left} in {right})"
        return f"({left} {node.op} {right})"
    if kind is Path:
        field = schema[node.name]
        value = _cel_value(node, schema)
        if field.type == "section":
            return f"({value} != null)"
        if field.item_type is not None:
            return f"({value} != null && size({value}) > 0)"
        return f"({value} == true)"
    return "true" if node.value else "false"


def _cel_value(node, schema) -> str:
    if isinstance(node, Path):
        parts = node.name.split(".")
        expr = "c"
        for i, part in enumerate(parts):
            prefix = ".".join(parts[:i])
            if prefix and schema[prefix].nullable:
                expr = f"({expr} == null ? null : {expr}.{part})"
            else:
                expr = f"{expr}.{part}"
        return expr
    if isinstance(node, Literal):
        if node.value is None:
            return "null"
        if isinstance(node.value, bool):
            return "true" if node.value else "false"
        if isinstance(node.value, str):
            return json.dumps(node.value)
        return repr(node.value)
    if isinstance(node, ListLiteral):
        return "[" + ", ".join(_cel_value(i, schema) for i in node.items) + "]"
    return cel(node, schema)


# --- JsonLogic --------------------------------------------------------------------------------

def jsonlogic(node, schema):
    kind = type(node)
    if kind is And:
        return {"and": [jsonlogic(o, schema) for o in node.operands]}
    if kind is Or:
        return {"or": [jsonlogic(o, schema) for o in node.operands]}
    if kind is Not:
        return {"!": [jsonlogic(node.operand, schema)]}
    if kind is IsNone:
        return {"!==" if node.negated else "===": [_jl_value(node.operand, schema), None]}
    if kind is Compare:
        left, right = _jl_value(node.left, schema), _jl_value(node.right, schema)
        op = {"==": "===", "!=": "!=="}.get(node.op, node.op)
        if op == "in":
            return {"in": [left, right]}
        if op == "not in":
            return {"!": [{"in": [left, right]}]}
        if op in ("<", "<=", ">", ">="):
            guards = [{"!==": [v, None]} for n, v in ((node.left, left), (node.right, right)) if isinstance(n, Path) and _may_be_none(schema, n.name)]
            return {"and": guards + [{op: [left, right]}]} if guards else {op: [left, right]}
        return {op: [left, right]}
    if kind is Path:
        field = schema[node.name]
        if field.type == "section":
            return {"!==": [_jl_value(node, schema), None]}
        return {"!!": [_jl_value(node, schema)]}
    return bool(node.value)


def _jl_value(node, schema):
    if isinstance(node, Path):
        return {"var": node.name}
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, ListLiteral):
        return list(node.values)
    return jsonlogic(node, schema)


# --- PEP 508 markers --------------------------------------------------------------------------

MARKER_VARIABLES = ["os_name", "sys_platform", "platform_machine", "platform_system",
                    "platform_python_implementation", "implementation_name", "platform_version"]


def marker(node, schema, variables) -> str:
    """Only string equality and inequality joined by and/or: what markers can say.

    *variables* maps config paths to marker variable names, filled as paths are met."""
    kind = type(node)
    if kind is And:
        return "(" + " and ".join(marker(o, schema, variables) for o in node.operands) + ")"
    if kind is Or:
        return "(" + " or ".join(marker(o, schema, variables) for o in node.operands) + ")"
    if kind is Compare and node.op in ("==", "!=") and isinstance(node.left, Path) and isinstance(node.right, Literal) \
            and isinstance(node.right.value, str) and schema[node.left.name].type == "str":
        if node.left.name not in variables:
            if len(variables) == len(MARKER_VARIABLES):
                raise Unsupported("out of marker variables")
            variables[node.left.name] = MARKER_VARIABLES[len(variables)]
        return f"{variables[node.left.name]} {node.op} {json.dumps(node.right.value)}"
    raise Unsupported(str(node))
