//! `yamldecode` and `yamlencode` (Terraform takes them from go-cty-yaml).

use super::Ctx;
use crate::config::eval::value::Value;

pub(super) fn yamldecode(_: &Ctx<'_>, _: Vec<Value>) -> Result<Value, String> {
    Err("tfsum does not read YAML in expressions".into())
}

pub(super) fn yamlencode(_: &Ctx<'_>, _: Vec<Value>) -> Result<Value, String> {
    Err("tfsum does not write YAML in expressions".into())
}
