//! Reading an existing lock file with Terraform's validation (spec §1.8).
//!
//! We parse with hcl-edit because it keeps byte spans for every value, which gives each
//! problem its line number. Like Terraform, we report every problem in the file at once
//! rather than stopping at the first, and we accept comments and any whitespace: the
//! writer regenerates the whole file anyway.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use hcl_edit::expr::Expression;
use hcl_edit::structure::{Attribute, Block, Body, Structure};
use hcl_edit::Span;

use super::{Flavor, LockFile, LockForm, ProviderLock};
use crate::addr::ProviderAddr;
use crate::hash::Hash;
use crate::text::LineIndex;
use crate::version::{Constraints, Version};

/// One problem in a lock file: a 1-based line, Terraform's diagnostic summary (for example
/// "Invalid provider version number") and a detail naming what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub summary: String,
    pub detail: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}: {}", self.line, self.summary, self.detail)
    }
}

/// Every problem found in a lock file, in file order. The caller adds the path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LockFileError {
    pub problems: Vec<Problem>,
}

impl fmt::Display for LockFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

/// Parses and validates a lock file. `default_host` is the registry short sources resolve
/// to; labels must be fully qualified anyway, so it only shapes error messages.
///
/// The flavor comes from the header: a leading comment naming `tofu init` means OpenTofu,
/// anything else (including no header) Terraform.
pub fn parse(src: &str, default_host: &str) -> Result<LockFile, LockFileError> {
    parse_noting_form(src, default_host).map(|(lock, _)| lock)
}

/// [`parse`], and whether `src` is exactly the lock file's rendering
/// ([`LockFile::render`]): then a lock file equal to it renders to `src` again.
pub(super) fn parse_noting_form(
    src: &str,
    default_host: &str,
) -> Result<(LockFile, bool), LockFileError> {
    if let Some(lock) = super::canonical::parse(src, default_host) {
        return Ok((lock, true));
    }
    parse_located(src, default_host).map(|(lock, _)| (lock, false))
}

/// Where each provider block and each hash of a lock file is, for messages that name a
/// line (`tfsum verify`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lines {
    /// The 1-based line of each `provider` block.
    pub providers: BTreeMap<ProviderAddr, usize>,
    /// The 1-based line of each hash string (the first, when a hash is listed twice).
    pub hashes: BTreeMap<(ProviderAddr, Hash), usize>,
}

/// [`parse`], also giving the line of each provider block and hash.
pub fn parse_located(src: &str, default_host: &str) -> Result<(LockFile, Lines), LockFileError> {
    let lines = LineIndex::new(src);
    let body = hcl_edit::parser::parse_body(src).map_err(|e| LockFileError {
        problems: vec![Problem {
            line: e.location().line(),
            summary: "Invalid HCL syntax".to_string(),
            detail: e.message().to_string(),
        }],
    })?;
    let mut reader = Reader {
        lines,
        default_host,
        problems: Vec::new(),
        located: Lines::default(),
        hash_lines: Vec::new(),
    };
    let providers = reader.body(&body);
    if reader.problems.is_empty() {
        let lock = LockFile {
            flavor: Flavor::from_header(src),
            form: LockForm::from_header(src),
            providers,
        };
        Ok((lock, reader.located))
    } else {
        Err(LockFileError {
            problems: reader.problems,
        })
    }
}

struct Reader<'a> {
    lines: LineIndex,
    default_host: &'a str,
    problems: Vec<Problem>,
    located: Lines,
    /// The hashes of the provider block being read, with their lines.
    hash_lines: Vec<(Hash, usize)>,
}

