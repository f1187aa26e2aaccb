"""``matrix diff``: the command (reading both sides, ``[tool.matrix.diff]``, the output formats)."""

from __future__ import annotations

import argparse
import json
import os
import pathlib
from typing import IO, Any, Dict, List, Optional, Tuple

from . import _files, _messages, _revision, loader
from ._ci_formats import tool_version
from ._files import toml
from .diff import CHANGES, LEVELS, Accepted, Difference, DiffReport, Level, brief, command, diff
from ._diff_types import REFUSING
from .errors import RemovedFeatureError, ResolutionError, UsageError
from .schema import Matrix

#: Findings shown in the table of a Markdown comment; the rest go in a <details> block.
MARKDOWN_ROWS = 10


def add_parser(commands: Any, stdout: IO[str]) -> None:
    parser = commands.add_parser(
        "diff", help="what a change to the matrix does to every config", stdout=stdout,
        description="Compare two matrices (files, or REV:PATH read from git with the runner files of that "
                    "revision), or one matrix at two versions, over every config: each change with its level, "
                    "the configs it changes, a witness and the entries that cause it.")
    parser.add_argument("old", nargs="?", metavar="OLD", help="the matrix before: a file, or REV:PATH")
    parser.add_argument("new", nargs="?", metavar="NEW", help="the matrix after: a file, or REV:PATH")
    parser.add_argument("--base", metavar="REV", help="compare OLD (default: the matrix every command finds from "
                                                       "this folder) at REV with the working tree")
    parser.add_argument("--matrix", metavar="FILE", help="with --from-version/--to-version: the matrix (default: the "
                                                          "one every command finds from this folder)")
    parser.add_argument("--from-version", metavar="A", help="the version of the old side")
    parser.add_argument("--to-version", metavar="B", help="the version of the new side")
    parser.add_argument("--format", choices=("text", "json", "markdown", "github", "sarif"), default="text",
                        help="text; json (matrix/diff.schema.json); markdown (a pull-request comment); github "
                             "(workflow commands: an annotation on the line of each change's cause, the base "
                             "file's line for what was removed); sarif (SARIF 2.1.0, for code scanning)")
    parser.add_argument("--configs", metavar="FILE",
                        help="for these configs only, a table of which change and how: a file of JSON lines "
                             "(one config each), or a folder of TOML and JSON configs; the exit status is then "
                             "the fleet's (printed under the table: 2 for a config both sides reject)")
    parser.add_argument("--level", action="append", default=[], metavar="ID=LEVEL",
                        help="the level of a change id (breaking, behaviour, cosmetic); repeatable, one level per id")
    parser.add_argument("--fail-on", choices=LEVELS, default=None,
                        help="exit 1 when a change not accepted is at this level or more severe (default: "
                             "[tool.matrix.diff] fail-on, else breaking)")


def run(options: argparse.Namespace, *, stdout: IO[str], stderr: IO[str], stdin: Optional[IO[str]]) -> int:
    (before, old_file), new = _sides(options, stderr)
    settings = _settings(os.getcwd())
    _accepted_gates(settings, *([] if before is None else [(before, options.from_version)]),
                    (new[0], options.to_version))
    levels = dict(settings.levels)
    given: Dict[str, Level] = {}
    for assignment in options.level:
        change_id, _, level = assignment.partition("=")
        level = _level(change_id, level, "--level")
        if given.setdefault(change_id, level) != level:  # the last silently won (a user trial)
            raise UsageError(_messages.diff_level_twice(change_id, given[change_id], level))
    levels.update(given)
    fail_on: Level = options.fail_on or settings.fail_on
    configs = None
    if options.configs is not None:  # read (and every mistake in it said) before the diff runs
        if options.format in ("github", "sarif"):
            raise UsageError(_messages.diff_configs_format(options.format))
        configs = _configs(options.configs)
    if before is None:  # the matrix is new at the base revision: nothing it served there can break
        assert old_file is not None
        stdout.write(_new_at(old_file, new[0], new[1], options.format, fail_on))
        return 0
    old = (before, old_file)
    report = diff(old[0], new[0], old_version=options.from_version, new_version=options.to_version)
    report = report.with_levels(levels, settings.accept)
    if configs is not None:
        table, status = fleet(report, old[0], new[0], configs, fail_on, options.format)
        stdout.write(table)
        return status
    if options.format == "json":
        stdout.write(json.dumps(to_json(report, fail_on), indent=2, ensure_ascii=False) + "\n")
    elif options.format == "markdown":
        stdout.write(markdown(report))
    elif options.format == "github":
        stdout.write(github(report, _revision.top()))
    elif options.format == "sarif":
        stdout.write(sarif(report, levels, new[1], _revision.top()))
    else:
        stdout.write(text(report, old[1], new[1], fail_on, old[0], new[0]))
    return 1 if report.failed(fail_on) else 0


