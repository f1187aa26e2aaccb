"""``matrix check`` findings in the formats CI systems show beside the line: SARIF 2.1.0 (code
scanning) and GitHub Actions workflow commands."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List

if TYPE_CHECKING:  # pragma: no cover
    from .check import Report

_SARIF_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def tool_version() -> str:
    """The installed version of support-matrix ("0" when run from a source tree), as
    ``matrix --version`` says it and each SARIF log (of ``check`` and of ``diff``) names its tool."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("support-matrix")
    except PackageNotFoundError:
        return "0"
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}


def sarif(report: Report, *, tool_version: str) -> str:
    """The report as one SARIF 2.1.0 log: a rule per code, a result per finding."""
    from .check import CODES

    rules = [{"id": code, "shortDescription": {"text": meaning},
              "defaultConfiguration": {"level": _SARIF_LEVEL[severity]}}
             for code, (severity, meaning) in CODES.items()]
    results = []
    for finding in report.findings:
        result: Dict[str, Any] = {
            "ruleId": finding.code,
            "ruleIndex": list(CODES).index(finding.code),
            "level": _SARIF_LEVEL[finding.severity],
            "message": {"text": finding.message},
        }
        if finding.file is not None:
            region = {}
            if finding.line is not None:
                region = {"startLine": finding.line, "startColumn": finding.column or 1}
            location: Dict[str, Any] = {"artifactLocation": {"uri": finding.file.replace("\\", "/")}}
            if region:
                location["region"] = region
            result["locations"] = [{"physicalLocation": location,
                                    "logicalLocations": [{"fullyQualifiedName": finding.place}]}]
        properties = {key: value for key, value in (
            ("witness", finding.witness), ("features", list(finding.features)),
            ("combinations", [list(c) for c in finding.combinations]),
            ("configPath", finding.path), ("member", finding.member)) if value}
        if properties:
            result["properties"] = properties
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "matrix", "version": tool_version,
                                "informationUri": "https://pypi.org/project/support-matrix/", "rules": rules}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def github(report: Report) -> str:
    """One workflow command per finding (``::error file=…,line=…,col=…,title=…::message``):
    GitHub shows each as an annotation on the line."""
    lines: List[str] = []
    for finding in report.findings:
        properties = []
        if finding.file is not None:
            properties.append(f"file={_property(finding.file)}")
            if finding.line is not None:
                properties.append(f"line={finding.line}")
                properties.append(f"col={finding.column or 1}")
        properties.append(f"title={_property('matrix ' + finding.code)}")
        message = finding.message
        if finding.witness is not None:
            message += "\nwitness: " + json.dumps(finding.witness, sort_keys=True)
        lines.append(f"::{_GITHUB_LEVEL[finding.severity]} {','.join(properties)}::{_data(message)}")
    return "".join(line + "\n" for line in lines)


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
