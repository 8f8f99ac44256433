//! Git's object hashing, so that a cached git package can be checked against the commit
//! id it is stored under without asking the server (docs/spec/modules.md §6).
//!
//! A git object's id is the hash of `"<type> <size>\0" + content` (SHA-1 for 40-hex
//! ids, SHA-256 for 64-hex ones). A commit object names its root tree; a tree object is
//! its entries, each `"<mode> <name>\0" + raw id`, in the order stored. So from the raw
//! commit object and the listing `git ls-tree -r -t -z --full-tree` prints (every
//! entry's mode, type, id and path), every tree object can be rebuilt and hashed: when
//! the commit hashes to its id and each rebuilt tree to the id its parent names, every
//! blob id in the listing is the one the commit holds, and a kept file is genuine when
//! its content hashes to its blob id. SHA-1 goes through collision detection (the
//! sha1dc algorithm git itself uses), so a crafted colliding object is refused.

use std::collections::BTreeMap;

use sha2::Digest as _;

/// One line of the listing: `<mode> <type> <id>\t<path>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListedEntry {
    pub mode: String,
    pub kind: String,
    pub id: String,
    pub path: String,
}

/// The id of an object of `kind` with `content`, in the hash the id length names.
pub(crate) fn object_id(kind: &str, content: &[u8], id_len: usize) -> Result<String, String> {
    let mut bytes = format!("{kind} {}\0", content.len()).into_bytes();
    bytes.extend_from_slice(content);
    match id_len {
        40 => {
            let result = sha1_checked::Sha1::try_digest(&bytes);
            if result.has_collision() {
                return Err(format!("a {kind} object is a SHA-1 collision attempt"));
            }
            Ok(hex::encode(result.hash()))
        }
        64 => Ok(hex::encode(sha2::Sha256::digest(&bytes))),
        _ => Err(format!("{id_len} is not the length of a git object id")),
    }
}

/// Parses `ls-tree -r -t -z` output.
pub(crate) fn parse_listing(listing: &[u8]) -> Result<Vec<ListedEntry>, String> {
    let mut out = Vec::new();
    for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let record = std::str::from_utf8(record)
            .map_err(|_| "a path in the listing is not UTF-8".to_string())?;
        let bad = || format!("unexpected listing line {record:?}");
        let (meta, path) = record.split_once('\t').ok_or_else(bad)?;
        let mut fields = meta.split(' ');
        let (Some(mode), Some(kind), Some(id), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(bad());
        };
        out.push(ListedEntry {
            mode: mode.to_string(),
            kind: kind.to_string(),
            id: id.to_ascii_lowercase(),
            path: path.to_string(),
        });
    }
    Ok(out)
}

/// Checks that `commit_object` is the commit `commit` and that `entries` are exactly
/// the trees it holds; `Ok` means every id in `entries` is genuine.
pub(crate) fn verify_listing(
    commit: &str,
    commit_object: &[u8],
    entries: &[ListedEntry],
) -> Result<(), String> {
    let id_len = commit.len();
    if object_id("commit", commit_object, id_len)? != commit.to_ascii_lowercase() {
        return Err(format!("the stored commit object is not commit {commit}"));
    }
    let root = commit_object
        .strip_prefix(b"tree ")
        .and_then(|rest| rest.get(..id_len))
        .and_then(|id| std::str::from_utf8(id).ok())
        .ok_or_else(|| "the commit object names no tree".to_string())?
        .to_ascii_lowercase();
    // Each directory's entries in listing order (git's stored order).
    let mut trees: BTreeMap<&str, Vec<u8>> = BTreeMap::new();
    trees.insert("", Vec::new());
    for entry in entries {
        if entry.kind == "tree" {
            trees.entry(entry.path.as_str()).or_default();
        }
    }
    let mut expected: Vec<(&str, &str)> = vec![("", root.as_str())];
    for entry in entries {
        let (parent, name) = match entry.path.rsplit_once('/') {
            Some((parent, name)) => (parent, name),
            None => ("", entry.path.as_str()),
        };
        let raw = hex::decode(&entry.id)
            .ok()
            .filter(|raw| raw.len() * 2 == id_len)
            .ok_or_else(|| format!("bad object id {:?} for {:?}", entry.id, entry.path))?;
        let object = trees
            .get_mut(parent)
            .ok_or_else(|| format!("{:?} is listed without its directory", entry.path))?;
        // Modes are stored without leading zeros (`40000` for a tree).
        object.extend_from_slice(entry.mode.trim_start_matches('0').as_bytes());
        object.push(b' ');
        object.extend_from_slice(name.as_bytes());
        object.push(0);
        object.extend_from_slice(&raw);
        if entry.kind == "tree" {
            expected.push((entry.path.as_str(), entry.id.as_str()));
        }
    }
    for (path, id) in expected {
        let object = trees.get(path).map(Vec::as_slice).unwrap_or_default();
        if object_id("tree", object, id_len)? != id {
            let shown = if path.is_empty() { "/" } else { path };
            return Err(format!(
                "the stored listing does not match tree {id} ({shown})"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids as git computes them (`git hash-object`, `git mktree`), and a listing
    /// checked, then tampered with.
    #[test]
    fn ids_and_listings() {
        assert_eq!(
            object_id("blob", b"", 40).unwrap(),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            object_id("tree", b"", 40).unwrap(),
            "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        );
        assert!(object_id("blob", b"", 12).is_err());

        let blob = object_id("blob", b"# a\n", 40).unwrap();
        let mut sub = b"100644 a.tf\0".to_vec();
        sub.extend(hex::decode(&blob).unwrap());
        let sub_id = object_id("tree", &sub, 40).unwrap();
        let mut root = b"40000 m\0".to_vec();
        root.extend(hex::decode(&sub_id).unwrap());
        let root_id = object_id("tree", &root, 40).unwrap();
        let commit_object = format!("tree {root_id}\nauthor a <a> 0 +0000\n\nm\n").into_bytes();
        let commit = object_id("commit", &commit_object, 40).unwrap();
        let listing = format!("040000 tree {sub_id}\tm\0100644 blob {blob}\tm/a.tf\0");
        let entries = parse_listing(listing.as_bytes()).unwrap();
        assert_eq!(verify_listing(&commit, &commit_object, &entries), Ok(()));

        let other = object_id("blob", b"# b\n", 40).unwrap();
        let forged = parse_listing(listing.replace(&blob, &other).as_bytes()).unwrap();
        assert!(verify_listing(&commit, &commit_object, &forged)
            .unwrap_err()
            .contains("does not match tree"));
        let mut extra = entries.clone();
        extra.push(ListedEntry {
            mode: "100644".into(),
            kind: "blob".into(),
            id: other,
            path: "m/b.tf".into(),
        });
        assert!(verify_listing(&commit, &commit_object, &extra).is_err());
        let wrong = commit.replace('a', "b").replace('0', "1");
        assert!(verify_listing(&wrong, &commit_object, &entries).is_err());
    }
}
