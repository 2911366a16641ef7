#!/usr/bin/env python3
"""Structural check of Tests/Predicates/cases.json (the predicate test table).

Checks: valid JSON of the form {"assumptions": [...], "cases": [...]}, at least
450 cases, unique ids, every case has exactly one of result/error, result is a
boolean, error is one of the four kinds, canonical present unless the error is
parse/argument, typed arguments and object/variable values well formed.
Prints the number of cases per id group and exits non-zero on any problem.

Usage: python3 check_cases.py [path/to/cases.json]
"""
import collections
import json
import os
import re
import sys

ERROR_KINDS = {"parse", "evaluate", "argument", "variable"}
CASE_KEYS = {"id", "format", "args", "object", "variables", "result", "error", "canonical"}
ARG_KINDS = {"int", "double", "bool", "string", "null", "date", "key", "array"}
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")
MIN_CASES = 450


def check_arg(arg, where, problems):
    if not isinstance(arg, dict) or len(arg) != 1:
        problems.append(f"{where}: typed argument must be a one-key object, got {arg!r}")
        return
    (kind, value), = arg.items()
    if kind not in ARG_KINDS:
        problems.append(f"{where}: unknown argument kind {kind!r}")
    elif kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        problems.append(f"{where}: int argument needs an integer")
    elif kind in ("double", "date") and (isinstance(value, bool) or not isinstance(value, (int, float))):
        problems.append(f"{where}: {kind} argument needs a number")
    elif kind == "bool" and not isinstance(value, bool):
        problems.append(f"{where}: bool argument needs true/false")
    elif kind in ("string", "key") and not isinstance(value, str):
        problems.append(f"{where}: {kind} argument needs a string")
    elif kind == "null" and value is not True:
        problems.append(f"{where}: null argument must be {{\"null\": true}}")
    elif kind == "array":
        if not isinstance(value, list):
            problems.append(f"{where}: array argument needs a list")
        else:
            for i, item in enumerate(value):
                check_arg(item, f"{where}[{i}]", problems)


def check_value(value, where, problems):
    """Object/variable values: JSON scalars, arrays, dictionaries, {"$date": n}."""
    if isinstance(value, dict):
        if "$date" in value:
            if len(value) != 1 or isinstance(value["$date"], bool) or not isinstance(value["$date"], (int, float)):
                problems.append(f"{where}: malformed date value {value!r}")
            return
        for k, v in value.items():
            check_value(v, f"{where}.{k}", problems)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_value(v, f"{where}[{i}]", problems)
    elif value is not None and not isinstance(value, (str, bool, int, float)):
        problems.append(f"{where}: unsupported value {value!r}")


def group_of(case_id):
    # group = first id segment ("cmp-eq-single-1" -> "cmp"); error cases by kind ("err-parse-empty" -> "err-parse")
    parts = case_id.split("-")
    return "-".join(parts[:2]) if parts[0] == "err" else parts[0]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json")
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            print(f"FAIL: not valid JSON: {e}")
            return 1

    problems = []
    if not isinstance(data, dict) or set(data) != {"assumptions", "cases"}:
        print("FAIL: top level must be an object with exactly 'assumptions' and 'cases'")
        return 1
    assumptions, cases = data["assumptions"], data["cases"]
    if not isinstance(assumptions, list) or not assumptions or not all(isinstance(a, str) and a.strip() for a in assumptions):
        problems.append("assumptions must be a non-empty list of non-empty strings")
    if not isinstance(cases, list):
        print("FAIL: 'cases' must be a list")
        return 1
    if len(cases) < MIN_CASES:
        problems.append(f"only {len(cases)} cases, need at least {MIN_CASES}")

    ids = collections.Counter()
    groups = collections.Counter()
    results = collections.defaultdict(collections.Counter)
    for n, case in enumerate(cases):
        where = f"case #{n}"
        if not isinstance(case, dict):
            problems.append(f"{where}: not an object")
            continue
        cid = case.get("id")
        if not isinstance(cid, str) or not ID_RE.match(cid):
            problems.append(f"{where}: bad id {cid!r}")
        else:
            where = cid
            ids[cid] += 1
        extra = set(case) - CASE_KEYS
        if extra:
            problems.append(f"{where}: unknown keys {sorted(extra)}")
        if not isinstance(case.get("format"), str):
            problems.append(f"{where}: format must be a string")
        has_result, has_error = "result" in case, "error" in case
        if has_result == has_error:
            problems.append(f"{where}: needs exactly one of result/error")
        if has_result and not isinstance(case["result"], bool):
            problems.append(f"{where}: result must be true/false")
        if has_error and case["error"] not in ERROR_KINDS:
            problems.append(f"{where}: unknown error kind {case['error']!r}")
        needs_canonical = not has_error or case["error"] in ("evaluate", "variable")
        if needs_canonical and not isinstance(case.get("canonical"), str):
            problems.append(f"{where}: canonical text required")
        if "canonical" in case and not isinstance(case["canonical"], str):
            problems.append(f"{where}: canonical must be a string")
        if "args" in case:
            if not isinstance(case["args"], list):
                problems.append(f"{where}: args must be a list")
            else:
                for i, arg in enumerate(case["args"]):
                    check_arg(arg, f"{where}: args[{i}]", problems)
        for key in ("object", "variables"):
            if key in case:
                if not isinstance(case[key], dict):
                    problems.append(f"{where}: {key} must be an object")
                else:
                    check_value(case[key], f"{where}: {key}", problems)
        if isinstance(cid, str):
            g = group_of(cid)
            groups[g] += 1
            results[g]["error" if has_error else str(case.get("result")).lower()] += 1

    for cid, count in ids.items():
        if count > 1:
            problems.append(f"duplicate id {cid!r} ({count}x)")

    print(f"{path}: {len(cases)} cases, {len(assumptions)} assumptions")
    for g in sorted(groups):
        r = results[g]
        print(f"  {g:10s} {groups[g]:4d}   true={r['true']:3d} false={r['false']:3d} error={r['error']:3d}")
    if problems:
        print(f"FAIL: {len(problems)} problem(s)")
        for p in problems:
            print("  - " + p)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
