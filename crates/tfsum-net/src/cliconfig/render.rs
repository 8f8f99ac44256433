//! Writing a CLI configuration back out: the user's configuration as tfsum read it
//! (`host`, `credentials` and OpenTofu's OCI credentials blocks, the
//! `provider_installation` methods), with a `filesystem_mirror` in front that installs
//! the providers `tfsum mirror` placed, or an `oci_mirror` for those it pushed.
//! Terraform and OpenTofu read it through `TF_CLI_CONFIG_FILE` (spec §8).

use std::fmt::Write as _;
use std::path::Path;

use super::installation::{HostPattern, MethodLocation, ProviderPattern};
use super::oci::OciCredential;
use super::CliConfig;
use tfsum_vocab::addr::ProviderAddr;

/// The text of a CLI configuration: `config`'s hosts and credentials, then a
/// `provider_installation` block whose first method is `filesystem_mirror { path = dir,
/// include = mirrored }`, followed by the user's own methods (or `direct`) with the
/// mirrored providers excluded, so that nothing else is asked for them.
pub fn with_mirror(config: &CliConfig, dir: &Path, mirrored: &[ProviderAddr]) -> String {
    let names: Vec<String> = mirrored.iter().map(ToString::to_string).collect();
    let front = format!(
        "  filesystem_mirror {{\n    path    = {}\n    include = {}\n  }}\n",
        quote(&dir.to_string_lossy()),
        list(&names)
    );
    render(
        config,
        "# Written by tfsum mirror: your CLI configuration, with the mirrored providers\n\
         # installed from the directory tfsum filled. Use it with TF_CLI_CONFIG_FILE.\n",
        &front,
        &names,
    )
}

/// As [`with_mirror`], with OpenTofu's `oci_mirror { repository_template = template }`
/// in front: for `tfsum mirror --layout oci`. `template` is an HCL string template
/// (`${namespace}`), written as it is.
pub fn with_oci_mirror(config: &CliConfig, template: &str, mirrored: &[ProviderAddr]) -> String {
    let names: Vec<String> = mirrored.iter().map(ToString::to_string).collect();
    render(
        config,
        "# Written by tfsum mirror: your CLI configuration, with the mirrored providers\n\
         # installed from the OCI registry tfsum filled. Use it with TF_CLI_CONFIG_FILE.\n",
        &oci_mirror_block(template, &names),
        &names,
    )
}

/// A `provider_installation` block that installs `mirrored` from the repositories
/// `template` names and every other provider from its registry: what `tfsum mirror
/// --layout oci` tells its user to add.
pub fn oci_installation(template: &str, mirrored: &[ProviderAddr]) -> String {
    let names: Vec<String> = mirrored.iter().map(ToString::to_string).collect();
    format!(
        "provider_installation {{\n{}  direct {{\n    exclude = {}\n  }}\n}}\n",
        oci_mirror_block(template, &names),
        list(&names)
    )
}

/// The `oci_mirror` method that installs `names` from the repositories `template` names.
fn oci_mirror_block(template: &str, names: &[String]) -> String {
    format!(
        "  oci_mirror {{\n    repository_template = {}\n    include             = {}\n  }}\n",
        quote(template),
        list(names)
    )
}

