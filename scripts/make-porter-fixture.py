#!/usr/bin/env python3
"""Writes Tests/StrataTests/Fixtures/porter-fts5.txt: each word of the first 600 manual pages of
section 1 on this machine (lowercase ASCII words of 2 to 20 letters), and the stem SQLite's FTS5
`porter ascii` tokenizer gives it (Python's sqlite3, built with FTS5). TextTokenizerTests checks
Strata's PorterStemmer against it: a full-text search then ranks as an FTS5 `porter` table would."""
import collections, gzip, pathlib, re, sqlite3

root = pathlib.Path(__file__).resolve().parent.parent
pages = sorted(pathlib.Path("/usr/share/man/man1").glob("*.gz"))[:600]
words = collections.Counter()
for page in pages:
    try:
        text = gzip.open(page, "rt", errors="replace").read()
    except OSError:
        continue
    for line in text.splitlines():
        line = re.sub(r"\\f[BIRP]|\\-|\\\(..|^\.[A-Za-z]+", "", line)
        for word in re.findall(r"[A-Za-z]+", line):
            if 2 <= len(word) <= 20:
                words[word.lower()] += 1

connection = sqlite3.connect(":memory:")
connection.execute('create virtual table t using fts5(b, tokenize="porter ascii")')
connection.execute("create virtual table v using fts5vocab(t, instance)")
ordered = sorted(words)
with open(root / "Tests/StrataTests/Fixtures/porter-fts5.txt", "w") as out:
    for start in range(0, len(ordered), 500):
        chunk = ordered[start:start + 500]
        connection.execute("delete from t")
        connection.execute("insert into t values (?)", (" ".join(chunk),))
        stems = {offset: term for term, _, _, offset in connection.execute("select term, doc, col, offset from v")}
        for index, word in enumerate(chunk):
            out.write(f"{word} {stems[index]}\n")
print(f"{len(ordered)} words")
