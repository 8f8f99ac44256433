//! String functions: go-cty `cty/function/stdlib/string.go`, Terraform
//! `internal/lang/funcs/string.go`.

use super::{string_arg, Ctx};
use crate::config::eval::value::Value;

pub(super) fn lower(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::String(string_arg(&args, 0)?.to_lowercase()))
}

pub(super) fn upper(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::String(string_arg(&args, 0)?.to_uppercase()))
}
