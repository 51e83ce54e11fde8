# birthdays: the commands that matter on a fresh Debian 12 machine with Swift
#   make demo      build release, import samples/ into a throwaway database, list upcoming birthdays
#   make test      install what the tests need and run them
#   make install   build release and install it under PREFIX (default /usr/local; PREFIX=~/.local for yourself)

SWIFT ?= swift
# What building needs (libxml2 and libdbus-1-3 are loaded with dlopen, by CardDAV syncs and when a bus is first opened; nothing links them).
# libqrencode-dev: the header of the QR code library `feed url --qr` loads with dlopen.
BUILD_PACKAGES := pkg-config libical-dev libsqlite3-dev libdbus-1-3 zlib1g-dev libxml2 libqrencode-dev
# What the tests need on top: independent iCalendar readers, a real notification
# server (dunst under Xvfb on a private D-Bus), a PTY driver, msmtp for the
# README's e-mail recipe (setpriv, to run as nobody under root, is in util-linux);
# man-db, zsh and fish load the installed man page and completions;
# lunardate, pyluach and convertdate check the Chinese, Hebrew, Islamic and Persian conversions;
# systemd-analyze (systemd) verifies the unit `birthdays service install` writes;
# a real CardDAV server (Radicale, its fsyncs made free by eatmydata) and vdirsyncer;
# Xandikos, the second CalDAV server `birthdays publish` writes to;
# apprise, the channel for Telegram, Matrix, Signal and the rest (tests post through it to a loopback server);
# a real SMTP server (aiosmtpd, with STARTTLS from a certificate openssl makes) that
# the e-mail channel's tests send to through msmtp; zbarimg (zbar-tools) reads the QR codes back;
# Chromium, its WebDriver and python3-selenium open the page for the year (PageBrowserTests), with
# axe-core from PyPI (axe-selenium-python, installed by scripts/install-pip.sh through python3-pip);
# lv-namedays from PyPI, whose data NameDayListTests compares with the shipped Latvian list;
# nginx-light, the recipe of docs/server.md in front of two serve --all-users (PastOneMachineTests).
TEST_PACKAGES := $(BUILD_PACKAGES) curl python3 python3-icalendar python3-vobject python3-dateutil khal \
	python3-recurring-ical-events calcurse php-cli php-sabre-vobject \
	dbus dbus-x11 libglib2.0-bin python3-dbus python3-gi libnotify-bin dunst xvfb xauth tmux msmtp util-linux \
	man-db zsh fish python3-lunardate python3-pyluach python3-convertdate systemd radicale vdirsyncer eatmydata \
	apprise python3-aiosmtpd openssl zbar-tools xandikos chromium chromium-driver python3-selenium python3-pip nginx-light
# From PyPI (NAME==VERSION:module), on top of the Debian packages.
TEST_PYPI := axe-selenium-python==2.1.6:axe_selenium_python lv-namedays==0.6:lv_namedays
# What `make bench` needs on top.
BENCH_PACKAGES := $(TEST_PACKAGES) hyperfine wrk khard time valgrind

.PHONY: demo test bench build release manual install install-files uninstall format lint fuzz deps-build deps-test deps-bench clean

# The upcoming birthdays of the samples, then three people whatever the date:
# one who has died, a birthday without a year, and a lunar birthday.
demo: deps-build release
	@db="$$(mktemp -d)/demo.sqlite"; bin=./.build/release/birthdays; status=0; \
	$$bin import --database "$$db" samples/contacts.vcf samples/google-contacts.csv && \
	echo && $$bin upcoming --database "$$db" --days 60 || status=1; \
	if [ $$status = 0 ]; then for who in "Ada Lovelace" "Frances Allen" "Mei Chen"; do \
		echo; $$bin show --database "$$db" "$$who" || status=1; done; fi; \
	rm -rf "$$(dirname "$$db")"; exit $$status

# The man page is made first: the test of the installed tree reads it.
# scripts/test-limits.sh raises the kernel's inotify instances per user for the
# dozens of daemons the suite runs at once (it says why).
# The test process runs hundreds of in-process stores at once, each doing its
# SQLite work on the store's blocking threads: 8 instead of one per core, so
# a test that imports 100,000 people does not hold up every other store
# (the binaries the tests start keep the default).
# Swift Testing starts every test at once unless told otherwise: 1,390 tests on two
# cores then wait minutes for a turn, and the real deadlines they exercise (a
# server's 30 s idle timeout, a command channel's 30 s, a daemon's sync interval)
# pass while a test is still waiting. Sixteen at a time keeps each test's wait
# short, and the whole run as fast (178.8 s against 165 s here, and green with
# two busy loops beside it, where the unbounded run failed 31 times).
TEST_WIDTH ?= 16
# scripts/run-tests.sh keeps the whole output in .build/test-output.log and prints the
# issues, the skips and the summary; it stops a run still going after TEST_TIMEOUT
# seconds (default 1800) and names the tests that had not ended.
test: deps-test
	@./scripts/test-limits.sh
	$(SWIFT) build --build-tests
	$(MAKE) manual BINARY=.build/debug/birthdays MANUAL_FLAGS=
	./scripts/run-tests.sh env SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) BIRTHDAYS_BLOCKING_THREADS=8 $(SWIFT) test --skip-build

build: deps-build
	$(SWIFT) build

# The release binary carries the Swift runtime and Foundation inside (only what it
# uses) and is linked by lld with packed relative relocations: it loads less and
# starts faster, and an idle daemon keeps less memory resident (README, Performance).
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

