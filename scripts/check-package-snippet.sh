#!/usr/bin/env bash
# Builds a package made of the README's "use it in your package" snippet, beside a link to this
# checkout named `strata`, so that the snippet a new user copies keeps compiling.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/.build/package-snippet"
rm -rf "$work/MyApp" && mkdir -p "$work/MyApp/Sources/MyApp"
ln -sfn "$root" "$work/strata"
python3 "$root/scripts/check-docs.py" --snippet "$work/MyApp/Package.swift" > /dev/null
cat > "$work/MyApp/Sources/MyApp/main.swift" <<'SWIFT'
import Foundation
import Strata
import StrataReactive

final class Note: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var text: String
}

let configuration = Store.Configuration(inMemoryIdentifier: "snippet", objectTypes: [Note.self])
let store = try Store(configuration: configuration)
try store.write { try store.add(Note()) }
print("notes: \(store.objects(Note.self).count)")
SWIFT
cd "$work/MyApp"
swift build --scratch-path "$work/.build" 2>&1 | tail -n 3
"$work/.build/debug/MyApp"
