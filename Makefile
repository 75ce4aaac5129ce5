# The README's quick start: `make demo` runs the demo, `make test` runs the tests.
# Both install liblmdb-dev first when the machine lacks it.

.PHONY: lmdb demo test build clean

lmdb:
	@scripts/ensure-lmdb.sh

demo: lmdb
	swift run strata-demo

test: lmdb
	swift test

build: lmdb
	swift build

clean:
	rm -rf .build
