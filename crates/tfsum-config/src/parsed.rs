//! Configuration files parsed once per text in a run. Roots of a monorepo are mostly
//! copies of each other: the same `versions.tf` and `providers.tf` sit in hundreds of
//! directories, and parsing them was the largest cost of a run that found nothing to
//! change (issue 25). A file whose exact text was parsed before (with the same syntax and
//! default registry host) takes the earlier result with its locations moved to its own
//! path, which is what parsing it would have given: the parsers read a path only to
//! name it in locations and errors.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use super::{ConfigError, FileContent, Location};

/// Texts longer than this are parsed every time: large files are rarely copies, and the
/// memo should not hold a second copy of them.
const LARGEST_KEPT: usize = 64 << 10;

/// Parse results by text, shared by the threads that load modules. Only successes are
/// kept; a file that fails is parsed again, so its error names its own path.
#[derive(Default)]
pub struct ParsedFiles {
    by_text: Mutex<HashMap<Box<str>, Vec<Parsed>>>,
}

struct Parsed {
    json: bool,
    default_host: Box<str>,
    content: FileContent,
}

impl ParsedFiles {
    /// [`super::parse_file`], answered from an earlier file with the same text when there
    /// is one.
    pub(crate) fn parse(
        &self,
        path: &Path,
        text: &str,
        json: bool,
        default_host: &str,
    ) -> Result<FileContent, ConfigError> {
        if text.len() > LARGEST_KEPT {
            return super::parse_file(path, text, json, default_host);
        }
        let earlier = self.map().get(text).and_then(|seen| {
            seen.iter()
                .find(|p| p.json == json && *p.default_host == *default_host)
                .map(|p| p.content.clone())
        });
        if let Some(mut content) = earlier {
            let file: Arc<Path> = path.into();
            content.each_location(|at| at.file = file.clone());
            return Ok(content);
        }
        let content = super::parse_file(path, text, json, default_host)?;
        let mut map = self.map();
        let seen = map.entry(text.into()).or_default();
        if !seen
            .iter()
            .any(|p| p.json == json && *p.default_host == *default_host)
        {
            seen.push(Parsed {
                json,
                default_host: default_host.into(),
                content: content.clone(),
            });
        }
        Ok(content)
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, Vec<Parsed>>> {
        self.by_text.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl FileContent {
    /// Calls `f` on every location the content holds. A field added to [`FileContent`]
    /// (or to what it holds) with a location must be visited here, or a file read from
    /// the memo would point into another file; the test below compares whole results.
    pub(super) fn each_location(&mut self, mut f: impl FnMut(&mut Location)) {
        for (at, entries) in &mut self.required_providers {
            f(at);
            for entry in entries {
                f(&mut entry.at);
                if let Some(version) = &mut entry.version {
                    f(&mut version.at);
                }
            }
        }
        for block in &mut self.provider_blocks {
            f(&mut block.at);
            if let Some(version) = &mut block.version {
                f(&mut version.at);
            }
        }
        for resource in &mut self.resources {
            f(&mut resource.at);
        }
        for call in &mut self.module_calls {
            f(&mut call.at);
            call.written.each_location(&mut f);
        }
        for variable in &mut self.variables {
            f(&mut variable.at);
            let exprs = variable
                .default
                .iter_mut()
                .chain(&mut variable.type_constraint);
            exprs.for_each(|e| f(&mut e.at));
            for validation in &mut variable.validations {
                f(&mut validation.condition.at);
                if let Some(message) = &mut validation.error_message {
                    f(&mut message.at);
                }
            }
        }
        for (_, local) in &mut self.locals {
            f(&mut local.at);
        }
        self.backends.iter_mut().for_each(&mut f);
        for constraint in &mut self.required_version {
            f(&mut constraint.at);
        }
    }
}

impl super::CallExprs {
    fn each_location(&mut self, f: &mut impl FnMut(&mut Location)) {
        let exprs = self.source.iter_mut().chain(&mut self.version);
        exprs
            .chain(self.args.values_mut())
            .for_each(|e| f(&mut e.at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_vocab::addr::{OPENTOFU_REGISTRY, TERRAFORM_REGISTRY};

    /// Every construct that carries a location, in both syntaxes.
    const NATIVE: &str = r#"terraform {
  required_version = ">= 1.0"
  backend "s3" {}
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
    random = {}
  }
}

provider "aws" {
  version = ">= 4.0"
}

provider "aws" {
  alias = "east"
}

resource "null_resource" "a" {
  provider = aws.east
}

data "http" "b" {}

ephemeral "random_password" "c" {}

import {
  to = null_resource.a
  id = "x"
}

check "d" {
  data "tls_certificate" "e" {}
}

module "m" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}
"#;

    const JSON: &str = r#"{
  "terraform": {
    "required_version": ">= 1.0",
    "cloud": {},
    "required_providers": {
      "aws": { "source": "hashicorp/aws", "version": "~> 5.0" }
    }
  },
  "provider": { "aws": { "version": ">= 4.0" } },
  "resource": { "null_resource": { "a": {} } },
  "module": { "m": { "source": "./m" } }
}
"#;

    /// A text read from a second path is exactly what parsing it there gives: every
    /// location names the second file (compared through the whole debug form, so a
    /// location `each_location` misses fails here), for both syntaxes and hosts; a file
    /// that does not parse names its own path each time.
    #[test]
    fn a_text_read_again_is_what_parsing_it_there_gives() {
        for (text, json) in [(NATIVE, false), (JSON, true)] {
            for host in [TERRAFORM_REGISTRY, OPENTOFU_REGISTRY] {
                let parsed = ParsedFiles::default();
                let first = Path::new("a/main.tf");
                let second = Path::new("b/other.tf");
                let from_a = parsed.parse(first, text, json, host).unwrap();
                let from_b = parsed.parse(second, text, json, host).unwrap();
                let fresh_a = super::super::parse_file(first, text, json, host).unwrap();
                let fresh_b = super::super::parse_file(second, text, json, host).unwrap();
                assert_eq!(format!("{from_a:?}"), format!("{fresh_a:?}"));
                assert_eq!(format!("{from_b:?}"), format!("{fresh_b:?}"));
                let debug = format!("{from_b:?}");
                assert!(!debug.contains("a/main.tf"), "{debug}");
                let mut count = 0;
                from_b.clone().each_location(|_| count += 1);
                assert!(count >= 6, "{count} locations in {debug}");
            }
        }
        let parsed = ParsedFiles::default();
        let one = parsed.parse(Path::new("x/a.tf"), "resource {", false, TERRAFORM_REGISTRY);
        let two = parsed.parse(Path::new("y/b.tf"), "resource {", false, TERRAFORM_REGISTRY);
        assert!(one.unwrap_err().to_string().contains("x/a.tf"));
        assert!(two.unwrap_err().to_string().contains("y/b.tf"));
    }

    /// The same text under another default host or syntax is parsed on its own: a short
    /// provider source means another registry.
    #[test]
    fn the_host_and_syntax_are_part_of_the_key() {
        let parsed = ParsedFiles::default();
        let path = Path::new("main.tf");
        let tf = parsed
            .parse(path, NATIVE, false, TERRAFORM_REGISTRY)
            .unwrap();
        let tofu = parsed
            .parse(path, NATIVE, false, OPENTOFU_REGISTRY)
            .unwrap();
        let addr = |c: &FileContent| c.required_providers[0].1[0].addr.to_string();
        assert_eq!(addr(&tf), format!("{TERRAFORM_REGISTRY}/hashicorp/aws"));
        assert_eq!(addr(&tofu), format!("{OPENTOFU_REGISTRY}/hashicorp/aws"));
        assert!(parsed
            .parse(path, NATIVE, true, TERRAFORM_REGISTRY)
            .is_err());
    }
}
