# The README's quick start: `make demo` runs the demo, `make test` runs the tests.
# Both install liblmdb-dev first when the machine lacks it (`make test` also PostgreSQL's server, for
# the private cluster the sync tests start).

# The package's traits (Package.swift): the sync library, the `strata` command and encryption at rest,
# with their third-party packages. An app depending on Strata alone enables none; this repository's
# own builds enable all three, everywhere, so that one build serves every target.
TRAITS = --traits Sync,CLI,Encryption

.PHONY: lmdb postgresql demo demo-sync bench-sync test test-tsan test-encrypted soak stress build clean bench bench-smoke docs lint format

lmdb:
	@scripts/ensure-lmdb.sh

postgresql:
	@scripts/ensure-postgresql.sh

demo: lmdb
	swift run $(TRAITS) strata-demo

# Two devices kept in step through a private PostgreSQL the demo starts and stops (builds postgres-nio).
demo-sync: lmdb postgresql
	swift run $(TRAITS) strata-sync-demo

# S1 and S2 of Docs/Benchmarks.md against a private PostgreSQL (release build; SCALE=0.1 for a quick run).
bench-sync: lmdb postgresql
	swift build $(TRAITS) -c release --product strata-sync-bench && .build/release/strata-sync-bench --scale $(or $(SCALE),1)

# Builds the tests (failing on a warning in Strata's own code), runs them, and ends with the names of
# the tests that failed. TESTS=NAME passes --filter NAME.
test: lmdb postgresql
	@scripts/run-tests.sh $(if $(TESTS),--filter "$(TESTS)")

# The layers only look down (scripts/check-layers.py, Docs/Architecture.md), and the code is as the
# toolchain's formatter writes it (.swift-format). `make format` rewrites it so.
lint:
	python3 scripts/check-layers.py
	swift format lint --strict --recursive Sources Tests Benchmarks/Sources

format:
	swift format format --in-place --recursive Sources Tests Benchmarks/Sources

# The concurrency tests under ThreadSanitizer (a separate build directory); any report fails the run.
TSAN_TESTS = ConcurrencyTests|StoreObserveTests|DeleteFilesTests|ScanSplitTests|ColumnCopyTests|ChangesSequenceTests|MapGrowthTests|StorePoolTests|FrozenTests|ActorStoreTests|AsyncWriteTests|GroupCommitTests|ThreadingTests|ThreadSafeReferenceTests|NotificationTests|FreezeTests|MultiProcessTests|MainThreadDeliveryTests|MainQueueTests|ObservationTests|ObservationModelTests|CommitPublicationTests|StrataReactiveTests
test-tsan: lmdb
	swift build $(TRAITS) --build-tests --sanitize=thread --build-path .build-tsan
	TSAN_OPTIONS=halt_on_error=1 swift test $(TRAITS) --skip-build --sanitize=thread --build-path .build-tsan --filter "$(TSAN_TESTS)"

# The reliability suites again on encrypted files (Docs/Encryption.md): with STRATA_RELIABILITY_KEY,
# every test Fixture and the helper process open their files with that key (kills, power cuts,
# damaged files, processes sharing a file, threads). Uses the build `make test` made.
ENCRYPTED_TESTS = CrashTests|FileDamageTests|PowerCutTests|MultiProcessTests|ConcurrencyTests|GroupCommitTests|FullText|CustomTokenizer|Vector|MigrationTests|IterationTests|IterationModelTests
test-encrypted: lmdb
	swift build $(TRAITS) --build-tests
	STRATA_RELIABILITY_KEY=0b30557a9fc4e90e33587da2c7ec11365b80a5caef14395e83a8cdf2173c6186abd0f51a3f6489aed3f81d42678cb1d6fb20456a8fb4d9fe23486d92b7dc0126 \
		swift test $(TRAITS) --skip-build --filter "$(ENCRYPTED_TESTS)"

# The reliability tests at full scale (Docs/Reliability.md): 2,000 kills per durability, 2,000 damaged
# files per kind (and salvages of 400), 10,000 simulated power cuts per durability, a minute of
# decoder fuzzing.
soak: lmdb
	STRATA_CRASH_KILLS=2000 STRATA_DAMAGE_TRIALS=2000 STRATA_POWER_CUTS=10000 STRATA_FUZZ_SECONDS=60 \
		swift test $(TRAITS) --filter "CrashTests|FileDamageTests|SalvageTests|PowerCutTests|DecoderFuzzTests|MultiProcessTests|ConcurrencyTests"

# Processes sharing a file for STRESS_SECONDS (600 by default; Docs/Reliability.md): 4 writers, a reader
# checking that versions and counts never go down and that its reader slot stays listed, a process
# opening and closing Stores in a loop, both cores loaded. Not part of CI's time budget.
stress: lmdb
	swift build $(TRAITS) --build-tests
	STRATA_STRESS_SECONDS=$(or $(STRESS_SECONDS),600) swift test $(TRAITS) --skip-build --filter MultiProcessStressTests

build: lmdb
	swift build $(TRAITS)

# The side-by-side comparison (raw LMDB, Strata, GRDB) at full scale; writes Docs/Benchmarks.md.
# (Removing release.yaml makes SwiftPM re-plan: it misses files added to the path dependency "..".)
bench: lmdb
	cd Benchmarks && rm -f .build/release.yaml && swift build -c release && \
		.build/release/strata-compare --rounds 3 --memory --write-docs ../Docs/Benchmarks.md

# CI: builds the whole Benchmarks package and runs the comparison small, so it never rots (no thresholds),
# and checks that the workloads' @Persisted accessors make no dynamic exclusivity check.
bench-smoke: lmdb
	cd Benchmarks && swift build -c release && .build/release/strata-compare --scale 0.01 --rounds 3
	scripts/check-accessor-exclusivity.sh Benchmarks/.build/release/strata-compare

# Every public symbol of Strata and StrataReactive has a doc comment, and the DocC catalog builds
# without a warning (into .build/docs). dump-symbol-graph rewrites the graphs on every run. Every
# relative link of the documents resolves, the README's package snippet builds, and every Swift block
# of README.md, Docs/ and the DocC articles compiles (scripts/check-doc-snippets.py, against this
# build's modules; a block marked <!-- fragment --> is skipped).
SYMBOLS = .build/symbol-graphs
docs: lmdb
	python3 scripts/check-docs.py
	scripts/check-package-snippet.sh
	swift build $(TRAITS) --build-tests
	python3 scripts/check-doc-snippets.py
	swift package $(TRAITS) dump-symbol-graph --minimum-access-level public --skip-synthesized-members --skip-inherited-docs
	rm -rf $(SYMBOLS) && mkdir -p $(SYMBOLS)
	cp $$(swift build $(TRAITS) --show-bin-path)/../symbolgraph/Strata.symbols.json $$(swift build $(TRAITS) --show-bin-path)/../symbolgraph/Strata@*.json $(SYMBOLS)/
	python3 scripts/check-doc-comments.py $(SYMBOLS)/Strata*.json $$(swift build $(TRAITS) --show-bin-path)/../symbolgraph/StrataReactive*.json
	docc convert Sources/Strata/Strata.docc --additional-symbol-graph-dir $(SYMBOLS) \
		--fallback-display-name Strata --fallback-bundle-identifier org.strata.Strata \
		--output-path .build/docs --warnings-as-errors

clean:
	rm -rf .build .build-tsan Benchmarks/.build
