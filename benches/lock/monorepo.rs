//! The synthetic monorepo: which providers exist (with realistic package sizes), which local
//! modules use them, which roots call which modules with which version constraints, and
//! the files that say so.
//!
//! Roots live in `envs/<env>/<region>/<service>/`; they call shared modules in
//! `modules/<name>/`, some of which call other modules. Each root constrains the providers
//! it declares with one of several "tracks" (`~> 4.0`, `= 4.66.1`, `>= 5.0`, …) chosen from
//! its env, region and service, so different roots land on different versions; modules only
//! add loose lower bounds that every track satisfies. [`Monorepo::expected`] resolves each
//! root the way `terraform init` does, so the benchmark knows the exact set of packages a
//! correct tool must fetch without asking the tool.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::Path;

/// Every root locks these.
pub const PLATFORMS: &[&str] = &[
    "linux_amd64",
    "darwin_arm64",
    "darwin_amd64",
    "windows_amd64",
];

/// One provider of the catalogue, all under `hashicorp/` on the fake registry.
pub struct Provider {
    pub type_: &'static str,
    /// Zip size of one package at scale 1.0, in MB (10^6 bytes); roughly the real
    /// proportions of the `linux_amd64` packages.
    pub megabytes: f64,
    /// Published versions, oldest first; prereleases are never chosen by a range.
    pub versions: &'static [&'static str],
    /// Constraints a root declaring this provider picks from.
    pub tracks: &'static [&'static str],
    /// The lower bound each module using this provider declares (satisfied by every track).
    pub module_constraint: Option<&'static str>,
    /// A resource type of the provider, so modules use it as real code would.
    pub resource: &'static str,
}

pub const PROVIDERS: &[Provider] = &[
    Provider {
        type_: "aws",
        megabytes: 60.0,
        versions: &[
            "3.75.2",
            "3.76.1",
            "4.66.1",
            "4.67.0",
            "5.30.0",
            "5.31.0",
            "6.0.0-beta1",
        ],
        tracks: &["~> 4.0", ">= 5.0", "~> 3.76", "= 4.66.1"],
        module_constraint: Some(">= 3.0"),
        resource: "aws_s3_bucket",
    },
    Provider {
        type_: "azurerm",
        megabytes: 45.0,
        versions: &["2.99.0", "3.84.0", "3.85.0"],
        tracks: &["~> 3.0", "= 2.99.0"],
        module_constraint: Some(">= 2.0"),
        resource: "azurerm_resource_group",
    },
    Provider {
        type_: "google",
        megabytes: 30.0,
        versions: &["4.83.0", "4.84.0", "5.9.0", "5.10.0"],
        tracks: &[">= 5.0", "~> 4.0"],
        module_constraint: Some(">= 4.0"),
        resource: "google_storage_bucket",
    },
    Provider {
        type_: "kubernetes",
        megabytes: 22.0,
        versions: &["2.22.0", "2.23.0", "2.24.0"],
        tracks: &["~> 2.23.0", ">= 2.0"],
        module_constraint: None,
        resource: "kubernetes_namespace",
    },
    Provider {
        type_: "helm",
        megabytes: 14.0,
        versions: &["2.11.0", "2.12.0", "2.12.1"],
        tracks: &["~> 2.12", "~> 2.11.0"],
        module_constraint: Some(">= 2.0"),
        resource: "helm_release",
    },
    Provider {
        type_: "tls",
        megabytes: 5.0,
        versions: &["4.0.4", "4.0.5"],
        tracks: &["~> 4.0", "= 4.0.4"],
        module_constraint: Some(">= 3.0"),
        resource: "tls_private_key",
    },
    Provider {
        type_: "random",
        megabytes: 5.0,
        versions: &["3.5.1", "3.6.0"],
        tracks: &["~> 3.5.0", ">= 3.1"],
        module_constraint: Some(">= 3.0"),
        resource: "random_pet",
    },
    Provider {
        type_: "null",
        megabytes: 4.0,
        versions: &["3.2.1", "3.2.2"],
        tracks: &["= 3.2.1", "~> 3.2"],
        module_constraint: None,
        resource: "null_resource",
    },
    Provider {
        type_: "local",
        megabytes: 4.0,
        versions: &["2.4.0", "2.4.1"],
        tracks: &[],
        module_constraint: Some(">= 2.0"),
        resource: "local_file",
    },
    Provider {
        type_: "time",
        megabytes: 3.5,
        versions: &["0.9.1", "0.10.0"],
        tracks: &["~> 0.9.0", ">= 0.10"],
        module_constraint: Some(">= 0.9"),
        resource: "time_sleep",
    },
];

