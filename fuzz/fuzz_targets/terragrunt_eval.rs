//! Terragrunt evaluation must answer every unit with a configuration or an error: no
//! panic, stack overflow or hang, whatever its files say (issue "Safe on an untrusted
//! checkout").
//!
//! The input is split on NUL bytes into up to four files laid out as a repository:
//! the unit's `live/unit/terragrunt.hcl`, the `live/root.hcl` it can include,
//! `live/unit/common.hcl` and `live/env.hcl` for `read_terragrunt_config`; a module
//! `modules/app` with a `main.tf` is there for sources to point at. Each input is
//! loaded as a unit, its requirements gathered, and the units of the tree found.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfsum::internals::{
    find_units, load_unit, unit_requirements, LocalModules, RootInputs, Rules, ValueInputs,
};

const FILES: [&str; 4] = [
    "live/unit/terragrunt.hcl",
    "live/root.hcl",
    "live/unit/common.hcl",
    "live/env.hcl",
];

const HOST: &str = "registry.terraform.io";

/// The repository, one per fuzzing process, rewritten for each input.
fn repo() -> &'static Path {
    static REPO: OnceLock<PathBuf> = OnceLock::new();
    REPO.get_or_init(|| {
        let repo = std::env::temp_dir().join(format!("tfsum-fuzz-terragrunt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&repo);
        std::fs::create_dir_all(repo.join("live/unit")).expect("create the fuzz repository");
        std::fs::create_dir_all(repo.join("modules/app")).expect("create the fuzz module");
        std::fs::write(
            repo.join("modules/app/main.tf"),
            "terraform {\n  required_providers {\n    null = {\n      source  = \"hashicorp/null\"\n      version = \"~> 3.0\"\n    }\n  }\n}\n",
        )
        .expect("write the fuzz module");
        repo
    })
}

fuzz_target!(|data: &[u8]| {
    let repo = repo();
    let mut parts = data.split(|&b| b == 0);
    for name in FILES {
        let path = repo.join(name);
        match parts.next() {
            Some(part) => std::fs::write(&path, part).expect("write a fuzz file"),
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    let unit = repo.join("live/unit");
    if let Ok(config) = load_unit(&unit, repo) {
        // Whatever the files say, the lock file stays beside terragrunt.hcl and generated
        // files stay in the working directory.
        assert_eq!(config.lock_file(), unit.join(".terraform.lock.hcl"));
        for file in &config.overlay {
            assert!(
                !file.name.contains('/') && !file.name.contains('\\'),
                "{file:?}"
            );
        }
        let values = ValueInputs::default();
        let inputs = RootInputs::new(Rules::Terraform, &unit, &values);
        let _ = unit_requirements(&config, HOST, &inputs, &mut LocalModules { default_host: HOST });
    }
    let _ = find_units(&[repo.join("live")], true);
});
