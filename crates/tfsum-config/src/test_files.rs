//! Test files (`*.tftest.hcl`, and OpenTofu's `*.tofutest.hcl`) of a root module: what
//! they add to the providers its lock file must hold.
//!
//! `terraform init` has read a root's test files since 1.6.0, and `terraform providers
//! lock` since 1.14.1 (#37851): the providers of every module a `run` block calls count,
//! so `init -lockfile=readonly` and `terraform test` find them locked. OpenTofu's `init`
//! reads them too and also counts the test files' own `provider` blocks.
//! `docs/spec/tests.md` has each rule with its source.
//!
//! The parts, in the order the load stage uses them:
//!
//! * [`tests_count`] is the rule for *when*: unless the root's `required_version` admits
//!   only versions older than 1.6.0 (which never read test files, Terraform 1.0.3
//!   included);
//! * [`test_file_paths`] picks the files (the root directory and its test directory);
//! * [`read_test_files`] parses them into [`TestFiles`];
//! * [`with_tests`] folds them into the root's [`Module`], so the tree walk follows the
//!   `run` blocks' modules like any module call;
//! * [`root_with_tests`] is the root module as the tree walk reads it: with its tests
//!   when they count (a called module's test files never count).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hcl_edit::expr::Expression;
use hcl_edit::structure::Block;
use hcl_edit::Span;

use super::files::{self, Dialect};
use super::{
    hcl, json, ConfigError, FileContent, Location, Module, ModuleCall, ProviderBlock, RawConstraint,
};
use tfsum_disk::walk::Listings;
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::paths::{is_ignored_file_name, normalize_path};
use tfsum_vocab::version::{Constraints, Version};

/// The test directory both tools read when `-test-directory` is not given.
pub const DEFAULT_TEST_DIRECTORY: &str = "tests";

/// The first release of Terraform (and of OpenTofu, which forked from it) whose `init`
/// records the providers of test files in the lock file.
fn first_version_reading_tests() -> Version {
    Version::new(1, 6, 0)
}

/// What a root's test files contribute.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TestFiles {
    /// The test files read, sorted.
    pub files: Vec<PathBuf>,
    /// One call per `run` block that has a `module` block. Each is named by the module
    /// path Terraform gives it (`test.tests.main.setup` for run `setup` of
    /// `tests/main.tftest.hcl`), which is also its key in `modules.json`; such a name
    /// cannot clash with a `module` block's. Local sources are relative to the root.
    pub run_calls: Vec<ModuleCall>,
    /// The test files' `provider` blocks (not `mock_provider`); only OpenTofu counts them.
    pub provider_blocks: Vec<ProviderBlock>,
}

/// Whether a root's test files count for its lock file: unless its `required_version`
/// admits no version from 1.6.0 on, the first that reads them. Both tools compare
/// `required_version` with their own version, and both started reading test files at
/// 1.6.0, so one rule serves both. A constraint tfsum cannot parse says nothing, so test
/// files count.
pub(crate) fn tests_count(module: &Module) -> bool {
    admits_from(&module.required_version, &first_version_reading_tests())
}

/// Whether the intersection of `required` admits some release at or above `floor`.
///
/// The admitted releases are an intersection of intervals whose ends are versions the
/// constraints name, minus the versions `!=` names; so if any release at or above
/// `floor` is admitted, one of `floor`, a named version, or the patch after one is.
fn admits_from(required: &[RawConstraint], floor: &Version) -> bool {
    let mut all = Constraints::default();
    for constraint in required {
        match Constraints::parse_ruby_style(&constraint.text) {
            Ok(parsed) => all.extend(&parsed),
            Err(_) => return true,
        }
    }
    let mut candidates = vec![floor.clone()];
    for selection in all.selections() {
        let b = &selection.boundary;
        let release = Version::new(b.major, b.minor, b.patch);
        let next = Version::new(b.major, b.minor, b.patch.saturating_add(1));
        candidates.extend([release, next].into_iter().filter(|v| v >= floor));
    }
    candidates.iter().any(|v| all.allows(v))
}

