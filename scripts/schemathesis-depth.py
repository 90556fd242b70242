"""How deep a Schemathesis run reached (used by scripts/schemathesis).

Reads the run's NDJSON event log and the OpenAPI document it tested, and prints
"N M": N documented operations (method and path) that answered at least one
generated request, in any phase, with a 2xx, of the document's M. The operations that
never did are listed on stderr. Requests with undocumented methods (the coverage
phase's negative cases) do not count.
"""

import json
import sys

events, document = sys.argv[1], json.load(open(sys.argv[2], encoding="utf-8"))
documented = {
    f"{method.upper()} {path}"
    for path, item in document["paths"].items()
    for method in item
    if method in {"get", "put", "post", "delete", "patch"}
}
reached = set()
with open(events, encoding="utf-8") as lines:
    for line in lines:
        finished = json.loads(line).get("ScenarioFinished")
        if not finished or "cases" not in finished["recorder"]:
            continue
        recorder = finished["recorder"]
        for case_id, node in recorder["cases"].items():
            response = (recorder["interactions"].get(case_id) or {}).get("response")
            if response and 200 <= response["status_code"] < 300:
                case = node["value"]
                reached.add(f'{case["method"]} {case["path"]}')
for operation in sorted(documented - reached):
    print(f"  never a 2xx: {operation}", file=sys.stderr)
print(len(documented & reached), len(documented))
