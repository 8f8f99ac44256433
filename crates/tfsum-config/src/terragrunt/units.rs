//! Which Terragrunt unit candidates are units.
//!
//! `tfsum_stages::discover` finds the candidates: every directory holding `terragrunt.hcl`. Terragrunt itself treats all
//! of them as units (a root `terragrunt.hcl` needs `skip = true` to stay out of
//! `run-all`), but a lock file for a file that only exists to be included would be noise,
//! so tfsum leaves out a candidate that is an **include parent**: its `terragrunt.hcl` is
//! the `include` target of another candidate, it sets no `terraform.source`, and its
//! directory holds no `.tf` files — nothing Terraform could run. `root.hcl`, `env.hcl` and
//! other names are never units. Without `recursive` every given directory holding
//! `terragrunt.hcl` is a unit, by the user's say-so.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::eval::{with_scope, Includes, Scope};
use super::limits::on_eval_stack;
use super::parse::parse_file;
use super::{find_repo_root, include_setting, UNIT_FILE_NAME};
use crate::paths::absolute;
use tfsum_disk::walk::has_config_files;

/// The units among `candidates` (directories holding `terragrunt.hcl`, sorted and
/// normalised, as discovery found them). With `recursive`, include parents are left out;
/// without, every candidate is a unit by the user's say-so.
pub fn find_units(candidates: &[PathBuf], recursive: bool) -> Vec<PathBuf> {
    if !recursive {
        return candidates.to_vec();
    }
    // Parsing and evaluating include paths need the evaluation thread's stack; without
    // one, every candidate stays a unit (and loading it reports the refusal).
    let keep = || -> Vec<PathBuf> {
        let included: BTreeSet<PathBuf> =
            candidates.iter().flat_map(|d| include_targets(d)).collect();
        candidates
            .iter()
            .filter(|dir| !is_include_parent(dir, &included))
            .cloned()
            .collect()
    };
    on_eval_stack(keep).unwrap_or_else(|_| candidates.to_vec())
}

fn is_include_parent(dir: &Path, included: &BTreeSet<PathBuf>) -> bool {
    let file = dir.join(UNIT_FILE_NAME);
    // A directory that cannot be read counts as holding no configuration files.
    if !included.contains(&absolute(&file)) || has_config_files(dir).unwrap_or(false) {
        return false;
    }
    // A file that does not parse is kept as a unit, so that its error is reported.
    parse_file(&file).is_ok_and(|f| f.source.is_none())
}

/// The absolute paths a unit's include blocks point at, other than its own file. A unit
/// whose includes cannot be evaluated contributes none; loading it reports why.
fn include_targets(dir: &Path) -> Vec<PathBuf> {
    let Ok(file) = parse_file(&dir.join(UNIT_FILE_NAME)) else {
        return Vec::new();
    };
    let unit_abs = absolute(dir);
    let own = unit_abs.join(UNIT_FILE_NAME);
    let scope = Scope {
        file: own.clone(),
        config_path: own.clone(),
        unit_dir: unit_abs.clone(),
        repo_root: absolute(&find_repo_root(dir)),
        includes: Includes::Current(Vec::new()),
        line: Cell::default(),
    };
    with_scope(scope, || {
        file.includes
            .iter()
            .filter_map(|decl| include_setting(&file, decl, &unit_abs, &[]).ok())
            .map(|setting| setting.resolved.path)
            .filter(|path| *path != own)
            .collect()
    })
    .unwrap_or_default()
}
