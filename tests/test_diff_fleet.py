"""``matrix diff OLD NEW --configs FILE``, the fleet view, against a reference written from
docs/how-to/review-a-change.md and docs/reference/cli.md: each config of a small space, on random
pairs of matrices (`tests.test_diff._edited`), resolved on both sides here."""

import json

import jsonschema
from hypothesis import example, given, settings
from hypothesis import strategies as st

import matrix
from matrix import _messages
from matrix._diff_cli import fleet
from matrix.diff import LEVELS, Accepted, diff, json_schema, kind_of, region_predicate, reproduces

from .test_check import _universe
from .test_diff import _ROLE_SET, _ROLES_REFUSING, _ROLES_REFUSING_RUNNERS, _edited, _overlaid, _with_roles, _with_unset

#: Configs of the space a draw compares (each is resolved once per change of the report, and by
#: the reference): enough to meet every answer of a small matrix, at a modest cost in CI.
_CONFIGS = 48


def _renamed(old, new):
    """Runner id on the old side → its id on the new side, for each runner renamed with its
    former id (an alias of the new side that names a runner only the old side has)."""
    old_ids, new_ids = {r.id for r in old.runners}, {r.id for r in new.runners}
    return {a.id: r.id for r in new.runners for a in r.aliases if a.id in old_ids and a.id not in new_ids}


def _rejected(m, config, version):
    """Why *m*'s ``[config]`` rejects *config*, as ``matrix resolve`` holds a config to it (a key
    it does not declare, a value its field does not allow, read or not), or None."""
    try:
        try:
            resolution = m.resolve(config, version=version)
        except matrix.ResolutionError as error:
            resolution = error.resolution
        dict(resolution.effective)
    except matrix.ConfigError as error:
        return str(error)
    return None


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


def _reference(report, old, new, configs, fail_on):
    """The fleet's JSON document as the docs say it, each config resolved here."""
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
        said = []
        # With roles, a config whose base role's field names a runner is a request for it (docs:
        # file-format.md, Roles): the changes of that request say it, else automatic choice's.
        asked = {_base_request(m, config) for m in (old, new)}
        for c in report.changes:
            if c.id.startswith("blocker-") or c.runner not in asked:
                continue  # a runner's blockers, or another question than the config's
            if one_sided and c.id not in ("config-accepted", "config-rejected", "config-field-added",
                                          "config-field-removed"):
                continue  # one side rejects it: the [config]'s change that holds it says it (docs), or nothing does
            listed = reproduces(c, old, new, config, old_version=report.old_version,
                                new_version=report.new_version)
            if kind_of(c) == "automatic":  # in its region, and answered as it says (read here)
                try:
                    inside = c.region == "every config" or region_predicate(c.region).evaluate(config, schema=schema)
                except matrix.ConfigError:
                    inside = False
                assert listed == (inside and [was_said, now_said] == [c.old, c.new]), (c, config)
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
    unsaid = f"{item['unsaid']}: changed, no finding says it (see the report's undecided lines)"
    if not item["compared"]:
        return _messages.diff_fleet_not_compared()
    if item["changes"]:
        return ", ".join([f"{c['level']}[{c['id']}]" for c in item["changes"]] + ([unsaid] if item["unsaid"] else []))
    if item["before"].startswith("config error: ") != item["after"].startswith("config error: "):
        return "breaking: a config error on one side"
    return "—" if item["unsaid"] is None else unsaid


def _fleet_agrees(case, fail_on, data=None):
    text, runners, new_text, new_runners, names, overlay = case
    try:
        old = matrix.loads(text, runners=runners)
        new = matrix.loads(new_text, runners=new_runners) if overlay is None else _overlaid(text, runners, overlay)
    except matrix.LoadError:
        return  # an ill-typed combination of atoms, or a refusal naming the gate removed
    report = diff(old, new)
    if data is not None and report.changes:  # --level ID=LEVEL and [tool.matrix.diff] accept, over the report's ids
        ids = sorted({c.id for c in report.changes})
        levels = data.draw(st.dictionaries(st.sampled_from(ids), st.sampled_from(LEVELS), max_size=2))
        accept = [Accepted(i, "intended", ()) for i in data.draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))]
        report = report.with_levels(levels, accept)
    unset = matrix._diff.unset_defaults(matrix.resolver._plan(old, None), matrix.resolver._plan(new, None))
    universe = _with_unset(_with_roles(_universe(old, names), old), unset)
    universe = universe[:: len(universe) // _CONFIGS + 1]
    # Each witness too: a config that shows a change.
    universe += [c.witness for c in report.changes if c.witness is not None and c.witness not in universe]
    configs = [(f"c{i}", config) for i, config in enumerate(universe)]
    expected, failing = _reference(report, old, new, configs, fail_on)
    out, status = fleet(report, old, new, configs, fail_on, "json")
    document = json.loads(out)
    jsonschema.Draft202012Validator(json_schema()).validate(document)
    assert status == expected["status"]
    for got, want in zip(document["configs"], expected["configs"]):
        assert got == want, (got, want)
    assert document == expected
    # The table says the same, a row per config, and the exit status under it.
    table, status = fleet(report, old, new, configs, fail_on)
    rows = [line for line in table.splitlines() if line.startswith("| c")]
    assert rows == ["| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in
                                      (i["name"], i["before"], i["after"], _cell(i))) + " |"
                    for i in expected["configs"]]
    assert table.splitlines()[0] == _messages.diff_fleet_head(expected["changed"], len(configs), report.old_version,
                                                              report.new_version, len(expected["rejected"]))
    assert table.splitlines()[-1] == _messages.diff_fleet_exit(status, fail_on, failing, expected["rejected"])


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


@settings(max_examples=max(10, settings.default.max_examples // 8), deadline=None)
@given(_edited(), st.sampled_from(LEVELS), st.data())
@example(_RENAMED_B, "behaviour", None)
# A user trial (issue 28 with roles, W6): a config that names a runner in the base role's field was
# matched with no change of that request ("changed, no finding says it" beside the finding).
@example((_ROLES_REFUSING, _ROLES_REFUSING_RUNNERS, _ROLES_REFUSING.replace('c = "yes" }', 'c = "no" }'),
          _ROLES_REFUSING_RUNNERS, ["j"], None), "breaking", None)
@example((_ROLES_REFUSING + _ROLE_SET, _ROLES_REFUSING_RUNNERS,
          (_ROLES_REFUSING + _ROLE_SET).replace('a = "yes", b', 'a = "no", b'), _ROLES_REFUSING_RUNNERS, ["j"], None),
         "breaking", None)
def test_the_fleet_says_what_each_config_resolves_to_on_both_sides_and_the_change_it_falls_under(case, fail_on, data):
    _fleet_agrees(case, fail_on, data)