# --- inputs -----------------------------------------------------------------------------------


def _sides(options: argparse.Namespace, stderr: Optional[IO[str]] = None
           ) -> Tuple[Tuple[Optional[Matrix], Optional[str]], Tuple[Matrix, Optional[str]]]:
    """Each side's matrix, and the file a ``matrix resolve`` command names for it; the old side's
    matrix None where ``--base REV`` has no such file (`_revision.absent`: the matrix is new),
    once the new side has been read."""
    versions = options.from_version is not None or options.to_version is not None
    if versions:
        if options.old is not None or options.base is not None:
            raise UsageError(_messages.DIFF_VERSIONS_ONE_MATRIX)
        if options.from_version is None or options.to_version is None:
            raise UsageError(_messages.DIFF_VERSIONS_TOGETHER)
        file = _found(options.matrix, stderr)
        one = loader.default() if file == "default" else _revision.load(file)
        return (one, file), (one, file)
    if options.base is not None:
        if options.new is not None:
            raise UsageError(_messages.DIFF_BASE_ONE_FILE)
        file = _found(options.old, stderr)
        if file == _files.PACKAGED:
            raise UsageError(_messages.DIFF_BASE_PACKAGED)
        old = _revision.at(options.base, file)
        # A matrix new at REV (the commit or pull request that adds it: a user trial's pre-commit
        # hook and CI step said exit 2) has no old side: nothing it served there can break. A
        # revision git does not know is still a usage error; so is OLD given as REV:PATH where
        # PATH is not there (a misspelt path, which --base cannot have: the file is the new side).
        return ((None, old), _read(file)) if _revision.absent(old) else (_read(old), _read(file))
    if options.old is None or options.new is None:
        raise UsageError(_messages.DIFF_SIDES)
    return _read(options.old), _read(options.new)


def _found(given: Optional[str], stderr: Optional[IO[str]]) -> str:
    """The matrix *given*, else the one every command finds (`_files.found_here`)."""
    return given if given is not None else _files.found_here(stderr)


def _read(spec: str) -> Tuple[Matrix, Optional[str]]:
    """A side (a file or ``REV:PATH``, a features.toml or an overlay: `matrix._revision`), and
    what ``matrix resolve --matrix`` names it by."""
    return _revision.load(spec), spec


def _new_at(old: str, matrix: Matrix, file: Optional[str], form: str, fail_on: Level) -> str:
    """What every format says of a matrix new at the old side's revision, *old* (``REV:PATH``):
    one line, which json, github and sarif carry as they carry what was not compared (in
    ``undecided``)."""
    revision, _, path = old.partition(":")
    line = _messages.diff_new_at(path, revision)
    version = str(matrix.version)
    report = DiffReport((), version, version, (line,))
    if form == "json":
        return json.dumps(to_json(report, fail_on), indent=2, ensure_ascii=False) + "\n"
    if form == "github":
        return github(report, _revision.top())
    if form == "sarif":
        return sarif(report, {}, file, _revision.top())
    return (_messages.diff_markdown_headline(line) if form == "markdown" else line) + "\n"


# --- [tool.matrix.diff] -------------------------------------------------------------------------


class _Settings:
    def __init__(self) -> None:
        self.levels: Dict[str, Level] = {}
        self.fail_on: Level = "breaking"
        self.accept: List[Accepted] = []
        self.where = ""  # the table's file, as messages name it


def _level(change_id: Optional[str], level: str, where: str) -> Level:
    """*level*, the level of *change_id* (None: of the whole diff, fail-on's), else `UsageError`."""
    if change_id is not None and change_id not in CHANGES:
        raise UsageError(_messages.diff_unknown_change_id(where, change_id, CHANGES))
    if level not in LEVELS:
        raise UsageError(_messages.diff_bad_level(where, change_id, level, LEVELS))
    return level