impl Reader<'_> {
    fn problem(&mut self, span: Option<std::ops::Range<usize>>, summary: &str, detail: String) {
        self.problems.push(Problem {
            line: self.lines.line_of(span),
            summary: summary.to_string(),
            detail,
        });
    }

    /// Top level: `provider` blocks are read, `module` blocks ignored (Terraform only
    /// warns that module locks are unsupported), anything else is an error.
    fn body(&mut self, body: &Body) -> BTreeMap<ProviderAddr, ProviderLock> {
        let mut providers = BTreeMap::new();
        let mut first_line: BTreeMap<ProviderAddr, usize> = BTreeMap::new();
        for structure in body.iter() {
            match structure {
                Structure::Attribute(attr) => self.problem(
                    attr.span(),
                    "Unsupported argument",
                    format!(
                        "An argument named {:?} is not expected here.",
                        attr.key.as_str()
                    ),
                ),
                Structure::Block(block) => match block.ident.as_str() {
                    "module" => {}
                    "provider" => {
                        let Some((addr, lock)) = self.provider(block) else {
                            continue;
                        };
                        let line = self.lines.line_of(block.span());
                        match first_line.entry(addr.clone()) {
                            Entry::Occupied(first) => {
                                let detail = format!(
                                    "This lock file already declared a lock for provider {addr} at line {}.",
                                    first.get()
                                );
                                self.problem(block.span(), "Duplicate provider lock", detail);
                            }
                            Entry::Vacant(slot) => {
                                slot.insert(line);
                                self.located.providers.insert(addr.clone(), line);
                                for (hash, at) in self.hash_lines.drain(..) {
                                    self.located
                                        .hashes
                                        .entry((addr.clone(), hash))
                                        .or_insert(at);
                                }
                                providers.insert(addr, lock);
                            }
                        }
                    }
                    other => self.problem(
                        block.span(),
                        "Unsupported block type",
                        format!("Blocks of type {other:?} are not expected here."),
                    ),
                },
            }
        }
        providers
    }

    /// One provider block; `None` after recording its problems.
    fn provider(&mut self, block: &Block) -> Option<(ProviderAddr, ProviderLock)> {
        self.hash_lines.clear();
        let addr = self.label(block);
        let mut version_attr = None;
        let mut constraints_attr = None;
        let mut hashes_attr = None;
        let mut ok = true;
        for structure in block.body.iter() {
            match structure {
                Structure::Block(inner) => {
                    ok = false;
                    self.problem(
                        inner.span(),
                        "Unsupported block type",
                        format!(
                            "Blocks of type {:?} are not expected here.",
                            inner.ident.as_str()
                        ),
                    );
                }
                // hcl-edit already rejects an attribute set twice as a syntax error.
                Structure::Attribute(attr) => {
                    let name = attr.key.as_str();
                    match name {
                        "version" => version_attr = Some(attr),
                        "constraints" => constraints_attr = Some(attr),
                        "hashes" => hashes_attr = Some(attr),
                        _ => {
                            ok = false;
                            self.problem(
                                attr.span(),
                                "Unsupported argument",
                                format!("An argument named {name:?} is not expected here."),
                            );
                        }
                    }
                }
            }
        }
        let shown = addr
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_else(|| "(invalid)".to_string());
        let version = match version_attr {
            Some(attr) => self.version(&shown, attr),
            None => {
                self.problem(
                    block.span(),
                    "Missing required argument",
                    "A provider lock block must contain a \"version\" argument.".to_string(),
                );
                None
            }
        };
        let constraints = match constraints_attr {
            Some(attr) => self.constraints(&shown, attr),
            None => Some(Constraints::default()),
        };
        let hashes = match hashes_attr {
            Some(attr) => self.hashes(&shown, attr),
            None => Some(BTreeSet::new()),
        };
        match (addr, version, constraints, hashes, ok) {
            (Some(addr), Some(version), Some(constraints), Some(hashes), true) => Some((
                addr,
                ProviderLock {
                    version,
                    constraints,
                    hashes,
                },
            )),
            _ => None,
        }
    }

    /// The block label must be a lockable provider address written exactly as Terraform
    /// prints it (spec §1.8).
    fn label(&mut self, block: &Block) -> Option<ProviderAddr> {
        let label = match block.labels.as_slice() {
            [label] => label,
            [] => {
                self.problem(
                    block.span(),
                    "Missing name for provider",
                    "A provider block requires one label: the provider source address.".to_string(),
                );
                return None;
            }
            [_, extra, ..] => {
                self.problem(
                    extra.span().or(block.span()),
                    "Extraneous label for provider",
                    "A provider block requires exactly one label: the provider source address."
                        .to_string(),
                );
                return None;
            }
        };
        let text = label.as_str();
        let span = label.span().or(block.span());
        let addr = match ProviderAddr::parse(text, self.default_host) {
            Ok(addr) => addr,
            Err(e) => {
                self.problem(span, "Invalid provider source address", e.to_string());
                return None;
            }
        };
        if !addr.is_lockable() {
            self.problem(
                span,
                "Invalid provider source address",
                format!("Provider {addr} is built in or legacy and cannot be locked."),
            );
            return None;
        }
        let canonical = addr.to_string();
        if canonical != text {
            self.problem(
                span,
                "Non-normalized provider source address",
                format!("The provider source address for a provider lock must be a normalized address. Write {canonical:?} instead of {text:?}."),
            );
            return None;
        }
        Some(addr)
    }

    /// `version`: required, a string, and in canonical form (`1.0` and `v1.0.0` fail).
    fn version(&mut self, provider: &str, attr: &Attribute) -> Option<Version> {
        let span = attr.value.span().or(attr.span());
        let raw = match &attr.value {
            Expression::Null(_) => {
                self.problem(
                    span,
                    "Missing required argument",
                    "A provider lock block must contain a \"version\" argument.".to_string(),
                );
                return None;
            }
            Expression::String(s) => s.value().as_str(),
            _ => {
                self.problem(
                    span,
                    "Invalid provider version number",
                    format!("The selected version number for provider {provider} must be a literal string."),
                );
                return None;
            }
        };
        match Version::parse(raw) {
            Err(e) => {
                self.problem(
                    span,
                    "Invalid provider version number",
                    format!(
                        "The selected version number for provider {provider} is invalid: {}.",
                        e.reason
                    ),
                );
                None
            }
            Ok(v) if v.to_string() != raw => {
                self.problem(
                    span,
                    "Invalid provider version number",
                    format!("The selected version number for provider {provider} is written in non-canonical form. Must be written as {:?}.", v.to_string()),
                );
                None
            }
            Ok(v) => Some(v),
        }
    }

    /// `constraints`: optional, a string, in the canonical form of spec §4.5.
    fn constraints(&mut self, provider: &str, attr: &Attribute) -> Option<Constraints> {
        let span = attr.value.span().or(attr.span());
        let raw = match &attr.value {
            Expression::Null(_) => return Some(Constraints::default()),
            Expression::String(s) => s.value().as_str(),
            _ => {
                self.problem(
                    span,
                    "Invalid provider version constraints",
                    format!(
                        "The version constraints for provider {provider} must be a literal string."
                    ),
                );
                return None;
            }
        };
        match Constraints::parse_ruby_style(raw) {
            Err(e) => {
                self.problem(
                    span,
                    "Invalid provider version constraints",
                    format!("The recorded version constraints for provider {provider} are invalid: {e}."),
                );
                None
            }
            Ok(c) if c.canonical() != raw => {
                self.problem(
                    span,
                    "Invalid provider version constraints",
                    format!("The recorded version constraints for provider {provider} must be written in normalized form: {:?}.", c.canonical()),
                );
                None
            }
            Ok(c) => Some(c),
        }
    }

    /// `hashes`: optional, but when present a non-empty static list of `scheme:value`
    /// strings (spec §1.7, §1.8).
    fn hashes(&mut self, provider: &str, attr: &Attribute) -> Option<BTreeSet<Hash>> {
        let span = attr.value.span().or(attr.span());
        let Expression::Array(items) = &attr.value else {
            self.problem(
                span,
                "Invalid provider hash set",
                format!("The \"hashes\" argument for provider {provider} must be a static list of strings."),
            );
            return None;
        };
        if items.is_empty() {
            self.problem(
                span,
                "Invalid provider hash set",
                "The \"hashes\" argument must either be omitted or contain at least one hash value."
                    .to_string(),
            );
            return None;
        }
        let mut hashes = BTreeSet::new();
        let mut ok = true;
        for item in items.iter() {
            let item_span = item.span().or(span.clone());
            match item {
                Expression::String(s) => match Hash::parse(s.value()) {
                    Ok(hash) => {
                        let line = self.lines.line_of(item_span.clone());
                        self.hash_lines.push((hash.clone(), line));
                        hashes.insert(hash);
                    }
                    Err(e) => {
                        ok = false;
                        self.problem(item_span, "Invalid provider hash string", e.to_string());
                    }
                },
                _ => {
                    ok = false;
                    self.problem(
                        item_span,
                        "Invalid provider hash string",
                        format!("Each hash for provider {provider} must be a literal string."),
                    );
                }
            }
        }
        ok.then_some(hashes)
    }
}
