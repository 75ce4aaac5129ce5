#!/usr/bin/env python3
"""Checks that the layers of Sources/Strata only look down (Docs/Architecture.md).

Each folder of Sources/Strata is a layer. LAYERS lists them bottom first: a file may name the types
declared at the top level of its own layer and of the layers below it, never those of a layer
above. (Extending a lower type from a higher layer is how a higher layer adds to it: the extension
lives in the higher folder.) Prints every offending line and exits 1 if there is any."""
import pathlib, re, sys

# Bottom first. This list is the one place that says which layer may use which.
LAYERS = [
    "Encryption",     # sealing what an encrypted file stores (the Encryption trait); errors: SealFailure
    "Storage",        # LMDB, files, transactions; errors: LMDBError, StorageError
    "Encoding",       # row and key formats; errors: RowDamage
    "Text",           # the words of a text for full-text search: word boundaries, folding, stemming
    "Errors",         # StoreError, and the one mapping to it from the layers below
    "Search",         # full-text indexes (postings, BM25) and vector indexes (HNSW graphs) in LMDB
    "Model",          # Object, @Persisted, List, LinkingObjects, the stored value types
    "Schema",         # schemas of model types and files, table bindings, migrations, table writes
    "Core",           # Store and StoreCore with its parts: snapshots, writes, rows, iteration, commit log, observers
    "Query",          # Results, Query, predicates and plans
    "Store",          # the Store's public operations, handoff, freezing, verification
    "Creation",       # objects made from values: create(_:value:update:), Object(value:)
    "Notifications",  # observing Results and objects: changes, tokens, the observers
    "Projection",     # Projection, @Projected, ProjectedResults: view models of key paths
    "Dynamic",        # files opened without the app's classes
]

root = pathlib.Path(__file__).resolve().parent.parent / "Sources" / "Strata"
declaration = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|fileprivate|private|open|final|indirect)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)")


def code_lines(path):
    """The lines of a Swift file without comments and string literals (roughly, but enough here)."""
    text = path.read_text()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r'"""(?:.|\n)*?"""', lambda m: "\n" * m.group(0).count("\n"), text)
    lines = []
    for line in text.split("\n"):
        line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        lines.append(line.split("//")[0])
    return lines


layer_of_folder = {name: index for index, name in enumerate(LAYERS)}
declared = {}  # type name -> layer index
files = {}
problems = []
for folder in sorted(path for path in root.iterdir() if path.is_dir() and path.suffix != ".docc"):
    if folder.name not in layer_of_folder:
        problems.append(f"Sources/Strata/{folder.name}/ is no layer: add it to LAYERS in scripts/check-layers.py")
        continue
    for path in sorted(folder.rglob("*.swift")):
        lines = code_lines(path)
        files[path] = (layer_of_folder[folder.name], lines)
        for line in lines:
            match = declaration.match(line)
            if match:
                declared.setdefault(match.group(1), layer_of_folder[folder.name])

for path, (layer, lines) in sorted(files.items()):
    own = {name for line in lines for name in [m.group(1) for m in [declaration.match(line)] if m]}
    for number, line in enumerate(lines, start=1):
        for name in set(re.findall(r"\b[A-Z][A-Za-z0-9_]*\b", line)):
            above = declared.get(name)
            if above is not None and above > layer and name not in own:
                problems.append(
                    f"{path.relative_to(root.parent.parent)}:{number}: {LAYERS[layer]} names {name}, "
                    f"declared in {LAYERS[above]} (a layer above)")

# LMDB's C API is the storage layer's alone: no other layer imports CLMDB, calls LMDB's wrappers
# (`LMDB.…`) or holds one of its handles (`OpaquePointer`).
for path, (layer, lines) in sorted(files.items()):
    if LAYERS[layer] == "Storage":
        continue
    for number, line in enumerate(lines, start=1):
        where = f"{path.relative_to(root.parent.parent)}:{number}: {LAYERS[layer]}"
        if re.match(r"^\s*(?:@\w+\s+)?import\s+(?:\w+\s+)?CLMDB\b", line):
            problems.append(f"{where} imports CLMDB (only Storage/ may)")
        for name in ("LMDB", "OpaquePointer"):
            if re.search(rf"\b{name}\b", line):
                problems.append(f"{where} names {name} (LMDB's C API and handles are Storage/'s alone)")

for problem in problems:
    print(problem)
print(f"layers: {len(files)} files in {len(LAYERS)} layers checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
