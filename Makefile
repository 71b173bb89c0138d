# docsh — guessable targets for a newcomer: run, test, bench, install, format.
SWIFT   ?= swift
PREFIX  ?= /usr/local
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test deps bench-deps build release bench bench-quick install install-data format clean fuzz

## Install what the build and the tests need from Debian, only when it is missing.
deps:
	@missing=""; \
	pkg-config --exists libedit 2>/dev/null || missing="$$missing libedit-dev pkg-config"; \
	pkg-config --exists sqlite3 2>/dev/null || missing="$$missing libsqlite3-dev pkg-config"; \
	[ -f /usr/include/re2/re2.h ] || missing="$$missing libre2-dev"; \
	/usr/bin/python3 -c 'import pexpect' 2>/dev/null || missing="$$missing python3-pexpect"; \
	command -v groff >/dev/null || missing="$$missing groff-base"; \
	command -v zsh >/dev/null || missing="$$missing zsh"; \
	command -v chattr >/dev/null || missing="$$missing e2fsprogs"; \
	command -v git >/dev/null || missing="$$missing git"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

bench-deps:
	@missing=""; \
	command -v hyperfine >/dev/null || missing="$$missing hyperfine"; \
	command -v sqlite3 >/dev/null || missing="$$missing sqlite3"; \
	[ -x /usr/bin/time ] || missing="$$missing time"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

## The Swift runtime linked in statically: docsh starts in about a third less time (no
## libswiftCore and its companions to load and relocate), which is most of what a quick
## command costs. libstdc++ (which Foundation's ICU needs) too: relocating the shared one
## takes about a millisecond, a fifth of `docsh --version`. The linker finds `-lstdc++` in
## the first folder that has it, so a folder holding only the static archive goes first;
## without one (no archive in the toolchain), docsh links the shared library as before.
STATIC_CXX := $(CURDIR)/.build/static-libstdc++
release: deps
	@mkdir -p $(STATIC_CXX) && rm -f $(STATIC_CXX)/libstdc++.a; \
	archive=$$(clang -print-file-name=libstdc++.a 2>/dev/null); \
	case "$$archive" in /*) ln -s "$$archive" $(STATIC_CXX)/libstdc++.a ;; esac
	$(SWIFT) build -c release --static-swift-stdlib -Xswiftc -L$(STATIC_CXX)

run: build
	$(SWIFT) run docsh

## Everything: unit and transcript tests, the real binary, the pseudo-terminal suite, and
## the benchmark harness on small corpora with the debug binary (it proves the harness
## works; it judges no time).
test: deps bench-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	PYTHON=$$(for p in /usr/bin/python3 python3; do $$p -c 'import pexpect' 2>/dev/null && { echo $$p; break; }; done); \
	  DOCSH=$$($(SWIFT) build --show-bin-path)/docsh $$PYTHON Tests/pty/run.py
	DOCSH=$$($(SWIFT) build --show-bin-path)/docsh bench/run.sh quick

bench: release bench-deps
	bench/run.sh full

bench-quick: release bench-deps
	bench/run.sh quick

## A short fuzz run of the tokenizer and the store reader (FUZZ_SECONDS each, default 60).
fuzz: deps
	fuzz/run.sh $(or $(FUZZ_SECONDS),60)

## The release binary, the man page docsh(1) and the bash and zsh completions, under
## $(DESTDIR)$(PREFIX) (PREFIX defaults to /usr/local).
install: release install-data
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $$($(SWIFT) build -c release --static-swift-stdlib -Xswiftc -L$(STATIC_CXX) --show-bin-path)/docsh $(DESTDIR)$(PREFIX)/bin/docsh

## Everything install puts in place but the binary: no build needed (the tests use it).
install-data:
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0644 docs/docsh.1 $(DESTDIR)$(PREFIX)/share/man/man1/docsh.1
	install -m 0644 completions/docsh.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/docsh
	install -m 0644 completions/_docsh $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_docsh

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
