//! Type conversion and marks: `tostring`, `tonumber`, `tobool`, `tolist`, `toset`,
//! `tomap`, `sensitive`, `nonsensitive`, … (Terraform `internal/lang/funcs/conversion.go`,
//! `internal/lang/funcs/sensitive.go`).

use super::Ctx;
use crate::config::eval::value::{Marks, Value};

/// `sensitive(v)`: `v` marked sensitive.
pub(super) fn sensitive(_: &Ctx<'_>, mut args: Vec<Value>) -> Result<Value, String> {
    Ok(args.remove(0).mark(Marks::SENSITIVE))
}

/// `nonsensitive(v)`: `v` without its sensitive mark (Terraform 1.x accepts a value that
/// is not sensitive, with no error since 1.7; OpenTofu likewise).
pub(super) fn nonsensitive(_: &Ctx<'_>, mut args: Vec<Value>) -> Result<Value, String> {
    let (inner, marks) = args.remove(0).unmark();
    Ok(inner.mark(marks.without(Marks::SENSITIVE)))
}
