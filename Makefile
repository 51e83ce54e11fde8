# birthdays: the two commands that matter on a fresh Debian 12 machine with Swift
#   make demo   build release, import samples/ into a throwaway database, list upcoming birthdays
#   make test   install what the tests need and run them

SWIFT ?= swift
# What building needs (libxml2 is loaded with dlopen by CardDAV syncs; nothing links it).
BUILD_PACKAGES := pkg-config libical-dev libsqlite3-dev libdbus-1-dev libxml2
# What the tests need on top: independent iCalendar readers, a real notification
# server (dunst under Xvfb on a private D-Bus), a PTY driver, a real CardDAV
# server (Radicale, its fsyncs made free by eatmydata) and vdirsyncer.
TEST_PACKAGES := $(BUILD_PACKAGES) curl python3 python3-icalendar python3-vobject python3-dateutil khal \
	dbus dbus-x11 libglib2.0-bin python3-dbus python3-gi libnotify-bin dunst xvfb xauth tmux \
	radicale vdirsyncer eatmydata
# What `make bench` needs on top.
BENCH_PACKAGES := $(TEST_PACKAGES) hyperfine wrk nginx-light khard time valgrind

.PHONY: demo test bench build release format lint fuzz deps-build deps-test deps-bench clean

demo: deps-build release
	@db="$$(mktemp -d)/demo.sqlite"; \
	./.build/release/birthdays import --database "$$db" samples/contacts.vcf samples/google-contacts.csv && \
	echo && ./.build/release/birthdays upcoming --database "$$db" --days 60; \
	status=$$?; rm -rf "$$(dirname "$$db")"; exit $$status

test: deps-test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

build: deps-build
	$(SWIFT) build

# The release binary carries the Swift runtime and Foundation inside (only what it
# uses) and is linked by lld with packed relative relocations: it loads less and
# starts faster, and an idle daemon keeps less memory resident (README, Performance).
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

# birthdays-carddav is the CardDAV helper birthdays runs (it must sit next to it).
release: deps-build
	$(SWIFT) build $(RELEASE_FLAGS) --product birthdays
	$(SWIFT) build $(RELEASE_FLAGS) --product birthdays-carddav

bench: deps-bench release
	./bench/run.sh

# Formatting: .swift-format (Hummingbird's rules, 150 columns). `make format`
# rewrites the files; `make lint` only checks, and CI runs it.
FORMAT_PATHS := Package.swift Sources Tests Benchmarks Fuzz

format:
	swift format --in-place --parallel --recursive $(FORMAT_PATHS)

lint:
	swift format lint --strict --parallel --recursive $(FORMAT_PATHS)

# The contact readers under libFuzzer for FUZZ_SECONDS (default 60), seeded
# with the test fixtures and samples/; the cases in Fuzz/regressions are
# replayed first. A crash leaves its input as crash-* in .build-fuzz/ and
# fails the target: add it to Fuzz/regressions with the fix.
FUZZ_SECONDS ?= 60
FUZZ_BUILD := .build-fuzz

fuzz: deps-build
	$(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) --product reader-fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
	@mkdir -p $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/seeds
	@cp Tests/BirthdayCoreTests/Fixtures/vcard/* Tests/BirthdayCoreTests/Fixtures/csv/* samples/*.vcf samples/*.csv $(FUZZ_BUILD)/seeds/
	@if [ -n "$$(ls Fuzz/regressions)" ]; then $(FUZZ_BUILD)/release/reader-fuzzer Fuzz/regressions/*; fi
	cd $(FUZZ_BUILD) && ./release/reader-fuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=65536 corpus seeds

deps-build:
	@./scripts/install-deps.sh $(BUILD_PACKAGES)

deps-test:
	@./scripts/install-deps.sh $(TEST_PACKAGES)

deps-bench:
	@./scripts/install-deps.sh $(BENCH_PACKAGES) linux-perf

clean:
	rm -rf .build
