//! What HCP Terraform checks of a component at plan, checked at commit: a stack whose
//! lock file would be refused, or whose plan would fail for want of a provider, fails
//! here with the stack's file and line, the component, the module and the provider.
//!
//! From `internal/stacks/stackruntime/internal/stackeval` at 883c7221:
//!
//! * every installable provider the component's module tree needs is in the lock file,
//!   which holds what the stacks' `required_providers` declare ("Provider missing from
//!   lockfile", `provider_expressions.go:412-455`; module constraints play no part);
//! * a provider the root module uses has a configuration passed in the component's
//!   `providers` map ("Missing required provider configuration",
//!   `provider_expressions.go:61-75`);
//! * a configuration passed as `provider.TYPE.NAME` is of the provider the module means
//!   by that local name ("Invalid provider configuration", `:90-139`), a module's implied
//!   `hashicorp/NAME` included;
//! * the root module configures no provider itself ("Inline provider configuration not
//!   allowed", `component_config.go:156-187`).
//!
//! What only evaluation tells is left to HCP: a configuration passed through a variable,
//! and the providers a child module needs without its caller naming them (tfsum checks
//! those against the lock file only).

use std::collections::BTreeSet;

use super::{Component, StackConfig};
use crate::{ConfigError, Module, Requirement};
use tfsum_vocab::addr::ProviderAddr;

/// Every problem HCP Terraform would find with `component` of `stack`, whose module's
/// root is `root` and whose whole tree requires `tree`; `locked` is what the stack's lock
/// file holds (every stack's `required_providers` together).
pub fn component(
    stack: &StackConfig,
    component: &Component,
    root: &Module,
    tree: &[Requirement],
    locked: &BTreeSet<ProviderAddr>,
) -> Vec<ConfigError> {
    let mut problems = Vec::new();
    let problem = |message: String| ConfigError::invalid(component.at.clone(), message);
    let label = component.label();
    let module = module_label(root);
    for block in &root.provider_blocks {
        problems.push(problem(format!(
            "{label}: {} configures provider {:?} itself; a stack's component gets every \
             provider configuration from its providers argument (HCP Terraform: \"Inline \
             provider configuration not allowed\")",
            block.at, block.local_name
        )));
    }
    let mut missing: BTreeSet<&ProviderAddr> = BTreeSet::new();
    for req in tree {
        if !req.addr.is_lockable() || locked.contains(&req.addr) || !missing.insert(&req.addr) {
            continue;
        }
        let place = match &req.constraint {
            Some(constraint) => constraint.at.to_string(),
            None => req.declared_in.display().to_string(),
        };
        problems.push(problem(format!(
            "{label}: the module needs {} ({place}), which the stack's required_providers do not \
             declare, so its lock file cannot hold it (HCP Terraform: \"Provider missing from \
             lockfile\"); add it to required_providers and pass a configuration in providers",
            req.addr
        )));
    }
    // Built-in providers too: a `terraform_data` resource needs a `terraform`
    // configuration passed (upstream's `mainbundle/test/with-built-in-provider`).
    for name in &root.implied_local_names {
        let Some(addr) = root.provider_for_local_name(name) else {
            continue;
        };
        if root.provider_blocks.iter().any(|b| &b.local_name == name) {
            continue;
        }
        if !component
            .providers
            .iter()
            .any(|slot| &slot.local_name == name)
        {
            problems.push(problem(format!(
                "{label}: {module} uses provider {name:?} ({addr}), which the component's \
                 providers argument does not pass (HCP Terraform: \"Missing required provider \
                 configuration\"); add `{name} = provider.{}.NAME`",
                stack
                    .required_providers
                    .iter()
                    .find(|r| &r.addr == addr)
                    .map_or(name.as_str(), |r| r.local_name.as_str())
            )));
        }
    }
    for slot in &component.providers {
        let (Some(given), Some(wanted)) =
            (&slot.given, root.provider_for_local_name(&slot.local_name))
        else {
            continue;
        };
        let Some(declared) = stack.provider_addr(given) else {
            problems.push(ConfigError::invalid(
                slot.at.clone(),
                format!(
                    "{label}: providers passes provider.{given}, but the stack's \
                     required_providers declare no local name {given:?}"
                ),
            ));
            continue;
        };
        if &declared == wanted {
            continue;
        }
        let explicit = root
            .required_providers
            .iter()
            .any(|r| r.local_name == slot.local_name);
        let hint = if explicit {
            String::new()
        } else {
            format!(
                "; the module does not declare {:?} in its required_providers, so Terraform \
                 takes it for {wanted}",
                slot.local_name
            )
        };
        problems.push(ConfigError::invalid(
            slot.at.clone(),
            format!(
                "{label}: {module} wants a configuration of {wanted} for {:?}, and \
                 provider.{given} is one of {} (HCP Terraform: \"Invalid provider \
                 configuration\"){hint}",
                slot.local_name, declared
            ),
        ));
    }
    problems
}

/// The module as messages name it: its first file, or its directory.
fn module_label(module: &Module) -> String {
    match module.files.first() {
        Some(file) => format!("the module ({})", file.display()),
        None => format!("the module ({})", module.dir.display()),
    }
}
