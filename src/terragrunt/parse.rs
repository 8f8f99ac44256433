//! Reading one Terragrunt file (`terragrunt.hcl`, `root.hcl`, …) into the parts that
//! decide a unit's Terraform configuration, unevaluated.
//!
//! Parsed with hcl-edit for line numbers, then each needed expression is converted to an
//! hcl-rs expression for evaluation ([`super::eval`]). Only these parts are kept:
//! `include` blocks (labelled, or the legacy bare form), `locals`, `terraform { source }`
//! and `generate` blocks. Everything else (`inputs`, `remote_state`, `dependency`, hooks)
//! cannot change which providers a unit needs and is not read.

use std::path::{Path, PathBuf};

use hcl::Expression;
use hcl_edit::structure::{Attribute, Body};
use hcl_edit::Span;

use super::TerragruntError;
use crate::config::LineIndex;

/// An expression and the line it starts on.
#[derive(Debug, Clone)]
pub(crate) struct Expr {
    pub expr: Expression,
    pub line: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct IncludeDecl {
    /// `""` for a bare `include {}`.
    pub label: String,
    pub line: usize,
    pub path: Option<Expr>,
    pub merge_strategy: Option<Expr>,
    pub expose: Option<Expr>,
}

#[derive(Debug, Clone)]
pub(crate) struct GenerateDecl {
    pub label: String,
    pub line: usize,
    pub path: Option<Expr>,
    pub if_exists: Option<Expr>,
    pub contents: Option<Expr>,
    pub disable: Option<Expr>,
    /// The line on which the text of `contents` begins: the line after `<<EOF` for a
    /// heredoc, else the attribute's own line.
    pub contents_first_line: usize,
}

/// The parts of one Terragrunt file tfsum reads.
#[derive(Debug, Clone)]
pub(crate) struct TgFile {
    pub path: PathBuf,
    pub includes: Vec<IncludeDecl>,
    /// `(name, line, expression)` in file order.
    pub locals: Vec<(String, usize, Expression)>,
    /// `terraform { source = … }`.
    pub source: Option<Expr>,
    pub generates: Vec<GenerateDecl>,
}

/// Reads and parses `path`. A syntax error names the file, line and column.
pub(crate) fn parse_file(path: &Path) -> Result<TgFile, TerragruntError> {
    let text = std::fs::read_to_string(path).map_err(|source| TerragruntError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_text(path, &text)
}

pub(crate) fn parse_text(path: &Path, text: &str) -> Result<TgFile, TerragruntError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = hcl_edit::parser::parse_body(text).map_err(|e| TerragruntError::Syntax {
        file: path.to_path_buf(),
        line: e.location().line(),
        column: e.location().column(),
        message: e.message().to_string(),
    })?;
    let lines = LineIndex::new(text);
    let line_of = |span: Option<std::ops::Range<usize>>| span.map_or(1, |s| lines.line(s.start));
    let expr = |attr: &Attribute| Expr {
        expr: Expression::from(attr.value.clone()),
        line: line_of(attr.span()),
    };
    let get = |body: &Body, name: &str| body.get_attribute(name).map(expr);

    let mut file = TgFile {
        path: path.to_path_buf(),
        includes: Vec::new(),
        locals: Vec::new(),
        source: None,
        generates: Vec::new(),
    };
    for block in body.blocks() {
        let line = line_of(block.span());
        let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
        match block.ident.as_str() {
            "include" => {
                let label = match labels.as_slice() {
                    [] => String::new(),
                    [label] => label.to_string(),
                    _ => {
                        return Err(TerragruntError::Invalid {
                            file: path.to_path_buf(),
                            line,
                            message: "an include block takes at most one label".into(),
                        })
                    }
                };
                file.includes.push(IncludeDecl {
                    label,
                    line,
                    path: get(&block.body, "path"),
                    merge_strategy: get(&block.body, "merge_strategy"),
                    expose: get(&block.body, "expose"),
                });
            }
            "locals" => {
                for attr in block.body.attributes() {
                    file.locals.push((
                        attr.key.as_str().to_string(),
                        line_of(attr.span()),
                        Expression::from(attr.value.clone()),
                    ));
                }
            }
            "terraform" => {
                if let Some(source) = get(&block.body, "source") {
                    file.source = Some(source);
                }
            }
            "generate" => {
                let [label] = labels.as_slice() else {
                    return Err(TerragruntError::Invalid {
                        file: path.to_path_buf(),
                        line,
                        message: "a generate block takes exactly one label".into(),
                    });
                };
                let contents_attr = block.body.get_attribute("contents");
                let contents_first_line = contents_attr.map_or(line, |attr| {
                    let at = line_of(attr.span());
                    match &attr.value {
                        hcl_edit::expr::Expression::HeredocTemplate(_) => at + 1,
                        _ => at,
                    }
                });
                file.generates.push(GenerateDecl {
                    label: label.to_string(),
                    line,
                    path: get(&block.body, "path"),
                    if_exists: get(&block.body, "if_exists"),
                    contents: contents_attr.map(expr),
                    disable: get(&block.body, "disable"),
                    contents_first_line,
                });
            }
            _ => {}
        }
    }
    Ok(file)
}
