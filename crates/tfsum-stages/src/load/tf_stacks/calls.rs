//! A stack's registry and git components as the module calls `tfsum outdated` looks
//! versions up for ([`EvaluatedCall`], as Terragrunt unit sources are): each `component`,
//! `removed` and `stack` block of the repository's own stacks in a root's tree whose
//! `source` is a registry module (its `version`) or a git repository (its `?ref=`).
//!
//! `tfsum upgrade` edits these versions through its scope, which reads stack files
//! itself ([`tfsum_config::edit`]); so the definitions here carry no span.

use std::path::Path;

use super::Read;
use tfsum_config::early::Definition;
use tfsum_config::tf_stack::{BlockKind, Source, SourceArg};
use tfsum_config::tree::EvaluatedCall;
use tfsum_config::Location;
use tfsum_vocab::module_source::ModuleSource;
use tfsum_vocab::paths::normalize_path;

/// The remote components of `stacks` (the root's stack first, then those it embeds)
/// read from the root's repository: a stack that came in a fetched package is not the
/// repository's to move, as calls inside fetched modules are not.
pub(super) fn remote_components(stacks: &[Read]) -> Vec<EvaluatedCall> {
    let Some(root) = stacks.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for read in stacks.iter().filter(|read| read.bound == root.bound) {
        let config = &read.config;
        let blocks = config
            .components
            .iter()
            .map(|c| (c.label(), &c.name, &c.source, &c.at))
            .chain(config.stacks.iter().map(|s| {
                let label = match s.kind {
                    BlockKind::Declared => format!("stack {:?}", s.name),
                    BlockKind::Removed => format!("removed block (from {})", s.name),
                };
                (label, &s.name, &s.source, &s.at)
            }));
        for (label, name, source, at) in blocks {
            if let Some(call) = remote_call(&config.dir, &label, name, source, at) {
                out.push(call);
            }
        }
    }
    out
}

/// The call of one block whose source is a registry module or a git repository.
fn remote_call(
    dir: &Path,
    label: &str,
    name: &str,
    source: &SourceArg,
    at: &Location,
) -> Option<EvaluatedCall> {
    let Ok(Source::Remote {
        source: parsed,
        version,
    }) = source.resolve(dir)
    else {
        return None;
    };
    let definition = match (&parsed, &source.version) {
        (ModuleSource::Registry(_), Some(written)) => Definition {
            at: written.at.clone(),
            span: None,
            text: written.text.clone(),
            what: format!("the version of {label}"),
        },
        (ModuleSource::Git(_), _) => Definition {
            at: source.at.clone(),
            span: None,
            text: source.text.clone(),
            what: format!("the source of {label}"),
        },
        _ => return None,
    };
    Some(EvaluatedCall {
        dir: normalize_path(dir),
        name: name.to_string(),
        at: at.clone(),
        source: source.text.clone(),
        version,
        definition: Ok(definition),
        unit: None,
    })
}