fn render(config: &CliConfig, header: &str, front: &str, names: &[String]) -> String {
    let mut out = String::from(header);
    for (host, services) in &config.hosts {
        let _ = writeln!(out, "\nhost {} {{\n  services = {{", quote(host.as_str()));
        for (id, value) in &services.services {
            let value = match value {
                serde_json::Value::String(s) => quote(s),
                other => other.to_string(),
            };
            let _ = writeln!(out, "    {} = {value}", quote(id));
        }
        out.push_str("  }\n}\n");
    }
    for (host, token) in &config.credentials {
        let _ = writeln!(
            out,
            "\ncredentials {} {{\n  token = {}\n}}",
            quote(host.as_str()),
            quote(token.token.expose())
        );
    }
    oci_credentials(&mut out, config);
    out.push_str("\nprovider_installation {\n");
    out.push_str(front);
    let methods = config
        .provider_installation()
        .map(|i| i.methods.as_slice())
        .unwrap_or_default();
    if methods.is_empty() {
        let _ = writeln!(out, "  direct {{\n    exclude = {}\n  }}", list(names));
    }
    for method in methods {
        let mut exclude: Vec<String> = method.exclude.iter().map(pattern).collect();
        exclude.extend(names.iter().cloned());
        let include: Vec<String> = method.include.iter().map(pattern).collect();
        let filters = |out: &mut String| {
            if !include.is_empty() {
                let _ = writeln!(out, "    include = {}", list(&include));
            }
            let _ = writeln!(out, "    exclude = {}", list(&exclude));
        };
        match &method.location {
            MethodLocation::Direct => {
                out.push_str("  direct {\n");
                filters(&mut out);
            }
            MethodLocation::FilesystemMirror(path) => {
                out.push_str("  filesystem_mirror {\n");
                let _ = writeln!(out, "    path    = {}", quote(&path.to_string_lossy()));
                filters(&mut out);
            }
            MethodLocation::NetworkMirror(url) => {
                out.push_str("  network_mirror {\n");
                let _ = writeln!(out, "    url     = {}", quote(url));
                filters(&mut out);
            }
            MethodLocation::OciMirror(template) => {
                out.push_str("  oci_mirror {\n");
                let _ = writeln!(out, "    repository_template = {}", quote(template));
                filters(&mut out);
            }
            MethodLocation::DevOverrides(overrides) => {
                out.push_str("  dev_overrides {\n");
                for (provider, path) in overrides {
                    let _ = writeln!(out, "    {} = {}", quote(provider), quote(path));
                }
            }
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// The user's `oci_credentials` and `oci_default_credentials` blocks, so that the
/// configuration written reaches the same registries as the one read.
fn oci_credentials(out: &mut String, config: &CliConfig) {
    for block in &config.oci_credentials {
        let _ = writeln!(out, "\noci_credentials {} {{", quote(&block.prefix));
        match &block.credential {
            OciCredential::Basic { username, password } => {
                let _ = writeln!(out, "  username = {}", quote(username));
                let _ = writeln!(out, "  password = {}", quote(password.expose()));
            }
            OciCredential::OAuth {
                access_token,
                refresh_token,
            } => {
                let _ = writeln!(out, "  access_token  = {}", quote(access_token.expose()));
                let _ = writeln!(out, "  refresh_token = {}", quote(refresh_token.expose()));
            }
            OciCredential::Helper(helper) => {
                let _ = writeln!(out, "  docker_credentials_helper = {}", quote(helper));
            }
        }
        out.push_str("}\n");
    }
    for block in &config.oci_default_credentials {
        out.push_str("\noci_default_credentials {\n");
        let _ = writeln!(
            out,
            "  discover_ambient_credentials = {}",
            block.discover_ambient
        );
        if let Some(files) = &block.config_files {
            let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            let _ = writeln!(out, "  docker_style_config_files = {}", list(&files));
        }
        if let Some(helper) = &block.helper {
            let _ = writeln!(out, "  docker_credentials_helper = {}", quote(helper));
        }
        out.push_str("}\n");
    }
}

/// A string literal HCL reads back as `s` (JSON's escapes are HCL's).
fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// An include/exclude pattern as written.
fn pattern(p: &ProviderPattern) -> String {
    let part = |s: &Option<String>| s.clone().unwrap_or_else(|| "*".to_string());
    let tail = format!("{}/{}", part(&p.namespace), part(&p.r#type));
    match &p.host {
        HostPattern::Default => tail,
        HostPattern::Any => format!("*/{tail}"),
        HostPattern::Exact(host) => format!("{}/{tail}", host.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hosts and credentials carry over; the mirror comes first and the user's own
    /// methods exclude what it holds; the result reads back as the same configuration.
    #[test]
    fn renders_a_configuration_that_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.tfrc");
        std::fs::write(
            &user,
            r#"
host "registry.example.com" {
  services = { "providers.v1" = "http://127.0.0.1:1/v1/providers/" }
}
credentials "registry.example.com" { token = "s3cr\"et" }
provider_installation {
  network_mirror {
    url = "https://mirror.example.com/"
    include = ["example.com/*/*"]
  }
  direct {}
}
"#,
        )
        .unwrap();
        let config = super::super::load_file(&user).unwrap();
        let aws = ProviderAddr::parse("hashicorp/aws", "registry.terraform.io").unwrap();
        let text = with_mirror(&config, Path::new("/srv/providers"), &[aws]);
        let written = dir.path().join("mirror.tfrc");
        std::fs::write(&written, &text).unwrap();
        let back = super::super::load_file(&written).unwrap();
        assert_eq!(
            back.hosts.values().next().unwrap().services,
            config.hosts.values().next().unwrap().services
        );
        assert_eq!(
            back.credentials.keys().collect::<Vec<_>>(),
            config.credentials.keys().collect::<Vec<_>>()
        );
        let token = back
            .credentials
            .values()
            .next()
            .unwrap()
            .token
            .expose()
            .to_string();
        assert_eq!(token, "s3cr\"et");
        let methods = &back.provider_installation().unwrap().methods;
        assert_eq!(methods.len(), 3);
        assert_eq!(
            methods[0].location,
            MethodLocation::FilesystemMirror("/srv/providers".into())
        );
        let mirrored = ProviderPattern::parse("registry.terraform.io/hashicorp/aws").unwrap();
        assert_eq!(methods[0].include, std::slice::from_ref(&mirrored));
        assert!(methods[1].exclude.contains(&mirrored) && methods[2].exclude.contains(&mirrored));
        assert_eq!(methods[2].location, MethodLocation::Direct);
    }

    /// The OCI variant: an `oci_mirror` in front whose template reads back as written
    /// (`${…}` included), and the user's OCI credentials carried over.
    #[test]
    fn renders_an_oci_mirror_that_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.tfrc");
        std::fs::write(
            &user,
            r#"
oci_credentials "ghcr.io/acme" {
  username = "me"
  password = "s3cret"
}
oci_default_credentials {
  docker_credentials_helper = "desktop"
}
"#,
        )
        .unwrap();
        let config = super::super::load_file(&user).unwrap();
        let aws = ProviderAddr::parse("hashicorp/aws", "registry.opentofu.org").unwrap();
        let template = "ghcr.io/acme/providers/${namespace}/${type}";
        let text = with_oci_mirror(&config, template, std::slice::from_ref(&aws));
        let written = dir.path().join("oci.tfrc");
        std::fs::write(&written, &text).unwrap();
        let back = super::super::load_file(&written).unwrap();
        let credential = |c: &CliConfig| {
            c.oci_credentials
                .iter()
                .map(|b| (b.prefix.clone(), b.credential.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(credential(&back), credential(&config));
        assert_eq!(
            back.oci_default_credentials[0].helper.as_deref(),
            Some("desktop")
        );
        let methods = &back.provider_installation().unwrap().methods;
        assert_eq!(
            methods[0].location,
            MethodLocation::OciMirror(template.to_string())
        );
        assert_eq!(
            methods[0].include,
            [ProviderPattern::parse("registry.opentofu.org/hashicorp/aws").unwrap()]
        );
        assert_eq!(methods[1].location, MethodLocation::Direct);
        let block = oci_installation(template, &[aws]);
        assert!(
            block.starts_with("provider_installation {\n  oci_mirror {\n"),
            "{block}"
        );
        assert!(
            block.contains("direct {\n    exclude = [\"registry.opentofu.org/hashicorp/aws\"]"),
            "{block}"
        );
    }
}
