"""``matrix diff OLD NEW --configs FILE``, the fleet view, against a reference written from
docs/how-to/review-a-change.md and docs/reference/cli.md: each config of a small space, on random
pairs of matrices (`tests.test_diff._edited`) and on one matrix at two of its releases (`_histories`,
``--from-version A --to-version B``), resolved on both sides here. Which ``[config]`` finding holds
a config one side rejects is decided here too, from the docs alone: the fields whose value (or
absence) that side refuses, each tried on its own."""

import json
import random
import re

import attrs
import jsonschema
from hypothesis import example, given, settings
from hypothesis import strategies as st

import matrix
from matrix import _messages
from matrix._diff_cli import fleet
from matrix.diff import LEVELS, Accepted, diff, json_schema, kind_of, region_predicate, reproduces

from .test_check import _FIELDS, _small_matrices
from .test_diff import (_CONFIG_PROBES, _ROLE_SET, _ROLES_REFUSING, _ROLES_REFUSING_RUNNERS, _edited, _loaded, _with_roles)

#: Configs of the space a draw compares (each is resolved once per change of the report, and by
#: the reference): enough to meet every answer of a small matrix, at a modest cost in CI.
_CONFIGS = 48

#: The findings that say a config one side's [config] rejects, and whether the side that rejects
#: it is the new one (docs: a choice, bound or default gone, a field no longer declared) or the old.
_ONE_SIDED = {"config-rejected": "new", "config-field-removed": "new", "config-accepted": "old",
              "config-field-added": "old"}


def _renamed(old, new):
    """Runner id on the old side → its id on the new side, for each runner renamed with its
    former id (an alias of the new side that names a runner only the old side has)."""
    old_ids, new_ids = {r.id for r in old.runners}, {r.id for r in new.runners}
    return {a.id: r.id for r in new.runners for a in r.aliases if a.id in old_ids and a.id not in new_ids}


def _rejected(m, config, version):
    """Why *m*'s ``[config]`` rejects *config*, as ``matrix resolve`` holds a config to it (a key
    it does not declare, each said; a value its field does not allow, read or not), or None."""
    declared = {f.path for f in m.schema}
    undeclared = [k for k in config if k not in declared]
    if m.schema and undeclared:
        top = [f.path for f in m.schema if "." not in f.path]
        return "; ".join(_messages.config_error(_messages.unknown_key(k, top), k, None) for k in undeclared)
    try:
        try:
            resolution = m.resolve(config, version=version)
        except matrix.ResolutionError as error:
            resolution = error.resolution
        dict(resolution.effective)
    except matrix.ConfigError as error:
        return str(error)
    return None


_UNSET = object()


def _refused_fields(m, version, config, accepted):
    """The fields of *config* whose value, or absence, *m*'s ``[config]`` at *version* refuses:
    each tried on its own in *accepted*, a config *m* accepts (a config is held to each field
    apart, docs/reference/file-format.md, [config])."""
    out = set()
    for path in dict.fromkeys([*config, *accepted]):
        value = config.get(path, _UNSET)
        tried = {k: v for k, v in accepted.items() if k != path}
        if value is not _UNSET:
            tried[path] = value
        if _rejected(m, tried, version) is not None:
            out.add(path)
    return out


def _answer(m, config, version, renamed):
    """(what the fleet says, what is compared, what the diff's automatic choice says) of *config*
    on *m*: the runner's id and how it came to serve (fallback, override, redirected, deprecated,
    the preference of a feature by name), or refused; compared by ids (*renamed*: a runner's old
    id → its new one), the preferring feature by its id."""
    problem = _rejected(m, config, version)
    if problem is not None:
        return f"config error: {problem}", None, None
    try:
        resolution = m.resolve(config, version=version)
    except matrix.RemovedFeatureError:
        return "refused (removed)", ("refused", True), "refused (the feature is removed)"
    except matrix.ResolutionError:
        return "refused", ("refused", False), "refused"
    warnings = resolution.warnings
    kinds = sorted({w.kind for w in warnings if w.kind in ("fallback", "override", "redirected", "deprecated")})
    preferred = next((w.feature for w in warnings if w.kind == "preference" and w.runner == resolution.runner), None)
    name = None if preferred is None else m.feature(preferred).name
    notes = kinds + ([f"preference of {name}"] if name is not None else [])
    said = resolution.runner + "".join(f" ({n})" for n in sorted(notes))
    # The diff says a runner by its name, and no deprecation (its own finding says that).
    automatic = [k for k in kinds if k != "deprecated"] + ([f"preference of {name}"] if name is not None else [])
    diff_said = m.runner(resolution.runner).name + "".join(f" ({n})" for n in sorted(automatic))
    return said, ("served", renamed.get(resolution.runner, resolution.runner), tuple(kinds), preferred), diff_said


