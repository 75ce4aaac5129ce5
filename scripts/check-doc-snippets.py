#!/usr/bin/env python3
"""Compiles every Swift code block of README.md, Docs/ and the DocC articles (make docs), so that a sample a user copies
builds. Each block is the main.swift of a program of its own, compiled through SIL's mandatory
passes (definite initialization, isolation) against the modules of the last `swift build` with the
package's traits. A block sees what it imports, and the names of scripts/doc-snippets/Context.swift
(an `url`, a `store` and the models the documents share: what "the store" means in a paragraph);
its own declarations shadow them. A block preceded by `<!-- fragment -->` (a piece of a larger
program, or Swift-like pseudo-code) is skipped; the README's package snippet is built by
scripts/check-package-snippet.sh. Exits 1 naming each block that does not compile."""
import concurrent.futures, os, pathlib, re, shlex, subprocess, sys, tempfile

root = pathlib.Path(__file__).resolve().parent.parent
documents = [
    root / "README.md", *sorted((root / "Docs").rglob("*.md")), *sorted((root / "Sources/Strata/Strata.docc").glob("*.md"))
]
fence = re.compile(r"^```swift\s*$")
# The package's modules that are no product: a user's package cannot import them.
internal_modules = {"StrataExamples", "StrataTestSupport", "StrataTestModels", "PrivatePostgres", "CLMDB", "StrataCLI"}


def blocks(path):
    """(line, code, skipped) for each ```swift block of a Markdown file."""
    lines = path.read_text().split("\n")
    index = 0
    while index < len(lines):
        if fence.match(lines[index]):
            start = index
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            marker = next((lines[i].strip() for i in range(start - 1, -1, -1) if lines[i].strip()), "")
            skipped = marker in ("<!-- fragment -->",) or marker.startswith("<!-- package-snippet")
            yield start + 1, "\n".join(lines[start + 1:end]), skipped
            index = end + 1
        else:
            index += 1


def imports(document):
    """What a block of `document` sees besides its own imports: Foundation, Strata, StrataReactive,
    the shared context, and StrataSync in Docs/Sync.md. Only the package's products (and the
    context's shared names): a guide's sample builds in a user's package, so it may not use
    StrataExamples (the demo's and the tests' copy of the patterns, not a product)."""
    relative = str(document.relative_to(root))
    modules = ["Foundation", "Strata", "StrataReactive", "DocContext"]
    if relative == "Docs/Sync.md":
        modules.append("StrataSync")
    return modules


def compiler_arguments():
    """The search paths and C module maps the build gave the sync tests (which see every module)."""
    bin_path = subprocess.run(
        ["swift", "build", "--traits", "Sync,CLI", "--show-bin-path"], cwd=root, capture_output=True, text=True,
        check=True).stdout.strip()
    plan = (pathlib.Path(bin_path).parent.parent / "debug.yaml")
    if not plan.exists():
        plan = root / ".build" / "debug.yaml"
    text = plan.read_text()
    start = text.index('"C.StrataSyncTests-')
    args_line = next(line for line in text[start:].split("\n") if line.strip().startswith("args:"))
    args = [eval(item) if item.startswith('"') else item
            for item in re.findall(r'"(?:\\.|[^"\\])*"', args_line.split("args:", 1)[1])]
    kept = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-I", "-Xcc", "-module-cache-path", "-sdk", "-target", "-F") and index + 1 < len(args):
            kept += [arg, args[index + 1]]
            index += 2
            continue
        if arg.startswith("-I") or arg.startswith("-fmodule-map-file"):
            kept.append(arg)
        index += 1
    return [a for a in kept], pathlib.Path(bin_path)


def main():
    base, bin_path = compiler_arguments()
    work = pathlib.Path(tempfile.mkdtemp(prefix="strata-doc-snippets-"))
    context = root / "scripts" / "doc-snippets" / "Context.swift"
    made = subprocess.run(
        ["swiftc", "-swift-version", "6", "-parse-as-library", "-emit-module", "-module-name", "DocContext",
         "-emit-module-path", str(work / "DocContext.swiftmodule"), str(context), *base],
        capture_output=True, text=True)
    if made.returncode != 0:
        print(made.stdout + made.stderr)
        print("doc snippets: scripts/doc-snippets/Context.swift does not compile")
        return 1
    jobs = []
    skipped = 0
    refused = 0
    for document in documents:
        for line, code, skip in blocks(document):
            if skip:
                skipped += 1
                continue
            name = f"{document.relative_to(root)}:{line}"
            # The build's search paths reach every module of the package: a block may import only
            # what a user's package can (the products, the toolchain's modules).
            inner = [m for m in re.findall(r"^\s*(?:@[^\n]*\s)?import\s+(\w+)", code, re.M) if m in internal_modules]
            if inner:
                refused += 1
                print(f"{name}: imports {', '.join(inner)}, which is no product of the package")
                continue
            folder = work / re.sub(r"[^A-Za-z0-9]+", "-", name)
            folder.mkdir()
            source = folder / "main.swift"
            source.write_text("".join(f"import {module}\n" for module in imports(document)) + code + "\n")
            jobs.append((name, source, len(imports(document))))

    def compile_one(job):
        name, source, offset = job
        result = subprocess.run(
            ["swiftc", "-swift-version", "6", "-emit-sil", "-o", os.devnull, "-module-name", "Snippet",
             str(source), "-I", str(work), *base],
            capture_output=True, text=True)
        errors = [l for l in (result.stdout + result.stderr).split("\n") if ": error:" in l]
        return name, result.returncode, errors, source, offset

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, status, errors, source, offset in pool.map(compile_one, jobs):
            if status != 0:
                failures += 1
                print(f"{name}: does not compile ({source}):")
                for error in errors[:8]:
                    # Lines of the block: the generated file has its import lines first.
                    match = re.match(r".*main\.swift:(\d+):(\d+): error: (.*)", error)
                    if match:
                        print(f"  block line {int(match.group(1)) - offset}: {match.group(3)}")
                    else:
                        print("  " + error)
    print(f"doc snippets: {len(jobs)} Swift blocks compiled, {skipped} skipped (fragments, the package snippet), "
          f"{failures} failed, {refused} refused (importing a module that is no product)")
    return 1 if failures or refused else 0


sys.exit(main())
