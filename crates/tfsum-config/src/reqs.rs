//! What a root's module tree asks of each provider: every declared constraint parsed,
//! intersected per provider, each kept with the place that declared it (spec §4.2).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use super::{Location, Requirement};
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::version::{ConstraintError, Constraints};

/// Where one constraint on a provider came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub text: String,
    pub file: PathBuf,
    pub line: usize,
}

/// Everything a root's module tree asks of one provider.
#[derive(Debug, Clone, Default)]
pub struct ProviderReqs {
    /// The intersection of every declared constraint (concatenated, spec §4.2).
    pub constraints: Constraints,
    /// Each constraint with the place that declared it.
    pub declared: Vec<Declared>,
}

/// A version constraint in the configuration that does not parse: Terraform's "Invalid
/// version constraint".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: invalid version constraint {text:?} for {provider}: {error}")]
pub struct InvalidConstraint {
    pub at: Location,
    pub text: String,
    pub provider: ProviderAddr,
    pub error: ConstraintError,
}

/// Parses every requirement's constraint and groups them per lockable provider.
pub fn collect(
    requirements: &[Requirement],
) -> Result<BTreeMap<ProviderAddr, ProviderReqs>, Box<InvalidConstraint>> {
    let mut out: BTreeMap<ProviderAddr, ProviderReqs> = BTreeMap::new();
    for req in requirements {
        if !req.addr.is_lockable() {
            continue;
        }
        let entry = out.entry(req.addr.clone()).or_default();
        let Some(raw) = &req.constraint else {
            continue;
        };
        let parsed = Constraints::parse(&raw.text).map_err(|error| {
            Box::new(InvalidConstraint {
                at: raw.at.clone(),
                text: raw.text.clone(),
                provider: req.addr.clone(),
                error,
            })
        })?;
        entry.constraints.extend(&parsed);
        entry.declared.push(Declared {
            text: raw.text.clone(),
            file: raw.at.file.to_path_buf(),
            line: raw.at.line,
        });
    }
    Ok(out)
}

impl fmt::Display for Declared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} at {}:{}",
            self.text,
            self.file.display(),
            self.line
        )
    }
}