def _field_of(change):
    """The field a ``[config]`` finding is at: its entry's place, ``$.config.PATH``."""
    place = change.entries[0].place
    assert place.startswith("$.config."), change
    return place[len("$.config."):]


def _in_region(change, config, schema):
    """Whether *config* lies in *change*'s region, read by `matrix.diff.region_predicate` (the
    docs' reader of every region the diff says); a ``[config]`` finding's with its field open
    (any value, None too: the region holds values one side refuses, and so may the schema)."""
    if change.id.startswith("config-"):
        field = schema.fields.get(_field_of(change))
        if field is not None:
            schema = matrix.schema.Schema({**schema.fields, field.path: attrs.evolve(
                field, choices=None, min=None, max=None, nullable=True)}, schema.derivations)
    try:
        return change.region == "every config" or region_predicate(change.region).evaluate(config, schema=schema)
    except matrix.ConfigError:
        return False


def _holding(report, config, refusing, fields, schema):
    """The ``[config]`` findings of *report* that hold *config*, which the *refusing* side (``old``
    or ``new``) rejects for *fields* and the other accepts (docs: the report's change of the
    ``[config]`` that holds it): a finding of a field of *fields* that that side refuses, whose
    region holds the config's value there (or its absence). A field it refuses with a finding of
    that way whose region does not hold the config is a region that is not exact: failed here."""
    said = []
    for c in report.changes:
        if _ONE_SIDED.get(c.id) != refusing:
            continue
        field = _field_of(c)
        if field not in fields:
            continue
        inside = _in_region(c, config, schema)
        # The config's value at the field, alone, flips as the finding says: the region is exact.
        assert inside or c.region.endswith(" is unset") != (field not in config), (c, config)
        if inside:
            said.append(c)
    return said