def _settings(folder: str) -> _Settings:
    """``[tool.matrix.diff]`` of the nearest pyproject.toml: ``levels = { ID = LEVEL }``,
    ``fail-on = LEVEL``, ``accept = [{ id = ID, features = [GATE, …], reason = "…" }]``."""
    settings = _Settings()
    while True:
        path = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(path):
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            return settings
        folder = parent
    tomllib = toml()
    with open(path, "rb") as f:
        try:
            table = tomllib.load(f).get("tool", {}).get("matrix", {}).get("diff")
        except tomllib.TOMLDecodeError:
            return settings  # not ours to report
    if table is None:
        return settings
    where = settings.where = _messages.diff_settings_place(path)
    unknown = sorted(set(table) - {"levels", "fail-on", "accept"})
    if unknown:
        raise UsageError(_messages.diff_settings_unknown_key(where, unknown[0], ["levels", "fail-on", "accept"]))
    for change_id, level in dict(table.get("levels", {})).items():
        settings.levels[change_id] = _level(change_id, level, where)
    if "fail-on" in table:
        settings.fail_on = _level(None, table["fail-on"], f"{where} fail-on")  # it named a change id (a user trial)
    for entry in table.get("accept", []):
        features = entry.get("features", []) if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("reason"), str) or "id" not in entry \
                or not isinstance(features, list) or not all(isinstance(f, str) for f in features):
            raise UsageError(_messages.diff_accept_entry_shape(where, entry))
        extra = sorted(set(entry) - set(_ACCEPT_KEYS))
        if extra:  # a key not read would accept more than it says (a user trial: a misspelt name was ignored)
            raise UsageError(_messages.diff_settings_unknown_key(where, extra[0], _ACCEPT_KEYS, entry["id"]))
        _level(entry["id"], "breaking", where)
        settings.accept.append(Accepted(entry["id"], entry["reason"], tuple(entry.get("features", ()))))
    return settings


#: The keys of an accept entry.
_ACCEPT_KEYS = ("features", "id", "reason")


def _accepted_gates(settings: _Settings, *sides: Tuple[Matrix, Optional[str]]) -> None:
    """Each gate an accept entry names is one of either side at its version (a feature, a gate of
    a runner's requirement, candidacy or redirect, an order, an adjustment), else `UsageError`: a
    misspelt one would accept nothing, and the report would not say why (a user trial)."""
    known = sorted({g.id for matrix, version in sides for g in matrix.gates_at(version)}
                   | {a.id for matrix, version in sides for a in matrix.adjustments_at(version)})
    for entry in settings.accept:
        for gate in entry.features:
            if gate not in known:
                raise UsageError(_messages.diff_accept_unknown_gate(settings.where, entry.id, gate, known))


# --- outputs ----------------------------------------------------------------------------------


def text(report: DiffReport, old_file: Optional[str], new_file: Optional[str], fail_on: Level,
         old: Optional[Matrix] = None, new: Optional[Matrix] = None) -> str:
    """Every change, most severe first, with its witness and the ``matrix resolve`` commands
    that show it on each side (``--matrix REV:PATH`` for a side read from git)."""
    from ._diff import renamed_runners

    lines = [report.headline()]
    # A runner renamed with an alias is asked for by its former id on the old side.
    former = {} if old is None or new is None else {after: before for before, after in renamed_runners(old, new).items()}
    for change in report.changes:
        lines.append(f"{change.level}[{change.id}]: {_messages.diff_change_said(change.message, change.accepted)}")
        lines.append(f"    configs: {brief(change.region)}")
        if change.also:
            lines.append(f"    also: {_messages.diff_same_cause(change.also)}")
        for entry in change.entries:
            lines.append(f"    cause: {entry}")
        if _shown(change):
            lines.append(f"    witness: {json.dumps(change.witness, sort_keys=True)}")
            for label, file, version, side in (("before:", old_file, report.old_version, old),
                                               ("after: ", new_file, report.new_version, new)):
                if file is not None:
                    asked = former.get(change.runner or "") if side is old else None  # a runner renamed: its former id
                    lines.append(f"    {label} {command(change, file, version, side, asked)}")
    for note in report.undecided:
        lines.append(f"undecided: {note}")
    if report.changes:
        lines.append(_messages.diff_verdict(report.failed(fail_on), fail_on))
    return "\n".join(lines) + "\n"


