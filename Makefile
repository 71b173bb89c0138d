# docsh — guessable targets for a newcomer: run, test, bench, install, format.
SWIFT   ?= swift
PREFIX  ?= /usr/local
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test deps outside-deps bench-deps build release bench bench-quick install install-data format clean fuzz \
  width-table

## Install what the build and the tests need from Debian, only when it is missing.
deps:
	@missing=""; \
	pkg-config --exists libedit 2>/dev/null || missing="$$missing libedit-dev pkg-config"; \
	pkg-config --exists sqlite3 2>/dev/null || missing="$$missing libsqlite3-dev pkg-config"; \
	[ -f /usr/include/re2/re2.h ] || missing="$$missing libre2-dev"; \
	pkg-config --exists libsodium 2>/dev/null || missing="$$missing libsodium-dev pkg-config"; \
	command -v age >/dev/null || missing="$$missing age"; \
	command -v script >/dev/null || missing="$$missing bsdutils"; \
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

## What the outside reader (Tests/outside: a clone read by YAML and Obsidian tools) needs,
## only when it is missing: PyYAML from Debian, obsidiantools from PyPI.
outside-deps:
	@python3 -c 'import yaml' 2>/dev/null || { \
	  echo "installing: python3-yaml python3-pip"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-yaml python3-pip; }
	@# Debian's package serves Debian's python3; a python3 of its own (pyenv) needs PyYAML too.
	@python3 -c 'import yaml' 2>/dev/null || { \
	  echo "installing: PyYAML (PyPI)"; \
	  python3 -m pip install --quiet --user pyyaml 2>/dev/null || \
	  python3 -m pip install --quiet --user --break-system-packages pyyaml; }
	@python3 -c 'import obsidiantools' 2>/dev/null || { \
	  echo "installing: obsidiantools (PyPI)"; \
	  python3 -m pip install --quiet --user obsidiantools 2>/dev/null || \
	  python3 -m pip install --quiet --user --break-system-packages obsidiantools; }

bench-deps:
	@missing=""; \
	command -v hyperfine >/dev/null || missing="$$missing hyperfine"; \
	command -v sqlite3 >/dev/null || missing="$$missing sqlite3"; \
	[ -x /usr/bin/time ] || missing="$$missing time"; \
	command -v strace >/dev/null || missing="$$missing strace"; \
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
## takes about a millisecond, a fifth of `docsh --version`. And the C libraries, libedit
## (with libtermcap, libbsd, libmd) and SQLite: their shared objects are bound at load time
## (BIND_NOW), about 1.6 M of the 2.9 M instructions `docsh --version` took with them.
## libsodium (age files) likewise, through a linker script naming its archive.
## The linker finds `-lNAME` in the first folder that has it, so a folder holding only the
## archives goes first: for libstdc++ a link to it; for libedit and SQLite a linker script
## naming each archive with what it needs: libedit's `-ledit` (CLibEdit's linker setting) is
## found there through `-L`, SQLite's through a .pc file of our own (pkg-config would
## otherwise put the system's library folder first). Where an archive is missing, docsh
## links that shared library as before.
STATIC_LIBS := $(CURDIR)/.build/static-libs
release: deps
	@mkdir -p $(STATIC_LIBS)/pkgconfig && rm -f $(STATIC_LIBS)/*.a $(STATIC_LIBS)/pkgconfig/*.pc; \
	archive=$$(clang -print-file-name=libstdc++.a 2>/dev/null); \
	case "$$archive" in /*) ln -s "$$archive" $(STATIC_LIBS)/libstdc++.a ;; esac; \
	lib=$$(pkg-config --variable=libdir libedit); \
	if [ -f $$lib/libedit.a ] && [ -f $$lib/libtermcap.a ] && [ -f $$lib/libbsd.a ] && [ -f $$lib/libmd.a ]; then \
	  echo "GROUP ( $$lib/libedit.a $$lib/libtermcap.a $$lib/libbsd.a $$lib/libmd.a )" > $(STATIC_LIBS)/libedit.a; \
	fi; \
	lib=$$(pkg-config --variable=libdir libsodium); \
	if [ -f $$lib/libsodium.a ]; then \
	  echo "GROUP ( $$lib/libsodium.a )" > $(STATIC_LIBS)/libsodium.a; \
	fi; \
	lib=$$(pkg-config --variable=libdir sqlite3); \
	if [ -f $$lib/libsqlite3.a ]; then \
	  echo "GROUP ( $$lib/libsqlite3.a -lm )" > $(STATIC_LIBS)/libsqlite3.a; \
	  printf 'Name: SQLite\nDescription: SQLite, linked statically\nVersion: 3\nLibs: -L%s -lsqlite3\nCflags: %s\n' \
	    $(STATIC_LIBS) "$$(pkg-config --cflags sqlite3)" > $(STATIC_LIBS)/pkgconfig/sqlite3.pc; \
	fi
	PKG_CONFIG_PATH=$(STATIC_LIBS)/pkgconfig $(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -L$(STATIC_LIBS)

run: build
	$(SWIFT) run docsh

## Everything, against what ships: the release binary is built as `make install` builds it,
## and every test that runs the real binary runs that one (the Swift tests of DocsShell that
## start docsh, the pseudo-terminal suite, the outside reader (a clone read by PyYAML and
## obsidiantools), and the benchmark harness on small corpora, which
## proves the harness works and judges no time). The unit tests themselves need the debug
## build (`@testable import`).
RELEASE_BIN = $$($(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -L$(STATIC_LIBS) --show-bin-path)/docsh
test: deps outside-deps bench-deps release
	$(SWIFT) build --build-tests
	DOCSH_BINARY=$(RELEASE_BIN) $(SWIFT) test --skip-build
	PYTHON=$$(for p in /usr/bin/python3 python3; do $$p -c 'import pexpect' 2>/dev/null && { echo $$p; break; }; done); \
	  DOCSH=$(RELEASE_BIN) $$PYTHON Tests/pty/run.py
	DOCSH=$(RELEASE_BIN) python3 Tests/outside/run.py
	DOCSH=$(RELEASE_BIN) bench/run.sh quick

bench: release bench-deps
	bench/run.sh full

bench-quick: release bench-deps
	bench/run.sh quick

## A short fuzz run of the tokenizer, the store reader, the document file and the merge by
## tree (FUZZ_SECONDS each, default 60).
fuzz: deps
	fuzz/run.sh $(or $(FUZZ_SECONDS),60)

## The release binary, the man page docsh(1) and the bash and zsh completions, under
## $(DESTDIR)$(PREFIX) (PREFIX defaults to /usr/local).
install: release install-data
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/docsh

## Everything install puts in place but the binary: no build needed (the tests use it).
install-data:
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0644 docs/docsh.1 $(DESTDIR)$(PREFIX)/share/man/man1/docsh.1
	install -m 0644 completions/docsh.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/docsh
	install -m 0644 completions/_docsh $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_docsh

## Regenerate the display-width table (Sources/DocsShell/Views/DisplayWidthTable.swift) and
## the reference its test reads (Tests/DocsShellTests/Reference/wcwidth.txt) from the Python
## package wcwidth, installed with pip when missing; the tests themselves need neither.
WCWIDTH_VERSION ?= 0.7.0
width-table:
	@python3 -c 'import wcwidth' 2>/dev/null || python3 -m pip install --quiet 'wcwidth==$(WCWIDTH_VERSION)'
	python3 scripts/generate-width-table.py

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