def _reference(report, old, new, configs, fail_on, accepted):
    """The fleet's JSON document as the docs say it, each config resolved here (*accepted*: a
    config each side accepts, by side, to try a field on its own)."""
    renamed = _renamed(old, new)
    items, broken, changed, failing = [], [], 0, 0
    worst = LEVELS.index(fail_on)
    schema = matrix._diff.union_schema(old.schema, new.schema)
    for name, config in configs:
        (before, was, was_said), (after, now, now_said) = (
            _answer(old, config, report.old_version, renamed), _answer(new, config, report.new_version, {}))
        if was is None and now is None:  # rejected by both sides: listed, not compared
            broken.append(name)
            items.append({"name": name, "config": config, "before": before, "after": after, "compared": False,
                          "changes": []})
            continue
        one_sided = (was is None) != (now is None)
        if one_sided:  # said by the [config]'s findings that hold it, and by no other (docs)
            refusing, side, version = ("old", old, report.old_version) if was is None else \
                ("new", new, report.new_version)
            said = _holding(report, config, refusing, _refused_fields(side, version, config, accepted[refusing]),
                            schema)
        else:
            said = []
            # With roles, a config whose base role's field names a runner is a request for it (docs:
            # file-format.md, Roles): the changes of that request say it, else automatic choice's.
            asked = {_base_request(m, config) for m in (old, new)}
            for c in report.changes:
                if c.id.startswith("blocker-") or c.runner not in asked or c.id in _ONE_SIDED:
                    continue  # a runner's blockers, another question than the config's; a [config] value both sides accept
                if c.id == "config-default-changed":  # the configs that leave the field out (docs)
                    if _in_region(c, config, schema):
                        said.append(c)
                    continue
                listed = reproduces(c, old, new, config, old_version=report.old_version,
                                    new_version=report.new_version)
                if kind_of(c) == "automatic":  # in its region, and answered as it says (read here)
                    assert listed == (_in_region(c, config, schema) and [was_said, now_said] == [c.old, c.new]), \
                        (c, config)
                if listed:
                    said.append(c)
        unsaid = None
        refusing = was is not None and now is not None and now[0] == "refused" and was[0] != "refused"
        if not one_sided and was != now and (not said or refusing and not any(c.id in _REFUSING for c in said)):
            # Served, now refused: at least the level of such a change (a user trial: a row said
            # only by an adjustment's value, behaviour), whatever else it lies in.
            unsaid = "breaking" if refusing else "behaviour"
        changed += one_sided or bool(said) or was != now
        # One side rejecting it is said by the [config]'s change that holds it (its level, its
        # accept entry: a user trial's added choice failed CI as breaking), else it is breaking.
        failing += one_sided and not said or any(LEVELS.index(c.level) <= worst and c.accepted is None for c in said) or (
            unsaid is not None and LEVELS.index(unsaid) <= worst)
        items.append({"name": name, "config": config, "before": before, "after": after, "compared": True,
                      "unsaid": unsaid, "changes": [{"id": c.id, "level": c.level, "message": c.message,
                                                     "accepted": c.accepted} for c in said]})
    status = 2 if broken else 1 if failing else 0
    return {"old_version": report.old_version, "new_version": report.new_version, "fail_on": fail_on,
            "status": status, "changed": changed, "rejected": broken, "configs": items}, failing


#: The ids that say a config served is now refused (docs: the change ids and their levels).
_REFUSING = {"served-refused", "request-refused", "removed", "removed-early", "removed-without-deprecation",
             "config-rejected", "config-field-removed"}


def _base_request(m, config):
    """The runner *config* asks for in *m*'s base role (its field, a former id as the runner it
    names), or None: no roles, or the field None (automatic choice)."""
    if not m.roles or not isinstance(config.get(m.roles[0].field), str):
        return None
    value = config[m.roles[0].field]
    alias = m.alias(value)
    return value if alias is None else alias.runner


def _cell(item):
    """A row's Change cell, as the docs say it."""
    if not item["compared"]:
        return _messages.diff_fleet_not_compared()
    unsaid = f"{item['unsaid']}: changed, no finding says it (see the report's undecided lines)"
    if item["changes"]:
        return ", ".join([f"{c['level']}[{c['id']}]" for c in item["changes"]] + ([unsaid] if item["unsaid"] else []))
    if item["before"].startswith("config error: ") != item["after"].startswith("config error: "):
        return "breaking: a config error on one side"
    return "—" if item["unsaid"] is None else unsaid