/// A shared module under `modules/`: the providers it uses and the modules it calls.
struct Module {
    name: &'static str,
    providers: &'static [&'static str],
    calls: &'static [&'static str],
}

const MODULES: &[Module] = &[
    Module {
        name: "naming",
        providers: &["random"],
        calls: &[],
    },
    Module {
        name: "vpc",
        providers: &["aws"],
        calls: &["naming"],
    },
    Module {
        name: "iam",
        providers: &["aws"],
        calls: &[],
    },
    Module {
        name: "eks",
        providers: &["aws", "tls"],
        calls: &["vpc", "iam"],
    },
    Module {
        name: "k8s-addons",
        providers: &["kubernetes", "helm"],
        calls: &["naming"],
    },
    Module {
        name: "rds",
        providers: &["aws", "random"],
        calls: &["naming"],
    },
    Module {
        name: "dns",
        providers: &["aws", "google"],
        calls: &[],
    },
    Module {
        name: "gcp-project",
        providers: &["google", "random", "time"],
        calls: &["naming"],
    },
    Module {
        name: "azure-network",
        providers: &["azurerm"],
        calls: &[],
    },
    Module {
        name: "hooks",
        providers: &["null", "local"],
        calls: &[],
    },
    Module {
        name: "certs",
        providers: &["tls", "local", "time"],
        calls: &[],
    },
    Module {
        name: "monitoring",
        providers: &["aws", "google", "null"],
        calls: &["hooks"],
    },
];

/// A kind of root: the modules it calls and the providers it declares itself.
struct Service {
    name: &'static str,
    modules: &'static [&'static str],
    declares: &'static [&'static str],
}

const SERVICES: &[Service] = &[
    Service {
        name: "network",
        modules: &["vpc", "hooks"],
        declares: &["aws", "null"],
    },
    Service {
        name: "eks",
        modules: &["eks", "k8s-addons"],
        declares: &["aws", "kubernetes", "helm", "tls"],
    },
    Service {
        name: "rds",
        modules: &["rds", "hooks"],
        declares: &["aws", "random"],
    },
    Service {
        name: "dns",
        modules: &["dns", "certs"],
        declares: &["aws", "google", "tls"],
    },
    Service {
        name: "iam",
        modules: &["iam"],
        declares: &["aws"],
    },
    Service {
        name: "monitoring",
        modules: &["monitoring"],
        declares: &["aws", "google", "time"],
    },
    Service {
        name: "edge",
        modules: &["azure-network", "certs"],
        declares: &["azurerm", "tls"],
    },
    Service {
        name: "data",
        modules: &["gcp-project", "rds"],
        declares: &["google", "aws", "random"],
    },
    Service {
        name: "apps",
        modules: &["k8s-addons"],
        declares: &["kubernetes", "helm"],
    },
    Service {
        name: "secrets",
        modules: &["certs", "iam", "hooks"],
        declares: &["aws", "tls", "null", "time"],
    },
];

const ENVS: &[&str] = &["dev", "staging", "prod", "sandbox", "qa"];
const REGIONS: &[&str] = &[
    "us-east-1",
    "us-west-2",
    "eu-west-1",
    "eu-central-1",
    "ap-southeast-2",
    "ap-northeast-1",
];

/// One root module of the generated repository.
pub struct Root {
    /// Relative to the repository, `/`-separated.
    pub dir: String,
    env: usize,
    region: usize,
    service: usize,
}

/// The repository layout and what a correct tool must conclude about it.
pub struct Monorepo {
    pub roots: Vec<Root>,
}

