//! Writing a lock file byte for byte as Terraform does (spec §1.2–1.7, §11 items 1–4).
//!
//! Terraform builds the file with hclwrite and formats it; the result is fixed enough to
//! write directly: header, then per provider a blank line and a block whose `version` and
//! `constraints` form one `=`-aligned group, while `hashes = [` never aligns. A Terraform
//! Stack's file has its own header and no `constraints` ([`LockForm::Stack`]).

use super::{LockFile, LockForm, ProviderLock};
use crate::hcl_string::{quote_into, Templates};

impl LockFile {
    /// The complete file contents, ending in exactly one `\n`.
    pub fn render(&self) -> String {
        // Hashes make up most of a file: reserving for them spares the regrowth.
        let hashes: usize = self
            .providers
            .values()
            .flat_map(|lock| &lock.hashes)
            .map(|hash| hash.as_str().len() + 8)
            .sum();
        let mut out = String::with_capacity(128 + 160 * self.providers.len() + hashes);
        out.push_str("# This file is maintained automatically by \"");
        out.push_str(self.header_command());
        out.push_str("\".\n# Manual edits may be lost in future updates.\n");
        for (addr, lock) in &self.providers {
            out.push('\n');
            render_block(&mut out, &addr.to_string(), lock, self.form);
        }
        out
    }
}

/// Written straight into `out`: rendering runs for every root on every run, to compare
/// with the file on disk, so no piece gets a string of its own (issue 25).
/// A stack's file never carries `constraints` ([`LockForm::Stack`]).
fn render_block(out: &mut String, label: &str, lock: &ProviderLock, form: LockForm) {
    out.push_str("provider ");
    quote_into(out, label, Templates::Literal);
    out.push_str(" {\n");
    let constraints = match form {
        LockForm::Init => lock.constraints.canonical(),
        LockForm::Stack => String::new(),
    };
    // `version` is padded to the width of `constraints` (spec §1.4).
    out.push_str(if constraints.is_empty() {
        "  version = "
    } else {
        "  version     = "
    });
    quote_into(out, &lock.version.to_string(), Templates::Literal);
    out.push('\n');
    if !constraints.is_empty() {
        out.push_str("  constraints = ");
        quote_into(out, &constraints, Templates::Literal);
        out.push('\n');
    }
    if !lock.hashes.is_empty() {
        out.push_str("  hashes = [\n");
        for hash in &lock.hashes {
            out.push_str("    ");
            quote_into(out, hash.as_str(), Templates::Literal);
            out.push_str(",\n");
        }
        out.push_str("  ]\n");
    }
    out.push_str("}\n");
}
