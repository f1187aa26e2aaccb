"""An MkDocs hook that generates the reference parts of the site at build time, from the code
itself, so that they cannot drift: a line ``<!-- reference NAME -->`` in a page is replaced by

- ``grammar``: the grammar of the predicate language, from ``matrix/_parser.py``'s docstring;
- ``codes``: the table of ``matrix check``'s finding codes, from ``matrix.check.CODES``;
- ``cli``: every command's ``--help``, from ``matrix/cli.py``'s argparse parser;
- ``choice``: how a runner is chosen, from ``matrix/_choice.py``'s docstring;
- ``remedies``: the rules of remedies, from ``matrix/_remedy.py``'s docstring;
- ``shapes``: the keys of every table of the file format, from the specs of
  ``matrix/_converter.py`` (the strict converter that gives a file its shape).

An unknown NAME fails the build.
"""

from __future__ import annotations

import io
import os
import re
from typing import Any, Callable, Dict, List

import attrs
from mkdocs.exceptions import PluginError

MARKER = re.compile(r"^<!-- reference (?P<name>[\w-]+) -->$", re.MULTILINE)


def grammar() -> str:
    from matrix import _parser

    doc = _parser.__doc__ or ""
    rules = doc.split("::\n", 1)[1].split("\nExamples", 1)[0].strip("\n")
    examples = doc.split("::\n", 2)[2].strip("\n")
    return (f"```\n{_dedent(rules)}\n```\n\nExamples, each of which parses (a test reads them from the "
            f"docstring):\n\n```\n{_dedent(examples)}\n```")


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip("\n")


def choice() -> str:
    from matrix import _choice

    doc = _choice.__doc__ or ""
    text = doc.split(":\n\n", 1)[1].split("\n\nThe decision list", 1)[0].strip("\n")
    # The docstring indents a list item's body by 3 and a nested item's by 5, as reST reads it;
    # Python-Markdown nests by 4.
    return re.sub(r"^ +", lambda m: " " * {3: 4, 5: 8}.get(len(m.group()), len(m.group())), text, flags=re.M)


def remedies() -> str:
    from matrix import _remedy

    doc = _remedy.__doc__ or ""
    text = doc.split(":\n\n", 1)[1].strip("\n")
    return re.sub(r"^ +", lambda m: " " * {2: 4}.get(len(m.group()), len(m.group())), text, flags=re.M)


def codes() -> str:
    from matrix.check import CODES

    rows = ["| code | severity | finding |", "|---|---|---|"]
    rows += [f"| `{code}` | {severity} | {meaning} |" for code, (severity, meaning) in CODES.items()]
    return "\n".join(rows)


COMMANDS = ("resolve", "check", "docs", "schema", "init")


def cli() -> str:
    from matrix.cli import run

    sections = []
    for command in (None, *COMMANDS):
        args = ["--help"] if command is None else [command, "--help"]
        out = io.StringIO()
        saved = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal's width
        try:
            run(args, stdout=out, stderr=io.StringIO())
        finally:
            if saved is None:
                del os.environ["COLUMNS"]
            else:
                os.environ["COLUMNS"] = saved
        title = "matrix" if command is None else f"matrix {command}"
        sections.append(f"### `{title}`\n\n```console\n$ {' '.join(['matrix', *args])}\n{out.getvalue().rstrip()}\n```")
    return "\n\n".join(sections)