def _shown(change: Difference) -> bool:
    """Whether *change* has a witness to show: a change of no config's answer (a name, a note)
    has none (a user trial: ``witness: {}`` and commands that show nothing of it)."""
    return change.witness is not None and change.region != "no config"


#: breaking, behaviour, cosmetic → the workflow command that shows it.
_GITHUB = {"breaking": "error", "behaviour": "warning", "cosmetic": "notice"}


def github(report: DiffReport, top: Optional[str] = None) -> str:
    """One workflow command per change, on the line of its first cause (a side read from git,
    ``REV:PATH``, is annotated on PATH), each file named from *top*, the top of the repository
    (`_in_tree`)."""
    from ._ci_formats import _data, _property

    # No change: the headline, a plain line (no annotation), so that a CI log never reads empty
    # (a user trial: ``--format github`` printed nothing for "No change for any config").
    lines = [] if report.changes or report.undecided else [report.headline()]
    for change in report.changes:
        properties = []
        entry = change.entries[0] if change.entries else None
        if entry is not None and entry.file is not None:
            properties.append(f"file={_property(_in_tree(entry.file, top))}")
            if entry.line is not None:
                properties.append(f"line={entry.line}")
        properties.append(f"title={_property('matrix diff ' + change.id)}")
        message = _messages.diff_change_said(change.message, change.accepted)
        message += f"\nconfigs: {brief(change.region)}"
        if _shown(change):
            message += "\nwitness: " + json.dumps(change.witness, sort_keys=True)
        # An accepted change fails nothing: a notice that says so, never an error or a warning.
        command = "notice" if change.accepted is not None else _GITHUB[change.level]
        lines.append(f"::{command} {','.join(properties)}::{_data(message)}")
    # What was not compared or not decided: a notice each, so that a log never reads as "no change".
    lines += [f"::notice title={_property('matrix diff undecided')}::{_data(note)}" for note in report.undecided]
    return "".join(line + "\n" for line in lines)


def _in_tree(file: str, top: Optional[str] = None) -> str:
    """The path of a file in the working tree: PATH for a side read from git as ``REV:PATH``,
    else the file from *top*, the top of its repository (as given outside one): GitHub reads an
    annotation's file, and code scanning a SARIF location, from there (a user trial: run from a
    subfolder, ``file=features.toml`` named a file at the top that is not there)."""
    if ":" in file and not os.path.exists(file):
        return file.split(":", 1)[1]
    return _revision.from_top(file, top)


def to_json(report: DiffReport, fail_on: Level) -> Dict[str, Any]:
    return {"old_version": report.old_version, "new_version": report.new_version, "failed": report.failed(fail_on),
            "fail_on": fail_on, "counts": report.counts(), "changes": [c.to_dict() for c in report.changes],
            "undecided": list(report.undecided)}


def _row(change: Difference) -> str:
    def cell(value: str) -> str:
        return value.replace("|", "\\|").replace("\n", " ")

    where = ", ".join(str(e) for e in change.entries)
    witness = f"`{json.dumps(change.witness, sort_keys=True)}`" if _shown(change) else ""
    what = _messages.diff_change_said(change.message, change.accepted)
    return (f"| {change.level} | `{change.id}` | {cell(what)} | `{cell(brief(change.region))}` | {cell(witness)} | "
            f"{cell(where)} |")


def markdown(report: DiffReport) -> str:
    """A pull-request comment: the headline, a table of the first changes, the rest folded."""
    if not report.changes:
        return "\n\n".join([_messages.diff_markdown_headline(report.headline()),
                             *(f"> undecided: {note}" for note in report.undecided)]) + "\n"
    header = ["| Level | Change | What | Configs | Witness | Cause |", "|---|---|---|---|---|---|"]
    shown, rest = report.changes[:MARKDOWN_ROWS], report.changes[MARKDOWN_ROWS:]
    lines = [_messages.diff_markdown_headline(report.headline()), "", *header, *(_row(c) for c in shown)]
    if rest:
        lines += ["", _messages.diff_markdown_more(len(rest)), "", *header, *(_row(c) for c in rest), "",
                  "</details>"]
    for note in report.undecided:
        lines += ["", f"> undecided: {note}"]
    return "\n".join(lines) + "\n"


