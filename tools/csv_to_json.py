#!/usr/bin/env python3
"""csv_to_json: parses CSV text whose first line names the columns.

An executable tool (README, "Tools in any language"): its definition is in
csv_to_json.json, the arguments arrive as one JSON object on stdin, and it prints the table
as JSON. The sidecar's outputSchema makes that JSON the structured content (its "output" is
"json" by default then), checked against the schema. A problem with the input exits with
status 1 and a message, which the model receives as an error result.
"""
import csv
import io
import json
import sys


def main() -> None:
    args = json.loads(sys.stdin.buffer.read())
    reader = csv.reader(io.StringIO(args["csv"], newline=""), delimiter=args.get("delimiter", ","))
    try:
        lines = [line for line in reader if line]
    except csv.Error as error:
        sys.exit(f"The CSV text cannot be parsed: {error}")
    if not lines:
        sys.exit("The CSV text is empty: its first line must name the columns")
    columns, records = lines[0], lines[1:]
    repeated = sorted({name for name in columns if columns.count(name) > 1})
    if repeated:
        sys.exit(f"The header names a column more than once: {', '.join(repeated)}")
    for number, record in enumerate(records, start=2):
        if len(record) != len(columns):
            sys.exit(
                f"Line {number} has {len(record)} field(s), but the header has {len(columns)}"
            )
    table = {
        "columns": columns,
        "rows": [dict(zip(columns, record)) for record in records],
        "rowCount": len(records),
    }
    sys.stdout.buffer.write(json.dumps(table, ensure_ascii=False).encode() + b"\n")


main()