/// The test files of the module in `dir`: those directly in it and those in
/// `dir/test_dir`, sorted. Terraform reads `*.tftest.hcl` and `*.tftest.json`; OpenTofu
/// also `*.tofutest.hcl` and `*.tofutest.json`, and ignores `x.tftest.hcl` when
/// `x.tofutest.hcl` is beside it (as it ignores `x.tf` beside `x.tofu`). Hidden and
/// editor files are skipped. A missing test directory is no error; an unreadable one is.
pub(crate) fn test_file_paths(
    dir: &Path,
    test_dir: &Path,
    dialect: Dialect,
    listings: &Listings,
) -> Result<Vec<PathBuf>, ConfigError> {
    let mut out = test_files_in(dir, dialect, listings)?;
    let tests = dir.join(test_dir);
    if listings.is_dir(&tests) {
        out.extend(test_files_in(&tests, dialect, listings)?);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The test files directly in `dir`, by the dialect's rules.
fn test_files_in(
    dir: &Path,
    dialect: Dialect,
    listings: &Listings,
) -> Result<Vec<PathBuf>, ConfigError> {
    let names = files::file_names(dir, listings, |name| {
        test_file_stem(name, dialect).is_some() && !is_ignored_file_name(name)
    })?;
    let shadowed = |name: &str| {
        dialect == Dialect::OpenTofu
            && [
                (".tftest.hcl", ".tofutest.hcl"),
                (".tftest.json", ".tofutest.json"),
            ]
            .iter()
            .any(|(tf, tofu)| {
                name.strip_suffix(tf)
                    .is_some_and(|stem| names.contains(&format!("{stem}{tofu}")))
            })
    };
    Ok(names
        .iter()
        .filter(|name| !shadowed(name))
        .map(|name| dir.join(name))
        .collect())
}

/// Whether `name` is a test file's name for either tool (`*.tftest.hcl`, `*.tftest.json`,
/// `*.tofutest.hcl`, `*.tofutest.json`).
pub fn is_test_file_name(name: &str) -> bool {
    test_file_stem(name, Dialect::OpenTofu).is_some()
}

/// The name without its test-file extension, if it is a test file name in `dialect`.
fn test_file_stem(name: &str, dialect: Dialect) -> Option<&str> {
    let extensions: &[&str] = match dialect {
        Dialect::Terraform => &[".tftest.hcl", ".tftest.json"],
        Dialect::OpenTofu => &[
            ".tftest.hcl",
            ".tftest.json",
            ".tofutest.hcl",
            ".tofutest.json",
        ],
    };
    extensions
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .filter(|stem| !stem.is_empty())
}

/// Reads the test files of the root module in `dir` (see [`test_file_paths`]).
/// `default_host` selects the dialect as it does for [`super::load_module`].
pub(crate) fn read_test_files(
    dir: &Path,
    test_dir: &Path,
    default_host: &str,
    listings: &Listings,
) -> Result<TestFiles, ConfigError> {
    let dialect = Dialect::for_registry(default_host);
    let mut out = TestFiles::default();
    for path in test_file_paths(dir, test_dir, dialect, listings)? {
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let key = module_path_prefix(dir, &path);
        let parsed = if files::is_json(&path) {
            parse_json(&path, &text, &key)?
        } else {
            parse_native(&path, &text, default_host, &key)?
        };
        out.run_calls.extend(parsed.run_calls);
        out.provider_blocks.extend(parsed.provider_blocks);
        out.files.push(path);
    }
    Ok(out)
}

/// `test.<directories>.<file name without .tftest.hcl>`: the start of the module path
/// Terraform gives a test file's run modules (`configs.buildTestModules`). Only the
/// `.tftest.hcl` suffix is trimmed there, so other test files keep their full name.
fn module_path_prefix(dir: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(dir).unwrap_or(file);
    let mut parts = vec!["test".to_string()];
    let components: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some((base, dirs)) = components.split_last() {
        parts.extend(dirs.iter().cloned());
        parts.push(base.strip_suffix(".tftest.hcl").unwrap_or(base).to_string());
    }
    parts.join(".")
}

/// A test file's contributions, before they are gathered.
#[derive(Default)]
struct Parsed {
    run_calls: Vec<ModuleCall>,
    provider_blocks: Vec<ProviderBlock>,
}

/// One `run` block's `module { source = …, version = … }`.
struct RunModule {
    source: String,
    version: Option<String>,
    at: Location,
}

impl RunModule {
    fn into_call(self, key: &str, run: &str) -> ModuleCall {
        ModuleCall {
            name: format!("{key}.{run}"),
            source: self.source,
            literal: true,
            version: self.version,
            written: Default::default(),
            at: self.at,
        }
    }
}

/// Native syntax: `run` blocks (their `module` block) and `provider` blocks; everything
/// else (`variables`, `mock_provider`, `override_*`, assertions) selects no provider.
fn parse_native(
    path: &Path,
    text: &str,
    default_host: &str,
    key: &str,
) -> Result<Parsed, ConfigError> {
    hcl::with_body(path, text, default_host, |body, reader| {
        let mut out = Parsed::default();
        let mut providers = FileContent::default();
        for block in body.blocks() {
            let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
            match (block.ident.as_str(), labels.as_slice()) {
                ("run", [run]) => {
                    if let Some(module) = native_run_module(block, run, reader)? {
                        out.run_calls.push(module.into_call(key, run));
                    }
                }
                // The same block as in configuration files, read the same way.
                ("provider", [_]) => reader.top_level(block, &mut providers)?,
                _ => {}
            }
        }
        out.provider_blocks = providers.provider_blocks;
        Ok(out)
    })
}

/// The `module` block of a native `run` block, if it has one. Its `source` must be a
/// literal string (Terraform decodes it without variables) and there may be only one.
fn native_run_module(
    run_block: &Block,
    run: &str,
    reader: &hcl::Reader<'_>,
) -> Result<Option<RunModule>, ConfigError> {
    let mut found: Option<RunModule> = None;
    for block in run_block.body.get_blocks("module") {
        let at = reader.at(block.span());
        if let Some(first) = &found {
            return Err(more_than_one_module(at, run, &first.at));
        }
        let Some(attr) = block.body.get_attribute("source") else {
            return Err(missing_source(at, run));
        };
        let source = match &attr.value {
            Expression::String(s) => s.as_str().to_string(),
            other => {
                return Err(ConfigError::Invalid {
                    at: reader.at(attr.span()),
                    message: format!(
                        "the module source of run {run:?} must be a literal string, not {}",
                        reader.source_text(other)
                    ),
                })
            }
        };
        let version = match block.body.get_attribute("version") {
            Some(attr) => Some(reader.literal(&attr.value, "the module version")?),
            None => None,
        };
        found = Some(RunModule {
            source,
            version,
            at,
        });
    }
    Ok(found)
}

/// JSON syntax: `{"run": {"NAME": {"module": {"source": "…"}}}, "provider": {…}}`, with
/// arrays allowed wherever a block may repeat, as in configuration files.
fn parse_json(path: &Path, text: &str, key: &str) -> Result<Parsed, ConfigError> {
    let members = json::root_members(path, text, "test file")?;
    let at = |line: usize| Location {
        file: path.to_path_buf().into(),
        line,
    };
    let mut out = Parsed::default();
    let mut providers = FileContent::default();
    for member in &members {
        match member.name.as_str() {
            "run" => {
                for (labels, body) in json::blocks(&member.value, 1) {
                    let [(run, _)] = labels.as_slice() else {
                        continue;
                    };
                    let mut found: Option<RunModule> = None;
                    for module in body.members().filter(|m| m.name == "module") {
                        for (_, module_body) in json::blocks(&module.value, 0) {
                            let here = at(module.line);
                            if let Some(first) = &found {
                                return Err(more_than_one_module(here, run, &first.at));
                            }
                            let Some(source) = module_body.get("source") else {
                                return Err(missing_source(here, run));
                            };
                            let version = match module_body.get("version") {
                                Some(m) => Some(json::string(m, "the module version", &at)?),
                                None => None,
                            };
                            let text = json::string(source, "the module source", &at)?;
                            // A JSON string is a template; Terraform decodes this one
                            // without variables, so an interpolation cannot be resolved.
                            if text.contains("${") {
                                return Err(ConfigError::Invalid {
                                    at: at(source.line),
                                    message: format!(
                                        "the module source of run {run:?} must be a literal string, not {text:?}"
                                    ),
                                });
                            }
                            found = Some(RunModule {
                                source: text,
                                version,
                                at: here,
                            });
                        }
                    }
                    if let Some(module) = found {
                        out.run_calls.push(module.into_call(key, run));
                    }
                }
            }
            "provider" => json::provider_blocks(member, &at, &mut providers)?,
            _ => {}
        }
    }
    out.provider_blocks = providers.provider_blocks;
    Ok(out)
}

fn more_than_one_module(at: Location, run: &str, first: &Location) -> ConfigError {
    ConfigError::Invalid {
        at,
        message: format!("run {run:?} has more than one module block; the first is at {first}"),
    }
}

fn missing_source(at: Location, run: &str) -> ConfigError {
    ConfigError::Invalid {
        at,
        message: format!("the module block of run {run:?} has no source argument"),
    }
}

/// `module` as the root of its tree with `tests` folded in, the way the dialect counts
/// them: every run call joins `module_calls` (except one naming the root itself, whose
/// providers are already counted), and for OpenTofu each test `provider` block joins
/// `provider_blocks`, its local name mapped as the root maps it (`required_providers`,
/// else `hashicorp/NAME`), its legacy `version` a constraint (`Config.addProviderRequirements`).
pub(crate) fn with_tests(
    module: &Module,
    tests: &TestFiles,
    default_host: &str,
) -> Result<Module, ConfigError> {
    let mut out = module.clone();
    let root = normalize_path(&module.dir);
    for call in &tests.run_calls {
        if call.local_dir(&module.dir).as_ref() != Some(&root) {
            out.module_calls.push(call.clone());
        }
    }
    if Dialect::for_registry(default_host) == Dialect::OpenTofu {
        for block in &tests.provider_blocks {
            if !out.local_names.contains_key(&block.local_name) {
                let addr = ProviderAddr::implied(&block.local_name, default_host).map_err(|e| {
                    ConfigError::Invalid {
                        at: block.at.clone(),
                        message: format!("invalid provider name {:?}: {e}", block.local_name),
                    }
                })?;
                out.local_names.insert(block.local_name.clone(), addr);
            }
            out.implied_local_names.insert(block.local_name.clone());
            out.provider_blocks.push(block.clone());
        }
    }
    out.files.extend(tests.files.iter().cloned());
    Ok(out)
}

/// The root module in `root`'s directory as the tree walk reads it: with its test files
/// ([`with_tests`]) when [`tests_count`] says they count, read from the root and its
/// [`DEFAULT_TEST_DIRECTORY`]. The loader gives the walk every other module as before, so
/// a called module's test files never count, as in Terraform.
pub fn root_with_tests(
    root: Arc<Module>,
    default_host: &str,
    listings: &Listings,
) -> Result<Arc<Module>, ConfigError> {
    if !tests_count(&root) {
        return Ok(root);
    }
    let tests = read_test_files(
        &root.dir,
        Path::new(DEFAULT_TEST_DIRECTORY),
        default_host,
        listings,
    )?;
    if tests.files.is_empty() {
        return Ok(root);
    }
    Ok(Arc::new(with_tests(&root, &tests, default_host)?))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::early::{RootInputs, Rules, ValueInputs};
    use crate::load_module;
    use crate::tree::{module_tree_requirements, ModuleReader, Remote};
    use tfsum_vocab::addr::{OPENTOFU_REGISTRY, TERRAFORM_REGISTRY};
    use tfsum_vocab::module_source::ModuleSource as RemoteSource;

    /// The tree walk's reader as the load stage builds it: the root in `.0` with its
    /// tests, every other module plain, nothing remote.
    struct RootTests(PathBuf);

    impl ModuleReader for RootTests {
        fn load(&mut self, dir: &Path) -> Result<Arc<Module>, ConfigError> {
            let module = Arc::new(load_module(dir, TERRAFORM_REGISTRY)?);
            if normalize_path(dir) == normalize_path(&self.0) {
                root_with_tests(module, TERRAFORM_REGISTRY, &Listings::default())
            } else {
                Ok(module)
            }
        }

        fn remote(&mut self, _: &RemoteSource, _: Option<&str>) -> Remote {
            Remote::Pending
        }
    }

    /// A temporary directory holding `files` (relative path, content).
    fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::TempDir::new().unwrap();
        for (path, content) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        dir
    }

    fn constraints(texts: &[&str]) -> Vec<RawConstraint> {
        texts
            .iter()
            .map(|t| RawConstraint {
                text: t.to_string(),
                at: Location {
                    file: PathBuf::from("main.tf").into(),
                    line: 1,
                },
            })
            .collect()
    }

    /// The when-rule over the shapes `required_version` takes: test files count unless
    /// every admitted version is older than 1.6.0.
    #[test]
    fn required_version_decides_whether_tests_count() {
        let cases: &[(&[&str], bool)] = &[
            (&[], true),
            (&[">= 1.0"], true),
            (&["1.0.3"], false),
            (&["= 1.0.3"], false),
            (&["~> 1.0.0"], false),
            (&["~> 1.0"], true),
            (&["~> 1.5.0"], false),
            (&["< 1.6.0"], false),
            (&["<= 1.6.0"], true),
            (&["< 1.6.1"], true),
            (&["> 1.5.7"], true),
            (&[">= 1.0, < 1.6"], false),
            (&[">= 1.2", "< 1.6.0"], false),
            (&[">= 1.6.0", "!= 1.6.0"], true),
            (&["1.6.0"], true),
            (&[">= 1.6.0, < 1.6.0"], false),
            (&["~> 1.14.1"], true),
            (&["not a version"], true),
        ];
        let floor = first_version_reading_tests();
        for (required, want) in cases {
            assert_eq!(
                admits_from(&constraints(required), &floor),
                *want,
                "{required:?}"
            );
        }
    }

    /// `required_version` is read from native and JSON `terraform` blocks; an override
    /// file's replaces the primary files' (`Module.mergeFile`).
    #[test]
    fn required_version_is_read_and_overridden() {
        let dir = dir_with(&[
            ("a.tf", "terraform {\n  required_version = \">= 1.0\"\n}\n"),
            (
                "b.tf.json",
                r#"{"terraform": {"required_version": "< 2.0"}}"#,
            ),
        ]);
        let module = load_module(dir.path(), TERRAFORM_REGISTRY).unwrap();
        let texts: Vec<&str> = module
            .required_version
            .iter()
            .map(|c| c.text.as_str())
            .collect();
        assert_eq!(texts, [">= 1.0", "< 2.0"]);
        assert!(tests_count(&module));

        std::fs::write(
            dir.path().join("pin_override.tf"),
            "terraform {\n  required_version = \"1.0.3\"\n}\n",
        )
        .unwrap();
        let module = load_module(dir.path(), TERRAFORM_REGISTRY).unwrap();
        assert_eq!(module.required_version.len(), 1);
        assert_eq!(module.required_version[0].text, "1.0.3");
        assert_eq!(module.required_version[0].at.line, 2);
        assert!(!tests_count(&module));
    }

    /// Which files each dialect reads: both extensions' native and JSON forms in the
    /// root and (not recursively) in the test directory; OpenTofu's own extension shadows
    /// Terraform's of the same name; hidden, editor and non-test files are skipped.
    #[test]
    fn test_files_per_dialect() {
        let dir = dir_with(&[
            ("main.tftest.hcl", ""),
            ("a.tftest.json", "{}"),
            ("b.tftest.hcl", ""),
            ("b.tofutest.hcl", ""),
            ("c.tofutest.json", "{}"),
            (".hidden.tftest.hcl", ""),
            ("x.tftest.hcl~", ""),
            ("#y.tftest.hcl#", ""),
            ("notes.hcl", ""),
            (".tftest.hcl", ""),
            ("main.tf", ""),
            ("tests/d.tftest.hcl", ""),
            ("tests/e.tofutest.hcl", ""),
            ("tests/sub/f.tftest.hcl", ""),
            ("other/g.tftest.hcl", ""),
        ]);
        let names = |dialect, test_dir: &str| -> Vec<String> {
            test_file_paths(
                dir.path(),
                Path::new(test_dir),
                dialect,
                &Listings::default(),
            )
            .unwrap()
            .iter()
            .map(|p| {
                p.strip_prefix(dir.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
        };
        assert_eq!(
            names(Dialect::Terraform, "tests"),
            [
                "a.tftest.json",
                "b.tftest.hcl",
                "main.tftest.hcl",
                "tests/d.tftest.hcl"
            ]
        );
        assert_eq!(
            names(Dialect::OpenTofu, "tests"),
            [
                "a.tftest.json",
                "b.tofutest.hcl",
                "c.tofutest.json",
                "main.tftest.hcl",
                "tests/d.tftest.hcl",
                "tests/e.tofutest.hcl"
            ]
        );
        assert_eq!(
            names(Dialect::Terraform, "other"),
            [
                "a.tftest.json",
                "b.tftest.hcl",
                "main.tftest.hcl",
                "other/g.tftest.hcl"
            ]
        );
        assert_eq!(
            names(Dialect::Terraform, "missing"),
            ["a.tftest.json", "b.tftest.hcl", "main.tftest.hcl"]
        );
    }

    const NATIVE: &str = r#"variables {
  region = "eu-west-1"
}

provider "aws" {
  region  = var.region
  version = "~> 5.0"
}

mock_provider "google" {}

run "setup" {
  module {
    source = "./tests/setup"
  }
}

run "plain" {
  assert {
    condition     = true
    error_message = "x"
  }
}

run "remote" {
  module {
    source  = "app.terraform.io/acme/net/aws"
    version = "~> 2.0"
  }
}
"#;

    const JSON: &str = r#"{
  "run": {
    "json_setup": {
      "module": {"source": "./helper"}
    },
    "none": {}
  },
  "provider": {"dns": {"version": ">= 3.0"}},
  "mock_provider": {"google": {}}
}
"#;

    /// Run blocks become module calls named by their Terraform module path, with their
    /// source, version and line; provider blocks are kept; mock providers, variables and
    /// assertions contribute nothing. Both syntaxes.
    #[test]
    fn run_blocks_and_provider_blocks_are_read() {
        let dir = dir_with(&[
            ("main.tf", ""),
            ("tests/main.tftest.hcl", NATIVE),
            ("x.tftest.json", JSON),
        ]);
        let tests = read_test_files(
            dir.path(),
            Path::new("tests"),
            TERRAFORM_REGISTRY,
            &Listings::default(),
        )
        .unwrap();
        let calls: Vec<String> = tests
            .run_calls
            .iter()
            .map(|c| {
                format!(
                    "{} {} {:?} {}:{}",
                    c.name,
                    c.source,
                    c.version,
                    c.at.file.file_name().unwrap().to_string_lossy(),
                    c.at.line
                )
            })
            .collect();
        assert_eq!(
            calls,
            [
                "test.tests.main.setup ./tests/setup None main.tftest.hcl:13",
                r#"test.tests.main.remote app.terraform.io/acme/net/aws Some("~> 2.0") main.tftest.hcl:26"#,
                "test.x.tftest.json.json_setup ./helper None x.tftest.json:4",
            ]
        );
        let providers: Vec<String> = tests
            .provider_blocks
            .iter()
            .map(|p| {
                let version = p.version.as_ref().map(|v| (v.text.as_str(), v.at.line));
                format!("{} {version:?} line {}", p.local_name, p.at.line)
            })
            .collect();
        assert_eq!(
            providers,
            [
                r#"aws Some(("~> 5.0", 7)) line 5"#,
                r#"dns Some((">= 3.0", 8)) line 8"#
            ]
        );
        assert_eq!(tests.files.len(), 2);
    }

    /// Test files Terraform rejects fail the root with the file and line to fix.
    #[test]
    fn invalid_test_files_name_file_and_line() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "a.tftest.hcl",
                "run \"x\" {\n  module {\n    source = \"./a\"\n  }\n  module {\n    source = \"./b\"\n  }\n}\n",
                "a.tftest.hcl:5: run \"x\" has more than one module block; the first is at",
            ),
            (
                "a.tftest.hcl",
                "run \"x\" {\n  module {\n    version = \"1.0.0\"\n  }\n}\n",
                "a.tftest.hcl:2: the module block of run \"x\" has no source argument",
            ),
            (
                "a.tftest.hcl",
                "run \"x\" {\n  module {\n    source = var.where\n  }\n}\n",
                "a.tftest.hcl:3: the module source of run \"x\" must be a literal string, not var.where",
            ),
            (
                "a.tftest.hcl",
                "run \"x\" {\n  module {\n",
                "a.tftest.hcl:2:12: syntax error",
            ),
            (
                "a.tftest.json",
                "{\"run\": {\"x\": {\"module\": {\"version\": \"1\"}}}}",
                "a.tftest.json:1: the module block of run \"x\" has no source argument",
            ),
            (
                "a.tftest.json",
                "{\"run\": {\"x\": {\"module\": {\n  \"source\": \"${var.dir}\"}}}}",
                "a.tftest.json:2: the module source of run \"x\" must be a literal string",
            ),
            ("a.tftest.json", "[]", "a.tftest.json:1: the root of a JSON test file"),
        ];
        for (name, text, want) in cases {
            let dir = dir_with(&[(name, text)]);
            let err = read_test_files(
                dir.path(),
                Path::new("tests"),
                TERRAFORM_REGISTRY,
                &Listings::default(),
            )
            .unwrap_err()
            .to_string();
            let err = err.replace(&format!("{}/", dir.path().display()), "");
            assert!(err.starts_with(want), "{text:?}: {err}");
        }
    }

    /// What each dialect folds into the root: both follow run modules (not one naming
    /// the root itself); only OpenTofu counts test `provider` blocks, mapped through the
    /// root's `required_providers` and with their `version` as a constraint.
    #[test]
    fn dialects_fold_different_blocks() {
        let main_tf =
            "terraform {\n  required_providers {\n    aws = { source = \"acme/aws\" }\n  }\n}\n";
        let test = "provider \"aws\" {\n  version = \"~> 5.0\"\n}\nprovider \"google\" {}\nrun \"self\" {\n  module {\n    source = \"./\"\n  }\n}\nrun \"setup\" {\n  module {\n    source = \"./setup\"\n  }\n}\n";
        let dir = dir_with(&[("main.tf", main_tf), ("main.tftest.hcl", test)]);
        let cases = [
            (
                TERRAFORM_REGISTRY,
                vec!["registry.terraform.io/acme/aws"],
                vec!["test.main.setup"],
            ),
            (
                OPENTOFU_REGISTRY,
                vec![
                    "registry.opentofu.org/acme/aws",
                    "registry.opentofu.org/acme/aws ~> 5.0",
                    "registry.opentofu.org/hashicorp/google",
                ],
                vec!["test.main.setup"],
            ),
        ];
        for (host, want_reqs, want_calls) in cases {
            let module = load_module(dir.path(), host).unwrap();
            let tests = read_test_files(dir.path(), Path::new("tests"), host, &Listings::default())
                .unwrap();
            let folded = with_tests(&module, &tests, host).unwrap();
            let reqs: Vec<String> = folded
                .requirements()
                .iter()
                .map(|r| match &r.constraint {
                    Some(c) => format!("{} {}", r.addr, c.text),
                    None => r.addr.to_string(),
                })
                .collect();
            assert_eq!(reqs, want_reqs, "{host}");
            let calls: Vec<&str> = folded
                .module_calls
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            assert_eq!(calls, want_calls, "{host}");
            assert!(
                module.module_calls.is_empty(),
                "the loaded module is untouched"
            );
        }
    }

    /// Through the real tree walk: the root's run modules (and what they call) count; a
    /// called module's test files do not; a root pinned below 1.6.0 keeps the old result.
    #[test]
    fn tree_walk_follows_the_roots_run_modules_only() {
        let vault = "terraform {\n  required_providers {\n    vault = { source = \"hashicorp/vault\" }\n  }\n}\nmodule \"deeper\" {\n  source = \"../deeper\"\n}\n";
        let deeper = "resource \"random_id\" \"x\" {}\n";
        let child = "resource \"null_resource\" \"x\" {}\n";
        let child_test = "run \"own\" {\n  module {\n    source = \"./helper\"\n  }\n}\n";
        let helper = "resource \"dns_record\" \"x\" {}\n";
        let files = |pin: &str| {
            vec![
                (
                    "root/main.tf".to_string(),
                    format!("{pin}module \"child\" {{\n  source = \"../child\"\n}}\n"),
                ),
                (
                    "root/tests/main.tftest.hcl".to_string(),
                    "run \"setup\" {\n  module {\n    source = \"./tests/setup\"\n  }\n}\n"
                        .to_string(),
                ),
                ("root/tests/setup/main.tf".to_string(), vault.to_string()),
                ("root/tests/deeper/main.tf".to_string(), deeper.to_string()),
                ("child/main.tf".to_string(), child.to_string()),
                ("child/main.tftest.hcl".to_string(), child_test.to_string()),
                ("child/helper/main.tf".to_string(), helper.to_string()),
            ]
        };
        let cases = [
            (
                "",
                vec![
                    "registry.terraform.io/hashicorp/null",
                    "registry.terraform.io/hashicorp/random",
                    "registry.terraform.io/hashicorp/vault",
                ],
            ),
            (
                "terraform {\n  required_version = \"~> 1.0.0\"\n}\n",
                vec!["registry.terraform.io/hashicorp/null"],
            ),
        ];
        for (pin, want) in cases {
            let owned = files(pin);
            let borrowed: Vec<(&str, &str)> = owned
                .iter()
                .map(|(p, c)| (p.as_str(), c.as_str()))
                .collect();
            let dir = dir_with(&borrowed);
            let root = dir.path().join("root");
            let tree = module_tree_requirements(
                &root,
                TERRAFORM_REGISTRY,
                &RootInputs::new(Rules::Terraform, &root, &ValueInputs::default()),
                &mut RootTests(root.clone()),
            )
            .unwrap();
            let mut addrs: Vec<String> = tree
                .requirements
                .iter()
                .map(|r| r.addr.to_string())
                .collect();
            addrs.dedup();
            assert_eq!(addrs, want, "{pin:?}");
            assert!(tree.warnings.is_empty(), "{:?}", tree.warnings);
        }
    }
}