# birthdays-network is the network helper birthdays runs (it must sit next to it).
release: deps-build
	$(SWIFT) build $(RELEASE_FLAGS) --product birthdays
	$(SWIFT) build $(RELEASE_FLAGS) --product birthdays-network

# MARK: Installing
#
#   make install PREFIX=~/.local      (default /usr/local; DESTDIR=... for packages)
#   make uninstall PREFIX=~/.local
#
# installs the release binaries stripped of their symbol tables (STRIP=: keeps them),
# the man page (swift-argument-parser's generate-manual, from the commands' own help),
# completions for bash, zsh and fish (the binary writes them), and the systemd user
# units of samples/systemd with the installed binary's path; the network helper
# birthdays-network goes next to the binary, where `birthdays` looks for it.
# `install-files` only copies, from BINARY, HELPER and MANUAL.
PREFIX ?= /usr/local
DESTDIR ?=
BINARY ?= .build/release/birthdays
HELPER ?= $(dir $(BINARY))birthdays-network
MANUAL ?= .build/manual/birthdays.1
STRIP ?= strip
# The flags generate-manual is built with: those of BINARY's build, so nothing
# else is compiled again (argument-parser's modules are already there).
MANUAL_FLAGS ?= $(RELEASE_FLAGS)
# The manual's date: the last commit's (so the page does not change with the day it is built).
MANUAL_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)

INSTALLED_BIN := $(DESTDIR)$(PREFIX)/bin/birthdays
INSTALLED_HELPER := $(DESTDIR)$(PREFIX)/bin/birthdays-network
INSTALLED_MAN := $(DESTDIR)$(PREFIX)/share/man/man1/birthdays.1
INSTALLED_BASH := $(DESTDIR)$(PREFIX)/share/bash-completion/completions/birthdays
INSTALLED_ZSH := $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_birthdays
INSTALLED_FISH := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/birthdays.fish
INSTALLED_UNITS := $(DESTDIR)$(PREFIX)/share/birthdays/systemd
UNITS := $(notdir $(wildcard samples/systemd/*.service samples/systemd/*.timer))

# The man page of the BINARY already built: argument-parser's generate-manual
# tool reads its help (`--experimental-dump-help`). Its plugin would build every
# product of the package again first (in release, without the static runtime).
manual:
	$(SWIFT) build $(MANUAL_FLAGS) --product generate-manual
	mkdir -p $(dir $(MANUAL))
	"$$($(SWIFT) build $(MANUAL_FLAGS) --show-bin-path)/generate-manual" $(BINARY) --date $(MANUAL_DATE) \
		--output-directory $(dir $(MANUAL))

install: release
	$(MAKE) manual
	$(MAKE) install-files

install-files:
	rm -f $(DESTDIR)$(PREFIX)/bin/birthdays-carddav  # the network helper, as it was called before
	install -d $(dir $(INSTALLED_BIN)) $(dir $(INSTALLED_MAN)) $(dir $(INSTALLED_BASH)) $(dir $(INSTALLED_ZSH)) \
		$(dir $(INSTALLED_FISH)) $(INSTALLED_UNITS)
	install -m 755 $(BINARY) $(INSTALLED_BIN)
	install -m 755 $(HELPER) $(INSTALLED_HELPER)
	$(STRIP) $(INSTALLED_BIN) $(INSTALLED_HELPER)
	install -m 644 $(MANUAL) $(INSTALLED_MAN)
	$(BINARY) --generate-completion-script bash >$(INSTALLED_BASH)
	$(BINARY) --generate-completion-script zsh >$(INSTALLED_ZSH)
	$(BINARY) --generate-completion-script fish >$(INSTALLED_FISH)
	chmod 644 $(INSTALLED_BASH) $(INSTALLED_ZSH) $(INSTALLED_FISH)
	for unit in $(UNITS); do \
		sed 's|%h/\.local/bin/birthdays|$(PREFIX)/bin/birthdays|g' samples/systemd/$$unit >$(INSTALLED_UNITS)/$$unit && \
		chmod 644 $(INSTALLED_UNITS)/$$unit || exit 1; \
	done

uninstall:
	rm -f $(INSTALLED_BIN) $(INSTALLED_HELPER) $(DESTDIR)$(PREFIX)/bin/birthdays-carddav $(INSTALLED_MAN) $(INSTALLED_BASH) $(INSTALLED_ZSH) $(INSTALLED_FISH) \
		$(addprefix $(INSTALLED_UNITS)/,$(UNITS))
	rmdir $(INSTALLED_UNITS) $(dir $(INSTALLED_UNITS)) 2>/dev/null || true

# Every row that times our binary also times a reference build (BENCH_AGAINST=REV, default
# the last published commit in bench/baseline.json; none to skip it), built once with the same
# RELEASE_FLAGS in bench/work/reference/ and alternated with this build in the same run.
bench: deps-bench release
	SWIFT='$(SWIFT)' BENCH_RELEASE_FLAGS='$(RELEASE_FLAGS)' ./bench/run.sh

# Formatting: .swift-format (Hummingbird's rules, 150 columns). `make format`
# rewrites the files; `make lint` only checks, and CI runs it.
FORMAT_PATHS := Package.swift Sources Tests Benchmarks Fuzz Plugins

format:
	swift format --in-place --parallel --recursive $(FORMAT_PATHS)

lint:
	swift format lint --strict --parallel --recursive $(FORMAT_PATHS)
	python3 scripts/check-docs.py

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
	@./scripts/install-pip.sh $(TEST_PYPI)

deps-bench:
	@./scripts/install-deps.sh $(BENCH_PACKAGES) linux-perf

clean:
	rm -rf .build
