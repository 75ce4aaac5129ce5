#!/usr/bin/env python3
"""Lists public symbols without a doc comment in the given symbol graphs; exits 1 if any.

Symbols whose name starts with `_` (implementation details of macros and property wrappers),
synthesized members and members inherited from protocols are skipped."""
import json, sys

missing = []
for path in sys.argv[1:]:
    graph = json.load(open(path))
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        components = symbol["pathComponents"]
        if any(part.startswith("_") for part in components):
            continue
        identifier = symbol["identifier"]["precise"]
        if "::SYNTHESIZED::" in identifier:
            continue
        if symbol.get("docComment", {}).get("lines"):
            continue
        location = symbol.get("location", {}).get("uri", "")
        if not location:  # declared elsewhere (inherited, default implementations)
            continue
        missing.append(".".join(components) + "  (" + location.split("/Sources/")[-1] + ")")

for line in sorted(set(missing)):
    print("undocumented:", line)
print(f"{len(set(missing))} public symbols without a doc comment")
sys.exit(1 if missing else 0)