#: The SARIF rule of what the diff did not compare or decide (``undecided:`` lines of the text).
UNDECIDED = "undecided"

#: The SARIF base of a location's uri in a repository: its top folder.
SRCROOT = "%SRCROOT%"

#: breaking, behaviour, cosmetic → SARIF's level.
_SARIF = {"breaking": "error", "behaviour": "warning", "cosmetic": "note"}


def sarif(report: DiffReport, levels: Dict[str, Level], file: Optional[str] = None, top: Optional[str] = None) -> str:
    """The report as one SARIF 2.1.0 log: a rule per change id (at its level, *levels* applied),
    a result per change on the line of its first cause (an accepted change is suppressed, with
    the accept entry's reason), and a ``note`` result of the rule ``undecided`` per thing the diff
    did not compare or decide, on the matrix *file* (the new side; none for the packaged one).
    In a repository (*top*, its top folder) each file is named from there, ``uriBaseId``
    ``%SRCROOT%``, as code scanning reads a location."""
    def artifact(name: str) -> Dict[str, str]:
        uri = _in_tree(name, top).replace("\\", "/")
        return {"uri": uri} if top is None else {"uri": uri, "uriBaseId": SRCROOT}

    ids = [*CHANGES, UNDECIDED]
    rules = [{"id": change_id, "shortDescription": {"text": meaning},
              "defaultConfiguration": {"level": _SARIF[levels.get(change_id, level)]}}
             for change_id, (level, meaning) in CHANGES.items()]
    rules.append({"id": UNDECIDED, "shortDescription": {"text": _messages.DIFF_SARIF_UNDECIDED},
                  "defaultConfiguration": {"level": "note"}})
    results = []
    for change in report.changes:
        said = _messages.diff_change_said(change.message, change.accepted)
        result: Dict[str, Any] = {"ruleId": change.id, "ruleIndex": ids.index(change.id), "level": _SARIF[change.level],
                                  "message": {"text": f"{said}\nconfigs: {brief(change.region)}"}}
        entry = change.entries[0] if change.entries else None
        if entry is not None and entry.file is not None:
            location: Dict[str, Any] = {"artifactLocation": artifact(entry.file)}
            if entry.line is not None:
                location["region"] = {"startLine": entry.line, "startColumn": entry.column or 1}
            result["locations"] = [{"physicalLocation": location,
                                    "logicalLocations": [{"fullyQualifiedName": entry.place}]}]
        result["properties"] = {"witness": change.witness, "features": list(change.features), "old": change.old,
                                "new": change.new, "side": entry.side if entry is not None else None}
        if change.accepted is not None:
            # Suppressed as accepted (SARIF 2.1.0 §3.35.3): code scanning lists it as dismissed.
            result["suppressions"] = [{"kind": "external", "status": "accepted", "justification": change.accepted}]
        results.append(result)
    # What was not compared or not decided, as text, json and github say it: an empty log would
    # read as "no change" (a user trial). Code scanning shows a result with a location, so each
    # is put on the matrix's first line.
    where = [] if file is None or file == _files.PACKAGED else [
        {"physicalLocation": {"artifactLocation": artifact(file),
                              "region": {"startLine": 1, "startColumn": 1}}}]
    results += [{"ruleId": UNDECIDED, "ruleIndex": ids.index(UNDECIDED), "level": "note", "message": {"text": note},
                 **({"locations": where} if where else {})} for note in report.undecided]
    run: Dict[str, Any] = {"tool": {"driver": {"name": "matrix diff", "version": tool_version(),
                                               "informationUri": "https://pypi.org/project/support-matrix/",
                                               "rules": rules}},
                           "results": results}
    if top is not None:  # where %SRCROOT% is on this machine (SARIF 2.1.0 §3.14.14: an absolute URI ending in /)
        run["originalUriBaseIds"] = {SRCROOT: {"uri": pathlib.Path(top).resolve().as_uri() + "/"}}
    log = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# --- --configs: a fleet of real configs -----------------------------------------------------------


