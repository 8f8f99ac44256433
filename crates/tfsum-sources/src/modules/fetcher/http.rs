//! http(s) sources (docs/spec/modules.md §1): archives downloaded and unpacked, pages
//! asked for their `X-Terraform-Get` location, and the go-getter addresses that registry
//! locations and those answers name, followed to the package they lead to.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use tokio::io::AsyncWriteExt as _;
use url::Url;

use super::super::archive::read_archive;
use super::super::cache::StoredPackage;
use super::super::package::Materialized;
use super::super::package::SubdirError;
use super::super::{FetchError, ModuleError, PackageFault};
use super::store::{stored_base, write_package};
use super::{join_subdir, ModuleFetcher};
use tfsum_net::download::{download, Sink, SinkError};
use tfsum_vocab::module_source::{
    parse_package_location, redacted, ArchiveFormat, Checksum, HttpSource, ModuleSource,
};
use tfsum_vocab::progress::NoProgress;

/// What a go-getter address led to.
pub(super) enum Got {
    /// An archive, unpacked and checked, not stored yet.
    Unpacked(Materialized),
    /// A git commit's package, already stored (the commit memo's).
    Git {
        package: StoredPackage,
        commit: String,
    },
}

/// How many `X-Terraform-Get` redirections one source may go through.
const MAX_INDIRECTIONS: usize = 5;

/// [`ModuleFetcher::download`] recurses through `X-Terraform-Get`, so it is boxed.
impl ModuleFetcher {
    /// A directly named http(s) source: fetched once per run, never persisted (an URL
    /// can change content at any time).
    pub(super) async fn http_package(
        &self,
        http: &HttpSource,
    ) -> Result<StoredPackage, ModuleError> {
        // The checksum is part of the identity: a wrong one must fail even after a right one.
        let key = format!("{}|{:?}|{:?}", http.url, http.archive, http.checksum);
        self.inner
            .http
            .get(&key, || async {
                if self.inner.options.offline {
                    return Err(ModuleError::Offline {
                        what: format!(
                            "{} (https module sources are never cached)",
                            redacted(http.url.as_str())
                        ),
                    });
                }
                let bare = ModuleSource::Http(HttpSource {
                    subdir: String::new(),
                    ..http.clone()
                });
                let bad = |error: SubdirError| ModuleError::Package {
                    url: redacted(http.url.as_str()),
                    error: error.into(),
                };
                match self.download(&bare, 0).await? {
                    (Got::Unpacked(package), subdir) => {
                        self.inner.fetched.fetch_add(1, Ordering::Relaxed);
                        let base = package.find_dir(&subdir).map_err(bad)?;
                        let dir = self.new_work_dir()?.keep();
                        write_package(&dir, &package)?;
                        Ok(StoredPackage { root: dir, base })
                    }
                    (Got::Git { package, .. }, subdir) => {
                        let base = stored_base(&package, &subdir).map_err(bad)?;
                        Ok(StoredPackage {
                            root: package.root,
                            base,
                        })
                    }
                }
            })
            .await
    }

    /// Gets what a go-getter address names (a registry's location, an
    /// `X-Terraform-Get` target) and returns it with the subdirectory it selects. A git
    /// commit goes through the commit memo, so it is fetched once however it is reached.
    pub(super) fn download<'a>(
        &'a self,
        source: &'a ModuleSource,
        depth: usize,
    ) -> BoxFuture<'a, Result<(Got, String), ModuleError>> {
        Box::pin(async move {
            match source {
                ModuleSource::Git(git) => {
                    let (package, commit) = self.git_package(git).await?;
                    Ok((Got::Git { package, commit }, git.subdir.clone()))
                }
                ModuleSource::Http(http) => match http.archive {
                    Some(format) => {
                        let package = self
                            .download_archive(&http.url, format, http.checksum.as_ref())
                            .await?;
                        Ok((Got::Unpacked(package), http.subdir.clone()))
                    }
                    None => {
                        if depth >= MAX_INDIRECTIONS {
                            return Err(ModuleError::Download {
                                url: redacted(http.url.as_str()),
                                error: Box::new(FetchError::TooManyRedirections(MAX_INDIRECTIONS)),
                            });
                        }
                        let target = self.terraform_get(&http.url).await?;
                        let (got, subdir) = self.download(&target, depth + 1).await?;
                        Ok((got, join_subdir(&subdir, &http.subdir)))
                    }
                },
                ModuleSource::Unsupported { getter, address } => Err(ModuleError::Unsupported {
                    getter: getter.clone(),
                    source_str: address.clone(),
                }),
                ModuleSource::Oci(oci) => {
                    let package = self.oci_unpacked(oci).await?;
                    Ok((Got::Unpacked(package), oci.subdir.clone()))
                }
                other => Err(ModuleError::Download {
                    url: other.to_string(),
                    error: Box::new(FetchError::NotFetchable),
                }),
            }
        })
    }

    /// Asks an http(s) URL where the module is (go-getter's HTTP getter): the
    /// `X-Terraform-Get` header, else a `<meta name="terraform-get">` tag. The value is
    /// a go-getter address taken as it is: go-getter v1.5.2 does not resolve `/x.tgz`
    /// against the page (it becomes a local path; checked with Terraform v1.0.3), and
    /// tfsum refuses local paths in remote answers.
    async fn terraform_get(&self, url: &Url) -> Result<ModuleSource, ModuleError> {
        let shown = redacted(url.as_str());
        let page = {
            let _permit = self.permit().await?;
            self.client()?
                .module_page(url)
                .await
                .map_err(|e| ModuleError::Download {
                    url: shown.clone(),
                    error: Box::new(e.into()),
                })?
        };
        let header = page
            .headers
            .get("X-Terraform-Get")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        let location = header
            .or_else(|| meta_terraform_get(&String::from_utf8_lossy(&page.body)))
            .ok_or_else(|| ModuleError::Download {
                url: shown.clone(),
                error: Box::new(FetchError::NoLocation),
            })?;
        parse_package_location(&location).map_err(|error| ModuleError::Download {
            url: shown,
            error: Box::new(FetchError::BadLocation {
                location: location.clone(),
                error,
            }),
        })
    }

    /// Downloads an archive into the scratch directory (capped, retried from the first
    /// byte on transient failures) and reads it.
    async fn download_archive(
        &self,
        url: &Url,
        format: ArchiveFormat,
        checksum: Option<&Checksum>,
    ) -> Result<Materialized, ModuleError> {
        let client = self.client()?;
        let shown = redacted(url.as_str());
        let work = self.new_work_dir()?;
        let file = work.path().join("archive");
        {
            let _permit = self.permit().await?;
            let cap = self.inner.options.limits.max_download_bytes;
            download(client.http(), url, cap, &NoProgress, "", || {
                Ok(FileSink::new(file.clone()))
            })
            .await
            .map_err(|e| ModuleError::Download {
                url: shown.clone(),
                error: Box::new(e.into()),
            })?;
        }
        let limits = self.inner.options.limits.clone();
        let checksum = checksum.cloned();
        let _unpacking = self.unpack_permit().await?;
        let read = tokio::task::spawn_blocking(move || {
            verify_checksum(&file, checksum.as_ref())?;
            let tree = read_archive(&file, format, &limits)?;
            Ok::<_, PackageFault>(tree.materialize()?)
        })
        .await
        .map_err(|e| ModuleError::Download {
            url: shown.clone(),
            error: Box::new(FetchError::Task(Arc::new(e))),
        })?;
        drop(work);
        read.map_err(|error| ModuleError::Package { url: shown, error })
    }
}

