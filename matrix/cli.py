"""The command line: ``matrix resolve``, ``check``, ``docs`` and ``schema``.

`main` is a thin wrapper around `run`, which takes its streams as arguments so tests can drive
it with ``io.StringIO``. Exit status: 0 fine; 1 a finding (no runner, unsupported, removed, stale docs);
2 bad input or usage, said in one clear line and never as a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import IO, TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, NoReturn, Optional, Protocol, Sequence, cast

from . import _access, _messages, loader
from .errors import ConfigError, MatrixError, ResolutionError
from .schema import Field, Matrix, Runner, Schema, asked_only

if TYPE_CHECKING:  # pragma: no cover
    from packaging.version import Version

    from ._remedy import Remedies
    from .resolver import Resolution

    Commands = argparse._SubParsersAction["_Parser"]


class SupportsWrite(Protocol):
    def write(self, text: str, /) -> object: ...

# What a command does not need is imported when it does (a new process pays for every import:
# see benchmarks/coldstart.py): json, tomllib, the renderer and the file helpers.


def _dumps(data: object, **kwargs: Any) -> str:
    import json

    return json.dumps(data, **kwargs)


def _json_loads(text: str) -> object:
    import json

    return json.loads(text)


class _RenderNames(Sequence[str]):
    """``render.FORMATS`` or ``render.TABLES``, for argparse's choices, imported on first use."""

    def __init__(self, name: str) -> None:
        self._name = name

    def _items(self) -> Sequence[str]:
        from . import render

        names: Sequence[str] = getattr(render, self._name)
        return names

    def __getitem__(self, index: Any) -> Any:
        return self._items()[index]

    def __len__(self) -> int:
        return len(self._items())

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __contains__(self, item: object) -> bool:
        return item in self._items()


FORMATS = _RenderNames("FORMATS")
TABLES = _RenderNames("TABLE_CHOICES")

__all__ = ["main", "run"]


def __dir__() -> List[str]:
    return __all__


EXIT_OK, EXIT_FINDING, EXIT_USAGE = 0, 1, 2