def _configs(spec: str) -> List[Tuple[str, Dict[str, Any]]]:
    """(name, config) for each config of *spec*: a folder of ``.toml`` and ``.json`` files (read
    as ``matrix resolve`` reads a config file, with its messages; sorted by name), or a file of
    JSON lines (named ``FILE:LINE``; blank lines skipped)."""
    out = []
    if os.path.isdir(spec):
        names = sorted(n for n in os.listdir(spec) if n.endswith((".toml", ".json")))
        unread = []
        for name in names:  # every file that cannot be read is said, not only the first
            try:
                out.append((name, _config_file(os.path.join(spec, name))))
            except UsageError as error:
                unread.append(str(error))
        if unread:
            raise UsageError(_messages.diff_config_files(spec, unread))
        return out
    try:
        with open(spec, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, ValueError) as error:
        raise UsageError(_messages.diff_configs_unreadable(spec, error)) from None
    problems: List[Tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as error:
            problems.append((number, str(error)))
            continue
        except RecursionError:
            problems.append((number, _messages.DIFF_CONFIG_TOO_DEEP))
            continue
        if not isinstance(data, dict):
            problems.append((number, _messages.diff_config_not_a_table(data)))
            continue
        out.append((f"{spec}:{number}", data))
    if problems:  # every line that is not a config, each at its line
        raise UsageError(_messages.diff_config_lines(spec, problems))
    return out


def _config_file(path: str) -> Dict[str, Any]:
    """One config file of a folder, as ``matrix resolve CONFIG`` reads it (the same messages)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, ValueError) as error:
        raise UsageError(_messages.cannot_read_config(path, error)) from None
    data: object
    if path.endswith(".toml"):
        tomllib = toml()
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise UsageError(_messages.config_not_toml(path, loader.toml_syntax_problem(path, text, error))) from None
        except RecursionError:
            raise UsageError(_messages.config_too_deep(path)) from None
    else:
        try:
            data = json.loads(text)
        except ValueError as error:
            raise UsageError(_messages.config_not_json(path, error)) from None
        except RecursionError:
            raise UsageError(_messages.config_too_deep(path)) from None
    if not isinstance(data, dict):
        raise UsageError(_messages.config_not_a_table(path, data))
    return data


def fleet(report: DiffReport, old: Matrix, new: Matrix, configs: List[Tuple[str, Dict[str, Any]]],
          fail_on: Level = "breaking", form: str = "text") -> Tuple[str, int]:
    """For each config: what it resolves to on each side (the runner chosen automatically, or the
    refusal, or why the side's ``[config]`` rejects it, held to the schema as ``matrix resolve``
    holds it), and the changes of the report it is one of the configs of (`matrix.diff.reproduces`:
    in the change's region, and re-resolved as it says); a Markdown table (*form* ``json``: the
    same as one JSON document, `matrix/diff.schema.json`), configs that do not change included,
    and the exit status with what it means: 2 where a config is rejected on both sides (not
    compared), else 1 where a config changes under a change at or above *fail_on* that is not
    accepted (a config rejected on one side only: at the level of the report's change of the
    ``[config]`` that holds it, else breaking), else 0."""
    from .diff import LEVELS, rejection, reproduces, served_how
    from .resolver import resolve

    from ._diff import renamed_runners

    renamed = renamed_runners(old, new)

    def answer(matrix: Matrix, config: Dict[str, Any], version: str) -> Tuple[str, bool, object]:
        """The answer, whether the side rejects the config (`matrix.diff.rejection`), and what the
        answer is by ids, the old side's runners by their new ids: names changed alone, or a
        runner renamed with its former id, are cosmetic changes, not a change of the answer."""
        rejected = rejection(matrix, config, version)
        if rejected is not None:
            return _messages.diff_fleet_rejected(rejected), True, None
        try:
            resolution = resolve(matrix, config, version=version)
        except ResolutionError as error:
            removed = isinstance(error, RemovedFeatureError)
            return _messages.diff_fleet_refused(removed), False, ("refused", removed)
        runner: str = resolution.runner
        # How it came to serve, as the diff says an answer of automatic choice, its deprecations too.
        kinds, preferred = served_how(resolution, ("deprecated",))
        key = ("served", renamed.get(runner, runner) if matrix is old else runner, tuple(kinds), preferred)
        return _messages.diff_served(runner, kinds, None if preferred is None else matrix.feature(preferred).name), \
            False, key

    changed, failing, broken = 0, 0, []
    worst = LEVELS.index(fail_on)
    rows = ["| Config | Before | After | Change |", "|---|---|---|---|"]
    items: List[Dict[str, Any]] = []
    for name, config in configs:
        (before, rejected_before, was), (after, rejected_after, now) = (answer(old, config, report.old_version),
                                                                        answer(new, config, report.new_version))
        if rejected_before and rejected_after:
            broken.append(name)
            rows.append(_fleet_row(name, before, after, _messages.diff_fleet_not_compared()))
            items.append({"name": name, "config": config, "before": before, "after": after, "compared": False,
                          "changes": []})
            continue
        # A config one side rejects is said by the report's change of the [config] that holds it
        # (config-accepted, config-rejected, a field added or removed: its level and accept entry),
        # never by a default changed (a config rejected reads no default: the review).
        # With roles, a config whose base role's field names a runner (on the config of choice)
        # is a request for it: the changes of that request say it (a user trial: none matched).
        # The [config] changes say a config one side rejects whatever runner its base field names.
        one_sided = rejected_before != rejected_after
        asked = {_base_request(side, config, version) for side, version in ((old, report.old_version),
                                                                             (new, report.new_version))}
        said = [c for c in report.changes if (c.id in _ONE_SIDED if one_sided else (
            c.runner is None and None in asked or c.runner in asked - {None} and not c.id.startswith("blocker")))
            and reproduces(c, old, new, config, old_version=report.old_version, new_version=report.new_version)]
        changed += was != now or bool(said)  # by ids, as the rows are compared: a rename alone is no change
        # An answer that changes where no finding says it (the report says what it did not
        # decide) is counted by itself: a served config refused is breaking, else behaviour. A
        # config one side rejects is a breaking change of its own.
        refusing = now is not None and now[0] == "refused" and was is not None and was[0] != "refused"  # type: ignore[index]
        # A config served that is now refused takes at least the level the report gives such a
        # change (`served-refused`), whatever other change it lies in (a user trial: an
        # adjustment-added row, behaviour, that went served → refused).
        unsaid = None if one_sided or was == now or said and (not refusing or any(c.id in REFUSING for c in said)) \
            else "breaking" if refusing else "behaviour"
        failing += one_sided and not said or any(
            LEVELS.index(c.level) <= worst and c.accepted is None for c in said) or \
            unsaid is not None and LEVELS.index(unsaid) <= worst
        cell = ", ".join([f"{c.level}[{c.id}]" for c in said] + (
            [_messages.diff_fleet_unsaid(unsaid)] if said and unsaid is not None else [])) or (
            _messages.diff_fleet_rejected_once() if one_sided else
            "—" if unsaid is None else _messages.diff_fleet_unsaid(unsaid))
        rows.append(_fleet_row(name, before, after, cell))
        items.append({"name": name, "config": config, "before": before, "after": after, "compared": True,
                      "unsaid": unsaid, "changes": [{"id": c.id, "level": c.level, "message": c.message, "accepted": c.accepted}
                                  for c in said]})
    status = 2 if broken else 1 if failing else 0
    if form == "json":
        document = {"old_version": report.old_version, "new_version": report.new_version, "fail_on": fail_on,
                    "status": status, "changed": changed, "rejected": broken, "configs": items}
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n", status
    head = _messages.diff_fleet_head(changed, len(configs), report.old_version, report.new_version, len(broken))
    foot = _messages.diff_fleet_exit(status, fail_on, failing, broken)
    return "\n".join([head, "", *rows, "", foot]) + "\n", status




def _base_request(matrix: Matrix, config: Dict[str, Any], version: Optional[str]) -> Optional[str]:
    """The runner a config asks for in *matrix*'s base role (its field on the config of choice,
    `matrix._roles.of_choice`: a former id as the runner it names), None where the choice is
    automatic (no roles, or the field None) or the config cannot be read."""
    if not matrix.roles:
        return None
    from . import _choice, _roles
    from .errors import MatrixError
    from .resolver import _plan

    try:
        value = _roles.of_choice(_plan(matrix, version), matrix.roles[0], config, None)
    except MatrixError:
        return None
    return None if value is None else str(_choice.named(matrix, value))


#: The changes that say a config one side's [config] rejects and the other accepts.
_ONE_SIDED = ("config-accepted", "config-rejected", "config-field-added", "config-field-removed")


def _fleet_row(*cells: str) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"