/// A (provider type, version) pair a root needs.
pub type Package = (&'static str, String);

impl Monorepo {
    /// `count` roots, spread over services first, then regions, then envs (more envs are
    /// made up when the named ones run out).
    pub fn new(count: usize) -> Self {
        let roots = (0..count)
            .map(|i| {
                let service = i % SERVICES.len();
                let region = (i / SERVICES.len()) % REGIONS.len();
                let env = i / (SERVICES.len() * REGIONS.len());
                let env_name = ENVS
                    .get(env)
                    .map_or_else(|| format!("team-{env:02}"), |e| e.to_string());
                Root {
                    dir: format!(
                        "envs/{env_name}/{}/{}",
                        REGIONS[region], SERVICES[service].name
                    ),
                    env,
                    region,
                    service,
                }
            })
            .collect();
        Monorepo { roots }
    }

    /// The root constraint of `provider` in `root`, when the root declares it.
    fn track(root: &Root, provider: &Provider) -> Option<&'static str> {
        let service = &SERVICES[root.service];
        if !service.declares.contains(&provider.type_) || provider.tracks.is_empty() {
            return None;
        }
        // Mixes env, service, region and provider so every track is used by some roots and
        // neighbouring roots disagree.
        let position = PROVIDERS
            .iter()
            .position(|p| p.type_ == provider.type_)
            .unwrap_or(0);
        let pick = root.env + root.service + position + usize::from(root.region.is_multiple_of(3));
        Some(provider.tracks[pick % provider.tracks.len()])
    }

    /// The version of each provider `root` must lock, chosen as `terraform init` would: the
    /// newest non-prerelease version satisfying every constraint in its module tree.
    pub fn expected(&self, root: &Root) -> BTreeMap<&'static str, String> {
        let mut constraints: BTreeMap<&'static str, Vec<&'static str>> = BTreeMap::new();
        for provider in PROVIDERS {
            if let Some(track) = Self::track(root, provider) {
                constraints.entry(provider.type_).or_default().push(track);
            }
        }
        let mut seen = BTreeSet::new();
        let mut pending: Vec<&str> = SERVICES[root.service].modules.to_vec();
        while let Some(name) = pending.pop() {
            if !seen.insert(name) {
                continue;
            }
            let module = module(name);
            for type_ in module.providers {
                let list = constraints.entry(provider(type_).type_).or_default();
                list.extend(provider(type_).module_constraint);
            }
            pending.extend(module.calls);
        }
        constraints
            .into_iter()
            .map(|(type_, list)| (type_, newest_matching(provider(type_), &list)))
            .collect()
    }

    /// Every package some root needs, with the roots needing it.
    pub fn needed(&self) -> BTreeMap<Package, usize> {
        let mut needed = BTreeMap::new();
        for root in &self.roots {
            for (type_, version) in self.expected(root) {
                *needed.entry((type_, version)).or_insert(0) += 1;
            }
        }
        needed
    }

    /// Writes the repository under `base`, with provider sources on `host`.
    pub fn write(&self, base: &Path, host: &str) -> io::Result<()> {
        for module in MODULES {
            let dir = base.join("modules").join(module.name);
            std::fs::create_dir_all(&dir)?;
            std::fs::write(dir.join("versions.tf"), module_versions_tf(module, host))?;
            std::fs::write(dir.join("main.tf"), module_main_tf(module))?;
        }
        for root in &self.roots {
            let dir = base.join(&root.dir);
            std::fs::create_dir_all(&dir)?;
            std::fs::write(dir.join("backend.tf"), self.root_backend_tf(root))?;
            std::fs::write(dir.join("versions.tf"), self.root_versions_tf(root, host))?;
            std::fs::write(dir.join("providers.tf"), self.root_providers_tf(root))?;
            std::fs::write(dir.join("main.tf"), root_main_tf(root))?;
        }
        Ok(())
    }

    fn root_backend_tf(&self, root: &Root) -> String {
        let (env, region, service) = root_parts(root);
        format!(
            "terraform {{\n  backend \"s3\" {{\n    bucket = \"acme-tfstate-{env}\"\n    \
             key    = \"{region}/{service}/terraform.tfstate\"\n    region = \"us-east-1\"\n  \
             }}\n}}\n"
        )
    }

    fn root_versions_tf(&self, root: &Root, host: &str) -> String {
        let mut out = String::from("terraform {\n  required_providers {\n");
        for provider in PROVIDERS {
            if let Some(track) = Self::track(root, provider) {
                out += &requirement(provider.type_, host, Some(track));
            }
        }
        out += "  }\n}\n";
        out
    }

    fn root_providers_tf(&self, root: &Root) -> String {
        let (env, region, _) = root_parts(root);
        let declares = SERVICES[root.service].declares;
        let mut out = String::new();
        if declares.contains(&"aws") {
            out += &format!("provider \"aws\" {{\n  region = \"{region}\"\n}}\n\n");
        }
        if declares.contains(&"google") {
            out += &format!(
                "provider \"google\" {{\n  project = \"acme-{env}\"\n  region  = \"{}\"\n}}\n\n",
                region.replace("us-east-1", "us-east1")
            );
        }
        if declares.contains(&"azurerm") {
            out += "provider \"azurerm\" {\n  features {}\n}\n\n";
        }
        out
    }
}

