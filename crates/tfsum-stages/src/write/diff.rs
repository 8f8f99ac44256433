//! Unified diffs of lock-file text, for the `--check` modes of `tfsum lock` and `tfsum fmt`.
//!
//! A check that fails should show what a write would change, in the format reviewers and
//! `git apply`/`patch` already read: `---`/`+++` headers, `@@` hunks, three lines of
//! context (GNU diff's default). The line diff itself comes from the `similar` crate; this
//! module only fixes the format so every caller prints the same thing.

use similar::TextDiff;

/// Lines of unchanged context around each change, as `diff -u` and `git diff` show.
const CONTEXT_LINES: usize = 3;

/// A unified diff turning `old` into `new`, or the empty string when they are equal.
///
/// The labels are written verbatim after `--- ` and `+++ `, so the caller picks the
/// convention: `a/<path>` and `b/<path>` as git does, and `/dev/null` as the old label of
/// a file that does not exist yet. A side that does not end in a newline gets GNU diff's
/// `\ No newline at end of file` marker, so a diff that only adds the final `\n` is
/// still visible.
pub fn unified(old: &str, new: &str, old_label: &str, new_label: &str) -> String {
    if old == new {
        return String::new();
    }
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .header(old_label, new_label)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::unified;
    use pretty_assertions::assert_eq;

    const LOCK: &str = "\
# This file is maintained automatically by \"terraform init\".
# Manual edits may be lost in future updates.

provider \"registry.terraform.io/hashicorp/null\" {
  version     = \"3.2.1\"
  constraints = \"~> 3.0\"
  hashes = [
    \"h1:aaaa\",
    \"zh:bbbb\",
  ]
}
";

    #[test]
    fn equal_texts_give_no_diff() {
        assert_eq!(unified(LOCK, LOCK, "a/x", "b/x"), "");
        assert_eq!(unified("", "", "/dev/null", "b/x"), "");
    }

    #[test]
    fn changed_hash_line_shows_three_lines_of_context() {
        let new = LOCK.replace("h1:aaaa", "h1:cccc");
        let expected = "\
--- a/.terraform.lock.hcl
+++ b/.terraform.lock.hcl
@@ -5,7 +5,7 @@
   version     = \"3.2.1\"
   constraints = \"~> 3.0\"
   hashes = [
-    \"h1:aaaa\",
+    \"h1:cccc\",
     \"zh:bbbb\",
   ]
 }
";
        assert_eq!(
            unified(LOCK, &new, "a/.terraform.lock.hcl", "b/.terraform.lock.hcl"),
            expected
        );
    }

    #[test]
    fn created_file_is_all_additions_from_an_empty_range() {
        let new = "# header\n\nprovider \"x\" {\n}\n";
        let expected = "\
--- /dev/null
+++ b/mod/.terraform.lock.hcl
@@ -0,0 +1,4 @@
+# header
+
+provider \"x\" {
+}
";
        assert_eq!(
            unified("", new, "/dev/null", "b/mod/.terraform.lock.hcl"),
            expected
        );
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let expected = "\
--- a/f
+++ b/f
@@ -1 +1 @@
-}
\\ No newline at end of file
+}
";
        assert_eq!(unified("}", "}\n", "a/f", "b/f"), expected);
    }
}
