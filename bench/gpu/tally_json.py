"""Reading the tracer's JSON tally (`tracer -j`, cli/analysis/tally_print.c) and the apps'
own counts, for the scripts beside this file."""
import json
import sys


def load(path, what, program):
    """The JSON in path; a clear message and exit status 2 when it cannot be read."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as error:
        message = f"cannot read {what} {path}: {error.strerror}"
    except json.JSONDecodeError as error:
        message = f"{what} {path} is not JSON: line {error.lineno}: {error.msg}"
    print(f"{program}: {message}", file=sys.stderr)
    sys.exit(2)


def backends(tally, path, program):
    found = tally.get("backends") if isinstance(tally, dict) else None
    if not isinstance(found, list):
        print(f"{program}: {path} has no \"backends\" list (not a tracer -j tally?)",
              file=sys.stderr)
        sys.exit(2)
    return found


def rows_by_name(tally, path, program, table, backend=None):
    """The rows of one table ("host", "device", "traffic") of every backend, or of the one
    named, by name: name -> list of rows, each with its backend's name added."""
    rows = {}
    for b in backends(tally, path, program):
        if backend is None or b.get("name") == backend:
            for row in b.get(table) or []:
                rows.setdefault(row.get("name"), []).append(dict(row, backend=b.get("name")))
    return rows