#: Each spec of matrix/_converter.py, as the file writes it.
SHAPES = {
    "MatrixSpec": "`[matrix]` in features.toml",
    "FieldSpec": "an entry of `[config]` written as a table",
    "FeatureSpec": "`[features.<id>]`",
    "StatementSpec": "a support statement written as a table (a cell, or an item of a history)",
    "DeprecationSpec": "`deprecated` of a feature",
    "ForcesSpec": "`forces` of a feature",
    "PrefersSpec": "`prefers` of a feature",
    "RefusalSpec": "`[refusals.<id>]`",
    "KindSpec": "`[requirements.<kind>]`",
    "OrderSpec": "`[orders.<id>]`",
    "AdjustmentSpec": "`[adjustments.<id>]` (see [The effective configuration](../explanation/effective-config.md))",
    "RoleSpec": "`[roles.<id>]` (see [Roles](file-format.md#roles-several-runners-of-one-config))",
    "RunnerSpec": "a runner file, `runners/<id>.toml`",
    "ClauseSpec": "a clause of a runner's `[requires]` written as a table (or an item of a chain)",
    "WideClauseSpec": "a clause of features.toml's matrix-wide `[requires]` written as a table (or an item of a chain)",
    "AliasSpec": "an item of a runner file's `aliases` (a former id)",
    "RedirectSpec": "an item of a runner file's `redirects`",
    "RunnerDeprecationSpec": "a runner file's `deprecated` (the runner's own deprecation)",
    "ChoiceSpec": "a choice of `choices` written as a table (`{ value, since, until }`)",
    "CheckSpec": "`[check]` in features.toml",
    "IgnoreSpec": "an item of `[check] ignore`",
    "MessagesSpec": "`[messages]` in features.toml: the sentences in the host's words",
    "SentencesSpec": "`[messages.runners.<id>]`: a runner's own sentences",
    "DocsSpec": "`[docs]` in features.toml: the columns table (see [Documentation tables](docs-tables.md#the-columns-table))",
    "ColumnSpec": "`[docs.columns.<id>]`: a question users ask of every runner",
    "ColumnRowSpec": "`[docs.rows.<id>]`: a row of the columns table",
    "DocumentSpec": "features.toml itself: its tables",
}

_TOML = {str: "string", int: "integer", bool: "boolean", float: "float", object: "any value"}
_PLURAL = {str: "strings", int: "integers", bool: "booleans", float: "floats", object: "values"}


def _type(annotation: Any) -> str:
    """How a spec's annotation reads in a TOML file."""
    import typing

    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:  # a mark for the editor's schemas: the type is under it
        return _type(args[0])
    if origin is typing.Union:
        arms = [arg for arg in args if arg is not type(None)]
        return " or ".join(dict.fromkeys(_type(arm) for arm in arms))
    if origin is tuple:
        item = args[0]
        while typing.get_origin(item) is typing.Annotated:
            item = typing.get_args(item)[0]
        return f"array of {_PLURAL[item]}" if item in _PLURAL else f"array, each {_type(item)}"
    if origin is dict:
        return "table"
    if attrs.has(annotation):
        return f"table ({SHAPES[annotation.__name__]})"
    return _TOML[annotation]


def shapes() -> str:
    from matrix import _converter

    specs = [name for name, value in vars(_converter).items()
             if name.endswith("Spec") and isinstance(value, type) and attrs.has(value)]
    missing = sorted(set(specs) - set(SHAPES))
    if missing:
        raise PluginError(f"docs/hooks/reference.py: say where each spec stands in the file: {missing}")
    sections = []
    for name in SHAPES:
        rows = [f"### {SHAPES[name]}", "", "| key | type | required |", "|---|---|---|"]
        for field in attrs.fields(attrs.resolve_types(getattr(_converter, name))):
            required = "yes" if field.default is attrs.NOTHING else "no"
            rows.append(f"| `{field.name}` | {_type(field.type)} | {required} |")
        sections.append("\n".join(rows))
    return "\n\n".join(sections)


GENERATORS: Dict[str, Callable[[], str]] = {
    "grammar": grammar, "codes": codes, "cli": cli, "shapes": shapes, "choice": choice,
    "remedies": remedies}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    def generate(found: re.Match[str]) -> str:
        name = found.group("name")
        if name not in GENERATORS:
            raise PluginError(f"{page.file.src_uri}: unknown reference {name!r} (expected one of "
                              f"{', '.join(map(repr, sorted(GENERATORS)))})")
        return GENERATORS[name]()

    return MARKER.sub(generate, markdown)


__all__: List[str] = ["on_page_markdown", "GENERATORS"]