def _space(old, new, names, report, versions):
    """The configs a draw compares: a slice of every config over *names* (each field's values, the
    values the [config] edits probe, and left out), each witness, and each [config] finding's
    witness value put in a few of those configs (a config refused by one field beside another
    field's finding: the fleet said it by both)."""
    schema = matrix._diff.union_schema(old.schema, new.schema)
    values = []
    for n in names:  # a role's field: its choices, and None (each role then follows)
        known = [*(_FIELDS[n][1] if n in _FIELDS else [*schema[n].choices, None]), *_CONFIG_PROBES.get(n, ())]
        values.append([v for i, v in enumerate(known) if v not in known[:i]] + [_UNSET])
    sizes = [len(v) for v in values]
    total = 1
    for size in sizes:
        total *= size

    def row(index):  # the index-th config of the product of *values*, the last field fastest
        config = {}
        for n, options, size in reversed(list(zip(names, values, sizes))):
            index, at = divmod(index, size)
            if options[at] is not _UNSET:
                config[n] = options[at]
        return dict(sorted(config.items(), key=lambda item: names.index(item[0])))

    # A sample of the product, alike on every run of a draw (a stride could keep a field's value).
    whole = [row(i) for i in sorted(random.Random(total).sample(range(total), min(total, 4 * _CONFIGS)))]
    whole = _with_roles(whole, old)  # each role's field: its choices, or left out
    witnesses = [c.witness for c in report.changes if c.witness is not None]
    # Each side's first config it accepts, to try a field on its own in (`_refused_fields`).
    accepted = {}
    for label, m, version in (("old", old, versions[0]), ("new", new, versions[1])):
        accepted[label] = next((c for c in [*witnesses, *whole] if _rejected(m, c, version) is None), None)
    space = whole[::4]
    space += [c.witness for c in report.changes if c.witness is not None and c.witness not in space]
    for c in report.changes:
        if c.id not in _ONE_SIDED and c.id != "config-default-changed":
            continue
        field = _field_of(c)
        for base in whole[:: len(whole) // 4 + 1]:
            config = {k: v for k, v in base.items() if k != field}
            if field in c.witness:
                config[field] = c.witness[field]
            if config not in space:
                space.append(config)
    return space, accepted


def _fleet_agrees(old, new, report, names, fail_on):
    space, accepted = _space(old, new, names, report, (report.old_version, report.new_version))
    configs = [(f"c{i}", config) for i, config in enumerate(space)]
    expected, failing = _reference(report, old, new, configs, fail_on, accepted)
    out, status = fleet(report, old, new, configs, fail_on, "json")
    document = json.loads(out)
    jsonschema.Draft202012Validator(json_schema()).validate(document)
    assert status == expected["status"]
    for got, want in zip(document["configs"], expected["configs"]):
        assert got == want, (got, want)
    assert document == expected
    # The table says the same, a row per config, the head its counts, and the exit status under it.
    table, status = fleet(report, old, new, configs, fail_on)
    rows = [line for line in table.splitlines() if line.startswith("| c")]
    assert rows == ["| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in
                                      (i["name"], i["before"], i["after"], _cell(i))) + " |"
                    for i in expected["configs"]]
    assert table.splitlines()[0] == _messages.diff_fleet_head(expected["changed"], len(configs), report.old_version,
                                                              report.new_version, len(expected["rejected"]))
    assert table.splitlines()[-1] == _messages.diff_fleet_exit(status, fail_on, failing, expected["rejected"])
    assert status == expected["status"]


def _leveled(report, data):
    """*report* with --level ID=LEVEL and [tool.matrix.diff] accept drawn over its ids."""
    if data is None or not report.changes:
        return report
    ids = sorted({c.id for c in report.changes})
    levels = data.draw(st.dictionaries(st.sampled_from(ids), st.sampled_from(LEVELS), max_size=2))
    accept = [Accepted(i, "intended", ()) for i in data.draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))]
    return report.with_levels(levels, accept)


def _edited_agrees(case, fail_on, data=None):
    names = case[4]
    loaded = _loaded(case)
    if loaded is None:
        return
    old, new = loaded
    names = [*names, *(n for n in ("rb", "ro", "x") if any(f.path == n for m in (old, new) for f in m.schema))]
    _fleet_agrees(old, new, _leveled(diff(old, new), data), names, fail_on)


#: A field no gate reads, declared on one side only (the [config] edits of `_declared`), and its
#: values (`_space` tries each, and leaving it out).
_FIELDS = {**_FIELDS, "x": ('"x" = { type = "int", min = 0, default = 0 }', [0, 1])}


@st.composite
def _declared(draw):
    """An edit of `tests.test_diff._edited`, and, a third of the time, a field that no gate reads
    declared on one side only (`config-field-added`, `-removed`)."""
    text, runners, new_text, new_runners, names, overlay = draw(_edited())
    if overlay is None and draw(st.integers(0, 2)) == 0:
        line = _FIELDS["x"][0] + "\n"
        if draw(st.booleans()):
            new_text = new_text.replace("[config]\n", "[config]\n" + line, 1)
        else:
            text = text.replace("[config]\n", "[config]\n" + line, 1)
    return text, runners, new_text, new_runners, names, overlay


