#!/usr/bin/env python3
"""Checks the repository's documentation: every relative link in README.md, Docs/ and the DocC
catalog names a file that exists, and no document cites a file the repository does not have.
Prints the README's package snippet to a file when asked (--snippet PATH). Exits 1 on a problem."""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
documents = [root / "README.md", *sorted((root / "Docs").rglob("*.md")),
             *sorted((root / "Sources/Strata/Strata.docc").rglob("*.md")), root / "Benchmarks/README.md"]
problems = []
for document in documents:
    text = document.read_text()
    name = document.relative_to(root)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#") or target.startswith("doc:"):
            continue  # a web address, an anchor, a DocC reference
        path = (document.parent / target.split("#")[0]).resolve()
        if not path.exists():
            problems.append(f"{name}: the link {target} names no file")
    for cited in re.findall(r"\b(DESIGN\.md|STYLE\.md|DESIGN §\d+)", text):
        problems.append(f"{name}: cites {cited}, which is not in the repository")

if "--snippet" in sys.argv:
    readme = (root / "README.md").read_text()
    match = re.search(r"<!-- package-snippet[^>]*-->\s*```swift\n(.*?)```", readme, re.S)
    if not match:
        problems.append("README.md: no package snippet (<!-- package-snippet --> before a swift block)")
    else:
        pathlib.Path(sys.argv[sys.argv.index("--snippet") + 1]).write_text(match.group(1))

for problem in problems:
    print(problem)
print(f"documentation: {len(documents)} files checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