fn root_parts(root: &Root) -> (&str, &str, &str) {
    let mut parts = root.dir.split('/').skip(1);
    let env = parts.next().unwrap_or("");
    let region = parts.next().unwrap_or("");
    let service = parts.next().unwrap_or("");
    (env, region, service)
}

fn root_main_tf(root: &Root) -> String {
    let (env, region, service) = root_parts(root);
    SERVICES[root.service]
        .modules
        .iter()
        .map(|name| {
            format!(
                "module \"{}\" {{\n  source = \"../../../../modules/{name}\"\n  \
                 name   = \"{env}-{region}-{service}\"\n}}\n\n",
                name.replace('-', "_")
            )
        })
        .collect()
}

fn module_versions_tf(module: &Module, host: &str) -> String {
    let mut out = String::from("terraform {\n  required_providers {\n");
    for type_ in module.providers {
        out += &requirement(type_, host, provider(type_).module_constraint);
    }
    out += "  }\n}\n";
    out
}

fn module_main_tf(module: &Module) -> String {
    let mut out = String::from("variable \"name\" {\n  type = string\n}\n\n");
    for call in module.calls {
        out += &format!(
            "module \"{}\" {{\n  source = \"../{call}\"\n  name   = var.name\n}}\n\n",
            call.replace('-', "_")
        );
    }
    for type_ in module.providers {
        out += &format!(
            "resource \"{}\" \"this\" {{\n  # {}\n}}\n\n",
            provider(type_).resource,
            module.name
        );
    }
    out
}

fn requirement(type_: &str, host: &str, constraint: Option<&str>) -> String {
    let version = constraint.map_or_else(String::new, |c| format!("      version = \"{c}\"\n"));
    format!("    {type_} = {{\n      source  = \"{host}/hashicorp/{type_}\"\n{version}    }}\n")
}

fn module(name: &str) -> &'static Module {
    MODULES
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("benchmark catalogue: no module {name}"))
}

/// The catalogue entry of `type_`; the catalogue is static, so a miss is a bug here.
pub fn provider(type_: &str) -> &'static Provider {
    PROVIDERS
        .iter()
        .find(|p| p.type_ == type_)
        .unwrap_or_else(|| panic!("benchmark catalogue: no provider {type_}"))
}

/// A release version; prereleases sort below their release and are skipped by ranges.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Version {
    parts: [u64; 3],
    release: bool,
}

fn parse_version(text: &str) -> Version {
    let (core, pre) = match text.split_once('-') {
        Some((core, _)) => (core, true),
        None => (text, false),
    };
    let mut parts = [0; 3];
    for (slot, part) in parts.iter_mut().zip(core.split('.')) {
        *slot = part
            .parse()
            .unwrap_or_else(|_| panic!("benchmark catalogue: bad version {text}"));
    }
    Version {
        parts,
        release: !pre,
    }
}

/// Whether `version` satisfies one constraint of the forms the catalogue uses:
/// `= X.Y.Z`, `>= X[.Y[.Z]]` and `~> X.Y[.Z]`.
fn satisfies(version: Version, constraint: &str) -> bool {
    let (op, operand) = constraint
        .split_once(' ')
        .unwrap_or_else(|| panic!("benchmark catalogue: bad constraint {constraint}"));
    let bound = parse_version(operand);
    let segments = operand.split('.').count();
    match op {
        "=" => version == bound,
        ">=" => version.parts >= bound.parts,
        "~>" => {
            let mut upper = bound.parts;
            upper[segments - 2] += 1;
            for part in upper.iter_mut().skip(segments - 1) {
                *part = 0;
            }
            version.parts >= bound.parts && version.parts < upper
        }
        _ => panic!("benchmark catalogue: unsupported operator in {constraint}"),
    }
}

fn newest_matching(provider: &Provider, constraints: &[&str]) -> String {
    provider
        .versions
        .iter()
        .map(|text| (parse_version(text), *text))
        .filter(|(v, _)| v.release && constraints.iter().all(|c| satisfies(*v, c)))
        .max_by_key(|(v, _)| *v)
        .map(|(_, text)| text.to_owned())
        .unwrap_or_else(|| {
            panic!(
                "benchmark catalogue: no {} version satisfies {constraints:?}",
                provider.type_
            )
        })
}

/// How many shared modules the repository has.
pub fn module_count() -> usize {
    MODULES.len()
}

/// The shared modules' directories, relative to the repository.
pub fn module_dirs() -> impl Iterator<Item = String> {
    MODULES.iter().map(|m| format!("modules/{}", m.name))
}