# Runner b serves t == 'a' (a says no) and is renamed bb with its former id: the same answer by
# ids, which the head counted as a change ("1 of 3 configs change", where none does).
_SERVED_BY_B = """[matrix]
name = "small"
version = "1.0"
[config]
"t" = { type = "str", choices = ["a", "b", "c"], default = "a" }
[features.g0]
name = "g0"
when = "t == 'a'"
support = { a = "no", b = "yes" }
"""
_AB = {"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}}
_RENAMED_B = (_SERVED_BY_B, _AB, _SERVED_BY_B.replace('b = "yes"', 'bb = "yes"'),
              {"a": _AB["a"], "bb": {**_AB["b"], "aliases": [{"id": "b", "since": "0.5"}]}}, ["t"], None)


# A choice of t added and j's maximum raised: a config with the new choice and a value of j both
# sides accept was listed under j's config-accepted too (the fleet read a [config] finding as
# holding every config that sets its field and that one side rejects, for whatever field).
_TWO_FIELDS = _SERVED_BY_B.replace('default = "a" }\n', 'default = "a" }\n"j" = { type = "int", min = 0, max = 3, default = 0 }\n')
_ADDED = (_TWO_FIELDS, _AB, _TWO_FIELDS.replace('"c"]', '"c", "d"]').replace("max = 3", "max = 4"), _AB, ["t", "j"], None)

# A version field given a default beside a field removed: the witness of the removal set the
# version field to its default as the loader holds it, a Version, and every format (the fleet's
# JSON too) failed to write it ("Object of type Version is not JSON serializable").
_VERSIONED = _SERVED_BY_B.replace('"t" = { type = "str", choices = ["a", "b", "c"], default = "a" }',
                                  '"v" = { type = "version", default = "1.0" }').replace("t == 'a'", "v >= '2.0'")
_VERSION_REQUIRED = (_VERSIONED.replace(', default = "1.0"', "").replace("[config]\n", "[config]\n" + _FIELDS["x"][0] + "\n"),
                     _AB, _VERSIONED, _AB, ["v"], None)


@settings(max_examples=max(10, settings.default.max_examples // 8), deadline=None)
@given(_declared(), st.sampled_from(LEVELS), st.data())
@example(_RENAMED_B, "behaviour", None)
@example(_ADDED, "behaviour", None)
@example(_VERSION_REQUIRED, "breaking", None)
# A user trial (issue 28 with roles, W6): a config that names a runner in the base role's field was
# matched with no change of that request ("changed, no finding says it" beside the finding).
@example((_ROLES_REFUSING, _ROLES_REFUSING_RUNNERS, _ROLES_REFUSING.replace('c = "yes" }', 'c = "no" }'),
          _ROLES_REFUSING_RUNNERS, ["j"], None), "breaking", None)
@example((_ROLES_REFUSING + _ROLE_SET, _ROLES_REFUSING_RUNNERS,
          (_ROLES_REFUSING + _ROLE_SET).replace('a = "yes", b', 'a = "no", b'), _ROLES_REFUSING_RUNNERS, ["j"], None),
         "breaking", None)
def test_the_fleet_says_what_each_config_resolves_to_on_both_sides_and_the_change_it_falls_under(case, fail_on, data):
    _edited_agrees(case, fail_on, data)


# --- one matrix at two of its releases ---------------------------------------------------------

#: The releases a history is drawn over, beside the file's own (1.0): before every ``since``,
#: and between.
_RELEASES = ["0.5", "0.8", "1.0"]


@st.composite
def _histories(draw):
    """One small matrix (`_small_matrices`, as the diff's brute force draws them) whose answers
    change by release: cells that said another status before a release, a gate that comes or goes
    at one, a choice of ``t`` that comes or goes, a default with a history, a field that comes
    later; and the two releases compared (``--from-version A --to-version B``, either way round)."""
    text, names, runners, _ = draw(_small_matrices(adjustments=draw(st.booleans()), redirects=True, issue30=False))
    blocks = [b for b in re.finditer(r"\[features\.g\d+\]\n(?:(?!\[).*\n)*", text) if "forces" not in b.group(0)]
    edits = []
    for block in draw(st.lists(st.sampled_from(blocks), unique_by=lambda b: b.start(), max_size=2)) if blocks else ():
        cell = draw(st.sampled_from(list(re.finditer(r'\b([abc]) = "(yes|no)"', block.group(0)))))
        before = "no" if cell.group(2) == "yes" else "yes"
        at = block.start() + cell.start()
        edits.append((at, at + len(cell.group(0)), f'{cell.group(1)} = [{{ status = "{before}" }}, '
                                                   f'{{ status = "{cell.group(2)}", since = "{draw(st.sampled_from(_RELEASES[1:]))}" }}]'))
    if blocks and draw(st.booleans()):  # a gate in force from a release, or until one
        block = draw(st.sampled_from(blocks))
        if "deprecated" not in block.group(0):
            edits.append((block.end(), block.end(), f'{draw(st.sampled_from(["since", "until"]))} = '
                                                    f'"{draw(st.sampled_from(_RELEASES[1:]))}"\n'))
    for start, end, body in sorted(edits, reverse=True):
        text = text[:start] + body + text[end:]
    fields = {
        "t": ['"t" = { type = "str", choices = ["a", "b", "c", { value = "d", since = "0.8" }], default = "a" }',
              '"t" = { type = "str", choices = ["a", { value = "b", until = "1.0" }, "c"], default = "a" }',
              '"t" = { type = "str", choices = ["a", "b", "c"], default = [{ value = "a" }, { value = "b", since = "0.8" }] }'],
        "j": ['"j" = { type = "int", min = 0, max = 3, default = [{ value = 0 }, { value = 2, since = "1.0" }] }',
              '"j" = { type = "int", min = 0, max = 3, default = [{ value = 1, since = "0.8" }] }'],
        "b": ['"b" = { type = "bool", default = [{ value = false }, { value = true, since = "0.8" }] }']}
    for name in draw(st.lists(st.sampled_from(sorted(set(fields) & set(names))), unique=True)) if set(fields) & set(names) else ():
        text = text.replace(_FIELDS[name][0], draw(st.sampled_from(fields[name])))
    if draw(st.booleans()):  # a field that comes later (or goes), which no gate reads
        window = draw(st.sampled_from(['since = "0.8"', 'since = "1.0"', 'until = "1.0"']))
        text = text.replace("[config]\n", '[config]\n"x" = { type = "int", min = 0, default = 0, ' + window + " }\n", 1)
    versions = draw(st.permutations(_RELEASES))[:2]
    return text, runners, names, versions


def _history_agrees(case, fail_on, data=None):
    text, runners, names, (since, to) = case
    try:
        m = matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return  # an ill-typed combination of atoms, a gate that reads a choice outside its window
    names = [*names, *(["x"] if any(f.path == "x" for f in m.schema) else [])]
    _fleet_agrees(m, m, _leveled(diff(m, m, old_version=since, new_version=to), data), names, fail_on)


# A field that comes at 1.0 (min 0), beside a choice of t that goes then: from 0.8, where no value of
# x is read (none refused), only x < 0 is refused; the diff said "x set to any value", and the
# fleet listed {"t": "b", "x": 0} under x's config-rejected too. Then read back from 1.0 to 0.8:
# config-accepted, x < 0 (a value outside the new side's bounds: its region read it as a config error).
_COMES_LATER = (_SERVED_BY_B.replace('"t" = { type = "str", choices = ["a", "b", "c"], default = "a" }',
                                     '"x" = { type = "int", min = 0, default = 0, since = "1.0" }\n'
                                     '"t" = { type = "str", choices = ["a", { value = "b", until = "1.0" }, "c"], '
                                     'default = "a" }'), _AB, ["t"])


@settings(max_examples=max(10, settings.default.max_examples // 8), deadline=None)
@given(_histories(), st.sampled_from(LEVELS), st.data())
@example((*_COMES_LATER, ["0.8", "1.0"]), "breaking", None)
@example((*_COMES_LATER, ["1.0", "0.8"]), "behaviour", None)
def test_the_fleet_of_one_matrix_at_two_releases_says_what_each_config_resolves_to_at_each(case, fail_on, data):
    _history_agrees(case, fail_on, data)