/// A module archive written to a file as it arrives.
pub(super) struct FileSink {
    path: PathBuf,
    file: Option<tokio::fs::File>,
}

impl FileSink {
    pub(super) fn new(path: PathBuf) -> FileSink {
        FileSink { path, file: None }
    }

    fn error(&self, e: std::io::Error) -> SinkError {
        SinkError::write(format!("cannot write {}", self.path.display()), e)
    }
}

impl Sink for FileSink {
    type Output = ();

    async fn write(&mut self, chunk: Bytes) -> Result<(), SinkError> {
        if self.file.is_none() {
            let file = tokio::fs::File::create(&self.path)
                .await
                .map_err(|e| self.error(e))?;
            self.file = Some(file);
        }
        match &mut self.file {
            Some(file) => file
                .write_all(&chunk)
                .await
                .map_err(|e| SinkError::write("cannot write", e)),
            None => Ok(()),
        }
    }

    async fn finish(mut self) -> Result<(), SinkError> {
        match self.file.take() {
            Some(mut file) => file.flush().await.map_err(|e| self.error(e)),
            // An empty body: an empty file, which the archive reader refuses.
            None => tokio::fs::write(&self.path, b"")
                .await
                .map_err(|e| self.error(e)),
        }
    }

    async fn abandon(self) {}
}

/// go-getter's `?checksum=`: the downloaded archive must have the digest given.
fn verify_checksum(file: &Path, checksum: Option<&Checksum>) -> Result<(), PackageFault> {
    use sha2::Digest as _;
    let Some(checksum) = checksum else {
        return Ok(());
    };
    let bytes = std::fs::read(file).map_err(|e| PackageFault::Unreadable(Arc::new(e)))?;
    let (got, want) = match checksum {
        Checksum::Sha256(want) => (sha2::Sha256::digest(&bytes).to_vec(), want.to_vec()),
        Checksum::Sha512(want) => (sha2::Sha512::digest(&bytes).to_vec(), want.clone()),
    };
    if got != want {
        return Err(PackageFault::Checksum {
            got: hex::encode(got),
            want: hex::encode(want),
        });
    }
    Ok(())
}
/// The `content` of a `<meta name="terraform-get" content="…">` tag (go-getter's
/// `parseMeta`), attributes in either order, quotes single or double.
fn meta_terraform_get(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let mut from = 0;
    while let Some(start) = lower[from..].find("<meta") {
        let start = from + start;
        let end = start + lower[start..].find('>')?;
        let tag = &html[start..end];
        if attribute(tag, "name").is_some_and(|n| n.eq_ignore_ascii_case("terraform-get")) {
            return attribute(tag, "content").filter(|c| !c.is_empty());
        }
        from = end;
    }
    None
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name) {
        let i = from + i;
        from = i + name.len();
        let before_ok = i == 0 || lower.as_bytes()[i - 1].is_ascii_whitespace();
        let rest = tag[i + name.len()..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value = rest[1..].trim_start();
        let quote = value.chars().next()?;
        if quote == '"' || quote == '\'' {
            let inner = &value[1..];
            return inner.find(quote).map(|j| inner[..j].to_string());
        }
        let end = value.find(char::is_whitespace).unwrap_or(value.len());
        return Some(value[..end].to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_tags() {
        for (html, want) in [
            (
                r#"<html><head><meta name="terraform-get" content="git::https://h/r.git?ref=v1"></head>"#,
                Some("git::https://h/r.git?ref=v1"),
            ),
            (
                r#"<META content='./m.zip' NAME='terraform-get' />"#,
                Some("./m.zip"),
            ),
            (
                r#"<meta name="description" content="x"><meta name=terraform-get content=/a.tgz>"#,
                Some("/a.tgz"),
            ),
            (r#"<meta name="go-import" content="x">"#, None),
            ("no tags at all", None),
        ] {
            assert_eq!(meta_terraform_get(html).as_deref(), want, "{html}");
        }
    }
}
