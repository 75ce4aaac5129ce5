# The README's quick start: `make demo` runs the demo, `make test` runs the tests.
# Both install liblmdb-dev first when the machine lacks it.

.PHONY: lmdb demo test build clean bench bench-smoke

lmdb:
	@scripts/ensure-lmdb.sh

demo: lmdb
	swift run strata-demo

test: lmdb
	swift test

build: lmdb
	swift build

# The side-by-side comparison (raw LMDB, Strata, GRDB) at full scale; writes Docs/Benchmarks.md.
# (Removing release.yaml makes SwiftPM re-plan: it misses files added to the path dependency "..".)
bench: lmdb
	cd Benchmarks && rm -f .build/release.yaml && swift build -c release && \
		.build/release/strata-compare --rounds 3 --memory --write-docs ../Docs/Benchmarks.md

# CI: builds the whole Benchmarks package and runs the comparison small, so it never rots (no thresholds).
bench-smoke: lmdb
	cd Benchmarks && swift build -c release && .build/release/strata-compare --scale 0.01 --rounds 3

clean:
	rm -rf .build Benchmarks/.build
