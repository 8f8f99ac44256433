//! The manual (README.md, CONTRIBUTING.md and `docs/`) held to the code, so that it
//! cannot fall behind or lie (CONTRIBUTING.md, "Keeping the docs true"):
//!
//! - [`complete`]: every subcommand and long flag of clap's command tree, every `TFSUM_*`
//!   variable the code reads and every settings-file key the serde structs read
//!   ([`keys`]) is on its page, and the pages' tables name nothing the code lacks;
//! - [`examples`]: every ```` ```console ```` block runs against the fake registries and
//!   prints what it shows;
//! - [`schema`]: the JSON reports of every command, and the manual's JSON examples,
//!   validate against the published `docs/json-report.schema.json`;
//! - [`snippets`]: every settings file the manual shows is accepted by tfsum, every
//!   Renovate configuration by Renovate's validator, and no kind of block goes unchecked
//!   (the pre-commit and workflow blocks are `tests/packaging/test_docs.py`'s);
//! - [`links`]: every relative link and `#anchor` resolves;
//! - [`design`]: the house docs/design.md draws is the code's, and every "spec §"
//!   citation names a section that exists.
//!
//! [`markdown`] reads the pages: blocks, headings and their anchors, links.

mod complete;
mod design;
mod examples;
mod keys;
mod links;
mod markdown;
mod schema;
mod snippets;