class _Usage(Exception):
    """Bad input or usage: one line for stderr, exit 2."""


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, stdout: IO[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stdout = stdout

    def error(self, message: str) -> NoReturn:  # argparse would print usage and exit
        raise _Usage(message)

    def exit(self, status: int = 0, message: Optional[str] = None) -> NoReturn:
        if message:
            raise _Usage(message.strip())
        raise _Exit(status)

    def _print_message(self, message: str, file: Optional[SupportsWrite] = None) -> None:
        if message:
            self._stdout.write(message)


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _ShowVersion(argparse.Action):
    """``matrix --version``: the version is looked up only when asked (a new process pays for
    every import: benchmarks/coldstart.py)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: Optional[str] = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: Optional[str] = None) -> None:
        from ._ci_formats import tool_version

        parser._print_message(f"matrix {tool_version()}\n")
        raise _Exit(EXIT_OK)


def _parser(stdout: IO[str], only: Optional[str] = None) -> argparse.ArgumentParser:
    """The argument parser; with *only*, the sub-command of that name alone (each sub-parser
    costs milliseconds to set up, which a new process pays: benchmarks/coldstart.py)."""
    parser = _Parser(prog="matrix", description="A declarative feature-support matrix engine.",
                     stdout=stdout)
    parser.add_argument("--version", action=_ShowVersion, help="print the version of matrix and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    if only in (None, "resolve"):
        _resolve_parser(commands, stdout)
    if only in (None, "check"):
        _check_parser(commands, stdout)
    if only in (None, "schema"):
        _schema_parser(commands, stdout)
    if only in (None, "docs"):
        _docs_parser(commands, stdout)
    if only in (None, "init"):
        _init_parser(commands, stdout)
    if only in (None, "overlays"):
        _overlays_parser(commands, stdout)
    if only in (None, "diff"):
        from . import _diff_cli

        _diff_cli.add_parser(commands, stdout)
    return parser


def _resolve_parser(commands: Commands, stdout: IO[str]) -> None:
    resolve = commands.add_parser(
        "resolve", help="say which runner serves a config, and why", stdout=stdout,
        description="Resolve a config against the matrix: the active features, every runner's "
                    "blockers, the warnings, and the chosen runner.")
    resolve.add_argument("config", nargs="?", metavar="CONFIG",
                         help="a JSON or TOML file, or - for standard input (default: an empty config)")
    resolve.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                         help="set a config value, read by the type the schema declares for PATH "
                              "(true/false, a number, text, a JSON or TOML array or table, null)")
    resolve.add_argument("--allow-extra", action="store_true",
                         help="ignore keys of the config file that the matrix's [config] does not declare "
                              "(default: refuse them, with \"did you mean\")")
    resolve.add_argument("--runner", metavar="ID", help="ask for this runner instead of choosing")
    resolve.add_argument("--version", metavar="V", help="resolve as of this version")
    _matrix_option(resolve)
    resolve.add_argument("--json", action="store_true", help="print the resolution as JSON")
    resolve.add_argument("--explain", action="store_true", help="explain every runner's blockers")
    resolve.add_argument("--how", metavar="RUNNER",
                         help="say the smallest changes to the config that make RUNNER serve it "
                              "(asked for with --runner, else chosen automatically)")


def _check_parser(commands: Commands, stdout: IO[str]) -> None:
    check = commands.add_parser(
        "check", help="lint the matrix and prove properties over the whole config space",
        stdout=stdout,
        description="Lint the matrix: lifecycle, gates that can never or always fire, "
                    "contradictions, runners never chosen, and configs no runner can serve, "
                    "each with a witness config.")
    check.add_argument("files", nargs="*", metavar="FILE",
                       help="check the matrices these changed files belong to (each features.toml, or the "
                            "features.toml beside the runners/ folder of a runner file), each once, as the "
                            "pre-commit hook passes them (default: the matrix --matrix names or the one found)")
    _matrix_option(check)
    check.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text",
                       help="text; json; sarif (SARIF 2.1.0, for code scanning); github (workflow "
                            "commands: annotations on the lines of a pull request)")
    check.add_argument("--strict", action="store_true", help="fail on every finding, notes included")
    when = check.add_mutually_exclusive_group()
    when.add_argument("--version", metavar="V", help="check the matrix as of this version")
    when.add_argument("--all-versions", action="store_true",
                      help="check the matrix at every release its file names, up to its own version, "
                           "each finding once (with the releases it is found at, when not all)")
    check.add_argument("--against", metavar="MODULE:CLASS",
                       help="compare [config] with this config class of the host (default: "
                            "[matrix] config_class, if the file names one)")


def _schema_parser(commands: Commands, stdout: IO[str]) -> None:
    schema = commands.add_parser(
        "schema", help="derive a [config] table from the host's config classes, or the JSON Schema of the "
                       "matrix's files for editors", stdout=stdout,
        description="With --from: print the [config] table that describes a config class of the host "
                    "(dataclasses, attrs classes, pydantic models, nested to any depth); MODULE is imported "
                    "as python -m would, from the current folder. With --json-schema: print the JSON Schema "
                    "(draft-07) of the matrix's features.toml (or, with --runner-file, of its runner files) "
                    "for editors such as VS Code's Even Better TOML and the taplo CLI; --write keeps both "
                    "next to the files, where matrix check reports them stale.")
    which = schema.add_mutually_exclusive_group(required=True)
    which.add_argument("--from", dest="source", metavar="MODULE:CLASS",
                       help="the host's top-level config class, such as vllm.config:VllmConfig")
    which.add_argument("--json-schema", action="store_true",
                       help="the JSON Schema of features.toml for editors")
    _matrix_option(schema)
    schema.add_argument("--runner-file", action="store_true",
                        help="with --json-schema: the schema of a runner file instead")
    schema.add_argument("--write", action="store_true",
                        help="with --json-schema: write <stem>.schema.json next to the features file and "
                             "runner.schema.json in the runner folder, instead of printing")
    schema.add_argument("paths", nargs="*", metavar="PATH",
                        help="only these dotted paths (and the sections above them); default: "
                             "every field, with a comment for each that cannot be mapped")


def _docs_parser(commands: Commands, stdout: IO[str]) -> None:
    docs = commands.add_parser(
        "docs", help="generate the documentation tables", stdout=stdout,
        description="Render the tables of the matrix: the support table, the runners, the feature "
                    "pairs, the config reference and the deprecation timeline.")
    _matrix_option(docs)
    # A metavar, and choices named in the help only (expanded when help is printed): argparse
    # would otherwise list the choices while setting up, importing the renderer for every command.
    docs.add_argument("--format", choices=FORMATS, metavar="FORMAT",
                      help="the output format: %(choices)s (default: from the file's extension with "
                           "--output or --inject, else markdown)")
    docs.add_argument("--version", metavar="V", help="document the matrix as of this version")
    docs.add_argument("--table", action="append", choices=TABLES, metavar="TABLE",
                      help="only this table (%(choices)s); repeatable (default: all but pairs, "
                           "a search that grows with the square of the number of features, and "
                           "release-notes, a diff per pair of releases)")
    docs.add_argument("--text-only", action="store_true",
                      help="write each status as its word alone (yes, no, partial, opt-in), without its symbol")
    target = docs.add_mutually_exclusive_group()
    target.add_argument("--output", metavar="FILE", help="write the document to FILE (atomically)")
    target.add_argument("--inject", metavar="FILE",
                        help="replace what stands between the matrix:begin and matrix:end markers of FILE")
    docs.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 with a diff when the --output or --inject file is stale")


def _overlays_parser(commands: Commands, stdout: IO[str]) -> None:
    overlays = commands.add_parser(
        "overlays", help="list the overlays installed packages declare for the matrix", stdout=stdout,
        description="List the overlays installed packages declare in the entry-point group matrix.overlays "
                    "that extend the matrix, in the order --installed-overlays applies them, each with "
                    "its distribution and file, and whether MATRIX_REFUSE_OVERLAYS refuses it.")
    overlays.add_argument("--matrix", metavar="FILE",
                          help="the features.toml they extend, or 'default' for the packaged vLLM matrix "
                               "(default: the one found, as for resolve)")


def _overlays(options: argparse.Namespace, *, stdout: IO[str], stderr: IO[str], stdin: Optional[IO[str]]) -> int:
    upstream = _upstream(options, stderr)
    listed = loader.installed_overlays(upstream)
    if not listed:
        stdout.write(_messages.no_installed_overlays(loader.load(upstream).name) + "\n")
    for o in listed:
        stdout.write(_messages.installed_overlay_line(o.name, o.overlay, o.distribution, o.file, o.extends, o.refused) + "\n")
    return EXIT_OK


def _init_parser(commands: Commands, stdout: IO[str]) -> None:
    init = commands.add_parser(
        "init", help="write a starter matrix: features.toml, runner files, editor schemas and a test",
        stdout=stdout,
        description="Write a starter features.toml (two gates), runners/fast.toml and runners/simple.toml, their "
                    "JSON Schemas for editors (with the #:schema lines that name them), and test_matrix.py, "
                    "which proves with matrix.testing.assert_matches that the matrix answers as a gate function. "
                    "Nothing is overwritten.")
    init.add_argument("folder", nargs="?", default=".", metavar="FOLDER", help="where to write (default: here)")
    init.add_argument("--name", help="the matrix's name (default: FOLDER's name)")


def _matrix_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--matrix", metavar="FILE",
                        help="the features.toml to use (REV:PATH: as of a git revision, with its runner files), "
                             "or 'default' for the packaged vLLM matrix (default: "
                             "[tool.matrix] matrix of a pyproject.toml, else a features.toml, in this folder "
                             "or the nearest above it)")
    parser.add_argument("--overlay", action="append", metavar="FILE",
                        help="apply this overlay file to the matrix; repeatable, applied in the order given")
    parser.add_argument("--installed-overlays", action="store_true",
                        help="also apply the overlays installed packages declare (entry points "
                             "matrix.overlays) for this matrix, except those MATRIX_REFUSE_OVERLAYS names")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``matrix`` console script."""
    # _PipeSafe implements what the commands use of a text stream: write, writelines, flush.
    stdout = cast(IO[str], _PipeSafe(sys.stdout))
    status = run(sys.argv[1:] if argv is None else argv, stdout=stdout, stderr=sys.stderr,
                 stdin=sys.stdin)
    stdout.flush()
    return status


class _PipeSafe:
    """Standard output that goes quiet when its reader has gone (``matrix check | head -1``):
    the command still runs to the end, so its exit status keeps its meaning."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                self._stream.write(text)
            except BrokenPipeError:
                self._went()
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._went()

    def _went(self) -> None:
        self._gone = True
        # What is still buffered would be flushed again at exit, and fail noisily.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):  # not a real file: nothing to redirect
            pass


def run(args: Sequence[str], *, stdout: IO[str], stderr: IO[str],
        stdin: Optional[IO[str]] = None) -> int:
    """Run the command line *args*, writing to *stdout* and *stderr*; returns the exit status."""
    args = list(args)
    options = None
    try:
        options = _parser(stdout, args[0] if args and args[0] in _COMMANDS else None).parse_args(args)
        return _COMMANDS[options.command](options, stdout=stdout, stderr=stderr, stdin=stdin)
    except _Exit as done:
        return done.status
    except (_Usage, MatrixError) as problem:
        stderr.write(f"matrix: error: {problem}\n")
        if _wants_json(options, args):
            error = problem.to_dict() if isinstance(problem, MatrixError) else {"kind": "UsageError", "message": str(problem)}
            stdout.write(_dumps({"error": error}, indent=2, ensure_ascii=False) + "\n")
        return EXIT_USAGE


def _wants_json(options: Optional[argparse.Namespace], args: List[str]) -> bool:
    """Whether the command line asks for JSON output (read from the words themselves when
    they did not parse)."""
    if options is not None:
        return bool(getattr(options, "json", False)) or getattr(options, "format", None) == "json"
    return "--json" in args or "--format=json" in args or any(
        a == "--format" and b == "json" for a, b in zip(args, args[1:]))


def _matrix(options: argparse.Namespace, stderr: Optional[IO[str]] = None) -> Matrix:
    """The matrix named by ``--matrix``, else the one found from the current folder (see
    `_files.find_matrix`); never the packaged matrix unless it was asked for. With *stderr*,
    says which file was used when it is not ``./features.toml``."""
    upstream = _upstream(options, stderr)
    overlays, installed = getattr(options, "overlay", None), getattr(options, "installed_overlays", False)
    if upstream is not None and options.matrix is not None:
        from . import _files

        if any(_files.is_revision(f) for f in (upstream, *(overlays or ()))):  # REV:PATH, as matrix diff reads it
            if installed:
                raise _Usage(_messages.REVISION_NOT_INSTALLED)
            from . import _revision

            return _revision.load(upstream, overlays or ())
    if overlays or installed:
        return loader.load(upstream, overlays or (), installed=installed)
    return loader.default() if upstream is None else loader.load(upstream)


def _upstream(options: argparse.Namespace, stderr: Optional[IO[str]] = None) -> Optional[str]:
    """The file of the matrix ``--matrix`` names or the one found (None: the packaged matrix)."""
    from . import _files

    if options.matrix is not None:
        return None if options.matrix == _files.PACKAGED else str(options.matrix)
    found = _files.found_here(stderr)
    return None if found == _files.PACKAGED else found


def _every_value_checked(resolution: Resolution) -> None:
    """Raises the `ConfigError` of the first value of the config the field does not allow, read
    by a gate or not: resolve checks what the gates read, the JSON output reads every path (the
    effective config), and the command answers alike in every format."""
    dict(resolution.effective)


def _resolve(options: argparse.Namespace, *, stdout: IO[str], stderr: IO[str], stdin: Optional[IO[str]]) -> int:  # noqa: C901 — the resolve command's flow in order: read, --set, resolve, each output format and its exit code
    config = _read_config(options.config, stdin)
    matrix = _matrix(options, stderr)
    for assignment in options.set:
        _assign(config, assignment, matrix.schema, matrix.release(options.version) if matrix.schema else None)
    if matrix.schema and not options.allow_extra:
        # A misspelt key would otherwise be answered for as its default: refused, in the file
        # and in a table --set gives alike.
        found = _access.unknown_keys(config, matrix.schema)
        if found:
            raise _Usage(_messages.config_keys_undeclared(
                options.config or "given", [_messages.config_error(reason, path, None) for path, reason in found],
                any(_messages.HAS_A_DOT not in reason for _, reason in found)))
    if options.runner is not None and matrix.alias(options.runner) is None:
        matrix.runner(options.runner)  # an unknown id is a usage error, exit 2 (resolve judges a former id)
    if options.how is not None:
        _how_asked(matrix, options)
    try:
        resolution = matrix.resolve(config, runner=options.runner, version=options.version)
    except ResolutionError as finding:
        _every_value_checked(finding.resolution)
        if options.json:
            data = _resolution_json(finding.resolution, options.explain, finding.remedies)
            data["error"] = finding.to_dict()
            _how(finding.resolution, options, data)
            stdout.write(_dumps(data, indent=2, ensure_ascii=False) + "\n")
        elif options.explain:
            stderr.write(f"matrix: {finding.message}\n")
            stdout.write(finding.resolution.explain() + "\n")
            _how(finding.resolution, options, stdout=stdout)
        else:  # what was said on the way (a fallback before the refusal) comes first, as a host logs it
            for warning in finding.resolution.warnings:
                stdout.write(f"Warning ({warning.kind}): {warning.message}\n")
            stderr.write(f"matrix: {finding.message}\n")
            _how(finding.resolution, options, stdout=stdout)
        return EXIT_FINDING
    _every_value_checked(resolution)
    if options.json:
        data = _resolution_json(resolution, options.explain)
        _how(resolution, options, data)
        stdout.write(_dumps(data, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    if options.explain:  # the explanation says all the summary would, and more
        stdout.write(resolution.explain() + "\n")
        _how(resolution, options, stdout=stdout)
        return EXIT_OK
    chosen = matrix.runner(resolution.runner)
    explained = resolution.explanation(remedies=False)  # the summary does not show them
    how = "automatically"
    asked = explained["requested"]  # --runner, or the base role's field (a request too)
    if asked:
        if explained["redirected"] is not None and explained["how"] == "redirected":
            how = f"redirected from the {asked} asked for,"
        elif chosen.id in (asked, explained["alias_of"]):
            how = "as asked"
        else:
            how = f"over the {asked} asked for,"
    stdout.write(f"Chose {_named(chosen)} {how} at version {resolution.version}\n")
    if "roles" in explained:  # a matrix with [roles]: each role's runner, as explain() says them
        from ._roles import said

        stdout.write("Roles: " + "; ".join(said(matrix, r["id"], r["runner"], r["how"], r["follows"])
                                           for r in explained["roles"]) + "\n")
    if explained["order"] is not None and not asked:
        order = explained["order"]
        stdout.write(f"Order: {_messages.order_applies(order['name'], order['when'])}\n")
    preference = next((w for w in resolution.warnings if w.kind == "preference" and w.runner == chosen.id), None)
    if preference is not None and not asked:
        tried_first = []  # free candidates automatic choice would have taken first
        for entry in explained["runners"]:
            if entry["id"] == chosen.id:
                break
            if entry["candidate"] and not resolution.unsupported[entry["id"]]:
                tried_first.append(_named(matrix.runner(entry["id"])))
        stdout.write(_messages.preferred_summary(matrix.feature(preference.feature).name, tried_first) + "\n")
    passed = False
    # A redirect that applies always acts where automatic choice reaches its runner, before its
    # blockers are read: that runner was redirected (its warning says so), not skipped.
    sent = resolution.redirect if not asked else None
    for entry in explained["runners"]:  # in the order automatic choice tried them
        runner = matrix.runner(entry["id"])
        if runner.id == chosen.id or sent is not None and runner.id == sent.runner:
            passed = True
            continue
        if not entry["candidate"] and not asked:
            if not passed:  # tried before the chosen one, had it been a candidate
                from ._overlay_origin import removed

                why = removed(matrix, runner.id) or _messages.candidacy(runner.candidate, asked_only(runner.candidate))
                stdout.write(f"Not a candidate: {_named(runner)}, {why}\n")
            continue
        blockers = resolution.unsupported[runner.id]
        if not blockers:
            continue
        names = ", ".join(resolution._said(f, runner.id) for f in blockers)  # a reason with its values
        verb = "Skipped" if not passed and not asked else "Also blocked"
        stdout.write(f"{verb} {_named(runner)} because of: {names}\n")
    for change in resolution.adjustments:
        from ._adjust import when_said

        stdout.write(_messages.adjusted_summary(change.path, change.before, change.after, change.id,
                                                when_said(resolution.matrix, change)) + "\n")
    for warning in resolution.warnings:
        stdout.write(f"Warning ({warning.kind}): {warning.message}\n")
    _how(resolution, options, stdout=stdout)
    return EXIT_OK


def _how(resolution: Resolution, options: argparse.Namespace, data: Optional[Dict[str, Any]] = None, *,
         stdout: Optional[IO[str]] = None) -> None:
    """``--how RUNNER``: the remedy for RUNNER, as a line of text or under ``how`` in *data*."""
    if options.how is None:
        return
    from . import _choice

    # A former id is a request for the runner it names, with its warning, as --runner's is
    # (said here unless the resolution said it already).
    said: List[Any] = []
    runner = _choice.former(resolution._plan, options.how, said)
    said = [w for w in said if w not in resolution.warnings]
    remedies = resolution.remedy(runner)
    if data is not None:
        data["how"] = remedies.to_dict()
        data.setdefault("warnings", []).extend(
            {"kind": w.kind, "feature": w.feature, "runner": w.runner, "message": w.message} for w in said)
    elif stdout is not None:
        for warning in said:
            stdout.write(f"Warning ({warning.kind}): {warning.message}\n")
        stdout.write(f"How: {remedies}\n")


def _how_asked(matrix: Matrix, options: argparse.Namespace) -> None:
    """Refuse ``--how`` naming no runner before anything is resolved, as a request is refused:
    an unknown id, or a former id removed at the version (`UsageError`, naming the new id)."""
    from . import _choice, resolver

    if matrix.alias(options.how) is None:
        matrix.runner(options.how)
    else:
        _choice.asked(resolver._plan(matrix, options.version), options.how)


def _named(runner: Runner) -> str:
    """``v1 (Model Runner V1)``; ``pandas`` once where the name is the id."""
    return runner.id if runner.name == runner.id else f"{runner.id} ({runner.name})"


def _resolution_json(resolution: Resolution, explain: bool,
                     remedies: Optional[Sequence[Remedies]] = None) -> Dict[str, Any]:
    """`Resolution.to_dict`, with the report (``report``) and with *explain* the explanation, the
    remedies searched once for both (those of the error, when it has them)."""
    data = resolution.to_dict()
    found = [r.to_dict() for r in (remedies or resolution.remedies())]
    if explain:
        data["explanation"] = resolution.explanation(remedies=False)
        data["explanation"]["remedies"] = found
    data["report"] = resolution.report(remedies=False)
    data["report"]["remedy"] = found
    return data


def _read_config(name: Optional[str], stdin: Optional[IO[str]]) -> Dict[str, Any]:
    if name is None:
        return {}
    if name == "-":
        text = (stdin or sys.stdin).read()
        shown = "<stdin>"
    else:
        shown = name
        try:
            with open(name, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the name, or not UTF-8
            raise _Usage(_messages.cannot_read_config(name, exc)) from None
    if name.endswith(".toml"):
        data = _toml(text, shown)
    elif name.endswith(".json"):
        data = _json(text, shown)
    else:
        try:
            data = _json_loads(text)
        except ValueError:
            data = _toml(text, shown)
    if not isinstance(data, dict):
        raise _Usage(_messages.config_not_a_table(shown, data))
    return data


def _json(text: str, shown: str) -> object:
    try:
        return _json_loads(text)
    except ValueError as exc:
        raise _Usage(_messages.config_not_json(shown, exc)) from None
    except RecursionError:
        raise _Usage(_messages.config_too_deep(shown)) from None


def _toml(text: str, shown: str) -> object:
    tomllib = loader._toml()
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _Usage(_messages.config_not_toml(shown, loader.toml_syntax_problem(shown, text, exc))) from None
    except RecursionError:
        raise _Usage(_messages.config_too_deep(shown)) from None


def _literal(text: str) -> object:
    """A ``--set`` value for a path no schema declares: JSON, else TOML, else the text."""
    try:
        return _json_loads(text)
    except (ValueError, RecursionError):
        pass
    tomllib = loader._toml()
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return text


_BOOLS = {"true": True, "false": False, "True": True, "False": False}


def _typed(field: Field, text: str, now: Optional[Field] = None) -> object:
    """A ``--set`` value read as *field*'s type says: ``x.v=19.03`` on a version field is the
    version '19.03', not a float; raises `_Usage` naming the spelling to use. Its bounds, choices
    and None are checked by *now* (None: the field does not exist at the version asked, nothing
    reads it there and a config file's value is accepted: so is this, a diff's witness too)."""
    kind = field.type
    if text == "null" or (text == "None" and kind not in ("str", "version")):
        value: object = None
    elif kind == "bool":
        if text not in _BOOLS:
            raise _Usage(_messages.set_expected(field.path, text, "true or false"))
        value = _BOOLS[text]
    elif kind in ("int", "float"):
        try:
            value = int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None
            if value is None and kind == "float":
                value = float(text)
        except ValueError:
            value = None
        if value is None:
            raise _Usage(_messages.set_expected(field.path, text, "an integer" if kind == "int" else "a number"))
    elif kind in ("str", "version"):
        value = text
        if len(text) >= 2 and text[0] == text[-1] == '"':
            try:
                value = _json_loads(text)
            except ValueError:
                pass
    else:  # lists and sections: a JSON or TOML array or table
        value = _literal(text)
        if kind == "section" and not isinstance(value, dict) or kind != "section" and not isinstance(value, list):
            what = "a table such as {}" if kind == "section" else "an array such as [\"a\", \"b\"]"
            raise _Usage(_messages.set_expected(field.path, text, what))
    try:
        if now is not None:
            _access.check(now, tuple(value) if isinstance(value, list) else value)
    except ConfigError as error:
        raise _Usage(_messages.set_refused(field.path, text, error.reason)) from None
    return value


def _assign(config: Dict[str, object], assignment: str, schema: Schema, version: Optional[Version] = None) -> None:
    path, sep, text = assignment.partition("=")
    path = path.strip()
    parts = path.split(".")
    if not sep or not all(parts):
        raise _Usage(_messages.bad_assignment(assignment))
    if schema:
        field = schema.get(path)
        if field is None and path in schema.derived:
            raise _Usage(_messages.set_derived(path))
        if field is None:
            raise _Usage(_messages.set_undeclared(path, [f.path for f in schema]))
        value = _typed(field, text, field if version is None or field.at(version) is not None else None)
    else:
        value = _literal(text)
    target = config
    for index, part in enumerate(parts[:-1]):
        inner = target.setdefault(part, {})
        if not isinstance(inner, dict):
            where = ".".join(parts[: index + 1])
            raise _Usage(_messages.cannot_set(path, where, inner))
        target = inner
    target[parts[-1]] = value


_EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".rest": "rst",
               ".html": "html", ".htm": "html", ".json": "json"}


def _docs(options: argparse.Namespace, *, stdout: IO[str], stderr: IO[str], stdin: Optional[IO[str]]) -> int:
    from . import _files
    from .render import DEFAULT_TABLES, TABLES, render

    target = options.output or options.inject
    if options.check and target is None:
        raise _Usage(_messages.check_needs_target())
    format = options.format
    if format is None:
        extension = os.path.splitext(target or "")[1].lower()
        format = _EXTENSIONS.get(extension, "markdown")
    if options.inject and format == "json":
        raise _Usage(_messages.inject_needs_page())
    matrix = _matrix(options, stderr)
    # Rendered in full before any file is touched: a failure leaves every file as it was.
    tables = TABLES if "all" in (options.table or ()) else options.table or DEFAULT_TABLES
    text = render(matrix, format=format, version=options.version, tables=tables,
                  standalone=not options.inject, symbols=not options.text_only)
    if target is None:
        stdout.write(text)
        return EXIT_OK
    current = _files.read_text(target)
    if options.inject:
        if current is None:
            raise _Usage(_messages.nothing_to_inject_into(target))
        wanted = _files.inject(current, text, target)
    else:
        wanted = text
    if options.check:
        if current == wanted:
            return EXIT_OK
        import difflib

        diff = difflib.unified_diff((current or "").splitlines(keepends=True), wanted.splitlines(keepends=True),
                                    fromfile=f"{target} (on disk)", tofile=f"{target} (generated)")
        stdout.writelines(line if line.endswith("\n") else line + "\n" for line in diff)
        stderr.write(f"matrix: {target} is stale: run the same command without --check to update it\n")
        return EXIT_FINDING
    if current != wanted:
        try:
            _files.atomic_write(target, wanted)
        except (OSError, ValueError) as exc:
            raise _Usage(_messages.cannot_write(target, exc)) from None
    return EXIT_OK


def _check(options: argparse.Namespace, *, stdout: IO[str], stderr: IO[str], stdin: Optional[IO[str]]) -> int:
    from .schema import CLASS_SPEC  # compiled when first read (matrix._format)

    if options.against is not None and not CLASS_SPEC.match(options.against):
        raise _Usage(_messages.bad_class_spec(options.against))
    if not options.files:
        return _check_one(_matrix(options), options, stdout=stdout)
    if options.matrix is not None or options.overlay or options.installed_overlays:
        raise _Usage(_messages.check_files_and_matrix())
    files = _changed_matrices(options.files)
    if len(files) > 1 and options.format in ("json", "sarif"):
        raise _Usage(_messages.check_one_document(options.format))
    status = EXIT_OK
    for file in files:
        try:
            outcome = _check_one(loader.load(file), options, stdout=stdout)
        except MatrixError as problem:
            stderr.write(f"matrix: error: {problem}\n")
            outcome = EXIT_USAGE
        status = max(status, outcome)
    return status


def _changed_matrices(files: Sequence[str]) -> List[str]:
    """The features files to check for the changed *files* (as the pre-commit hook passes them):
    a features file itself, or the one beside the runner folder of a runner file; each once."""
    found: Dict[str, str] = {}
    for file in files:
        folder, base = os.path.split(file)
        if base.endswith(".toml") and os.path.basename(folder) == "runners":
            features = os.path.join(os.path.dirname(folder), "features.toml")
            if not os.path.isfile(features):
                continue  # a runner folder of something other than a matrix
        else:
            features = file
        found.setdefault(os.path.normcase(os.path.abspath(features)), os.path.normpath(features))
    return list(found.values())


def _check_one(matrix: Matrix, options: argparse.Namespace, *, stdout: IO[str]) -> int:  # noqa: C901 — one check run: --all-versions merges findings per release, then each output format and the exit code
    from .check import Finding, Report, check

    versions: List[str] = []  # with --all-versions: the releases checked
    seen_at: Dict[str, List[str]] = {}  # with --all-versions: a finding's text → the releases it is found at
    # with --all-versions: a finding's text → each witness it has (JSON), in release order → its releases
    witnesses: Dict[str, Dict[str, List[str]]] = {}
    if options.all_versions:
        from . import _releases

        versions = [str(v) for v in _releases.named(matrix)]
        findings: Dict[str, Finding] = {}
        for version in versions:
            for finding in check(matrix, version=version, strict=options.strict, against=options.against).findings:
                key = str(finding)  # one finding, whatever config shows it at each release
                findings.setdefault(key, finding)
                seen_at.setdefault(key, []).append(version)
                witnesses.setdefault(key, {}).setdefault(_dumps(finding.witness, sort_keys=True), []).append(version)
        report = Report(tuple(findings.values()), strict=options.strict)
    else:
        report = check(matrix, version=options.version, strict=options.strict, against=options.against)
    from . import _ignore

    # An ignore entry is used where it ignores a finding at any release (every release's findings
    # are read), and a refusal is used where it matches at any release: `refusal-unused` is then
    # said of one unused at every release (a user trial: a refusal of 2.1's configs was said
    # unused at 2.0, which no change to the file answers), ignored or not.
    report, ignored = _ignore.apply(matrix, report)
    if options.all_versions:
        def said(finding: Finding) -> bool:
            return finding.code != "refusal-unused" or seen_at[str(finding)] == versions

        report = Report(tuple(f for f in report.findings if said(f)), strict=options.strict)
        ignored = [(f, entry) for f, entry in ignored if said(f)]
        for finding in report.findings:  # an entry that ignores nothing at any release: said of every one
            seen_at.setdefault(str(finding), versions)
            witnesses.setdefault(str(finding), {"null": versions})
    if options.format in ("sarif", "github"):
        from . import _ci_formats

        if options.format == "sarif":
            stdout.write(_ci_formats.sarif(report, tool_version=_ci_formats.tool_version()))
        else:
            stdout.write(_ci_formats.github(report))
    elif options.format == "json":
        data: Dict[str, Any] = {"matrix": matrix.name, "version": str(options.version or matrix.version),
                                "failed": report.failed, "counts": report.counts(),
                                "findings": [f.to_dict() for f in report.findings]}
        if ignored:
            data["ignored"] = [{**f.to_dict(), "reason": entry.reason} for f, entry in ignored]
        if options.all_versions:
            data["versions"] = versions
            for finding, entry in zip(report.findings, data["findings"]):
                entry["versions"] = seen_at[str(finding)]
                if len(witnesses[str(finding)]) > 1:  # another config shows it at another release
                    entry["witnesses"] = [{"versions": at, "witness": _json_loads(w)}
                                          for w, at in witnesses[str(finding)].items()]
        stdout.write(_dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        for finding in report.findings:
            stdout.write(f"{finding}\n")
            shown = witnesses.get(str(finding), {})
            if len(shown) > 1:  # --all-versions: each config that shows it, with its releases
                for witness, at in shown.items():
                    stdout.write(f"    witness at {', '.join(at)}: {witness}\n")
            elif finding.witness is not None:
                stdout.write(f"    witness: {_dumps(finding.witness, sort_keys=True)}\n")
            if options.all_versions:
                at = seen_at[str(finding)]
                if at != versions:
                    stdout.write(f"    at: {', '.join(at)}\n")
        label = matrix.file or "matrix"
        if _is_packaged(matrix):
            label = _messages.packaged_matrix(label)
        summary = report.summary()
        if ignored:
            summary += _messages.ignored_count(len(ignored))
        if options.all_versions:
            summary += _messages.at_every_release(versions)
        stdout.write(f"{label}: {summary}\n")
    return EXIT_FINDING if report.failed else EXIT_OK


def _is_packaged(matrix: Matrix) -> bool:
    """Whether *matrix* is the packaged default matrix, without loading it when this process has
    not (then it cannot be: 0.27 s of `matrix check` on a user's matrix went to loading it)."""
    return loader.default.cache_info().currsize > 0 and matrix is loader.default()


def _schema(options: argparse.Namespace, *, stdout: IO[str], stderr: IO[str], stdin: Optional[IO[str]]) -> int:
    if options.json_schema:
        from . import editor

        if options.paths:
            raise _Usage(_messages.json_schema_paths())
        matrix = _matrix(options)
        if options.write and _is_packaged(matrix):
            raise _Usage(_messages.json_schema_write_default())
        if options.write:
            try:
                written = editor.write(matrix)
            except OSError as exc:
                raise _Usage(_messages.cannot_write(exc.filename or "the schema", exc)) from None
            for path in written:
                stdout.write(f"wrote {path}\n")
            for path in _add_schema_lines(matrix, written):
                stdout.write(f"added the #:schema line to {path}\n")
            return EXIT_OK
        stdout.write(editor.text(editor.runner_schema(matrix) if options.runner_file else editor.features_schema(matrix)))
        return EXIT_OK
    if options.runner_file or options.write:
        raise _Usage(_messages.json_schema_only("--runner-file" if options.runner_file else "--write"))
    from .binding import derive

    stdout.write(derive(options.source, options.paths))
    return EXIT_OK


def _add_schema_lines(matrix: Matrix, written: Sequence[str]) -> List[str]:
    """Put the ``#:schema`` line that editors read (taplo, Even Better TOML) at the top of the
    features file and of each runner file that has none; returns the files changed."""
    from . import _files

    features_schema, runner_schema = written
    wanted = [(matrix.file, features_schema)] + [(r.file, runner_schema) for r in matrix.runners]
    changed = []
    for file, schema in wanted:
        if file is None:
            continue
        text = _files.read_text(file)
        if text is None or _has_schema_line(text):
            continue
        relative = os.path.relpath(schema, os.path.dirname(os.path.abspath(file)))
        try:
            _files.atomic_write(file, f"#:schema ./{relative}\n" + text)
        except (OSError, ValueError) as exc:
            raise _Usage(_messages.cannot_write(file, exc)) from None
        changed.append(file)
    return changed


def _has_schema_line(text: str) -> bool:
    """Whether the comments that open *text* hold a ``#:schema`` line (taplo reads it there only)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#:schema"):
            return True
        if stripped and not stripped.startswith("#"):
            return False
    return False


def _init(options: argparse.Namespace, *, stdout: IO[str], stderr: IO[str], stdin: Optional[IO[str]]) -> int:
    from . import _files, _starter, editor

    folder = options.folder
    name = options.name or os.path.basename(os.path.abspath(folder)) or "matrix"
    planned = _starter.files(folder, name)
    taken = [os.path.normpath(path) for path, _ in planned if os.path.lexists(path)]
    if taken:
        raise _Usage(_messages.init_would_overwrite(taken))
    written = []
    try:
        for path, text in planned:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            _files.atomic_write(path, text)
            written.append(path)
        written += editor.write(loader.load(planned[0][0]))
    except OSError as exc:
        raise _Usage(_messages.cannot_write(exc.filename or folder, exc)) from None
    for path in written:
        stdout.write(f"wrote {os.path.normpath(path)}\n")
    stdout.write(_messages.init_next(folder) + "\n")
    return EXIT_OK


def _diff(options: argparse.Namespace, *, stdout: IO[str], stderr: IO[str], stdin: Optional[IO[str]]) -> int:
    from . import _diff_cli

    return _diff_cli.run(options, stdout=stdout, stderr=stderr, stdin=stdin)


_COMMANDS = {"resolve": _resolve, "check": _check, "docs": _docs, "schema": _schema, "init": _init, "diff": _diff,
             "overlays": _overlays}
