//! Reading one Terragrunt file (`terragrunt.hcl`, `root.hcl`, …) into the parts that
//! decide a unit's Terraform configuration, unevaluated.
//!
//! Parsed with hcl-edit for line numbers, then each needed expression is converted to an
//! hcl-rs expression for evaluation ([`super::eval`]). Only these parts are kept:
//! `include` blocks (labelled, or the legacy bare form), `locals`, `terraform { source }`
//! and `generate` blocks. Everything else (`inputs`, `remote_state`, `dependency`, hooks)
//! cannot change which providers a unit needs and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use hcl::Expression;
use hcl_edit::expr::{Traversal, TraversalOperator};
use hcl_edit::structure::{Attribute, Block, Body};
use hcl_edit::visit::{self, Visit};
use hcl_edit::Span;

use super::written::{self, SourceVersion, Written};
use super::TerragruntError;
use tfsum_vocab::text::LineIndex;

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

/// One attribute of a `locals` block.
#[derive(Debug, Clone)]
pub(crate) struct LocalDecl {
    pub name: String,
    pub line: usize,
    pub expr: Expression,
    /// The locals it names as `local.NAME` (or `local["NAME"]`), sorted; `None` when it
    /// reaches `local` in a way that names none (`local[var]`, `local` itself), so any
    /// local may be among its inputs.
    pub uses: Option<Vec<String>>,
}

/// The parts of one Terragrunt file tfsum reads.
#[derive(Debug, Clone)]
pub(crate) struct TgFile {
    pub path: PathBuf,
    pub includes: Vec<IncludeDecl>,
    /// In file order.
    pub locals: Vec<LocalDecl>,
    /// `terraform { source = … }`.
    pub source: Option<Expr>,
    pub generates: Vec<GenerateDecl>,
    /// `inputs = { … }`: each attribute on its own when the value is an object
    /// constructor (an input that cannot be evaluated fails only if a module needs it),
    /// else the whole expression under `None`.
    pub inputs: Vec<(Option<String>, Expr)>,
    /// Where the version of `source` is written ([`super::written`]).
    pub source_version: Option<SourceVersion>,
    /// The shape of each local, for following a version through one.
    pub local_shapes: BTreeMap<String, Written>,
}

/// Reads and parses `path`. A syntax error names the file, line and column.
pub(crate) fn parse_file(path: &Path) -> Result<TgFile, TerragruntError> {
    // A file of a generated directory is read from its source, and named by it.
    let path = &super::virtual_dirs::real(path);
    let text = super::limits::read_file(path).map_err(|source| TerragruntError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_text(path, &text)
}

pub(crate) fn parse_text(path: &Path, text: &str) -> Result<TgFile, TerragruntError> {
    let (body, parsed) = crate::parse_hcl_body(text).map_err(|e| TerragruntError::Syntax {
        file: path.to_path_buf(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let lines = LineIndex::new(parsed);
    read_body(path, &body, &lines, text.len() - parsed.len())
}

/// The parts of a body tfsum reads (a whole file, or a stack's `autoinclude` block);
/// `base` is how many bytes of the file come before the parsed text (a byte order mark).
pub(crate) fn read_body(
    path: &Path,
    body: &Body,
    lines: &LineIndex,
    base: usize,
) -> Result<TgFile, TerragruntError> {
    let reader = Reader { path, lines };
    let shapes = written::Reader {
        file: path,
        lines,
        base,
    };
    let mut file = TgFile {
        path: path.to_path_buf(),
        includes: Vec::new(),
        locals: Vec::new(),
        source: None,
        generates: Vec::new(),
        inputs: Vec::new(),
        source_version: None,
        local_shapes: BTreeMap::new(),
    };
    if let Some(attr) = body.get_attribute("inputs") {
        file.inputs = reader.inputs(attr);
    }
    for block in body.blocks() {
        match block.ident.as_str() {
            "include" => file.includes.push(reader.include(block)?),
            "locals" => {
                file.locals.extend(locals_of(&block.body, reader.lines));
                file.local_shapes.extend(local_shapes(&block.body, &shapes));
            }
            "terraform" => {
                if let Some(attr) = block.body.get_attribute("source") {
                    file.source = Some(reader.expr(attr));
                    file.source_version = Some(shapes.source(&attr.value));
                }
            }
            "generate" => file.generates.push(reader.generate(block)?),
            _ => {}
        }
    }
    Ok(file)
}

/// The attributes of a `locals` block.
pub(crate) fn locals_of(body: &Body, lines: &LineIndex) -> Vec<LocalDecl> {
    body.attributes()
        .map(|attr| LocalDecl {
            name: attr.key.as_str().to_string(),
            line: lines.line_of(attr.span()),
            expr: Expression::from(attr.value.clone()),
            uses: local_uses(&attr.value),
        })
        .collect()
}

/// The shape of each attribute of a `locals` block ([`super::written`]).
pub(crate) fn local_shapes(body: &Body, shapes: &written::Reader<'_>) -> BTreeMap<String, Written> {
    body.attributes()
        .map(|attr| (attr.key.as_str().to_string(), shapes.value(&attr.value)))
        .collect()
}

/// The top-level attributes of a file of values (`terragrunt.values.hcl`), in order.
pub(crate) fn parse_attributes(path: &Path) -> Result<Vec<(String, Expr)>, TerragruntError> {
    let text = super::limits::read_file(path).map_err(|source| TerragruntError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let (body, text) = crate::parse_hcl_body(&text).map_err(|e| TerragruntError::Syntax {
        file: path.to_path_buf(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let lines = LineIndex::new(text);
    Ok(body
        .attributes()
        .map(|attr| {
            let expr = Expr {
                expr: Expression::from(attr.value.clone()),
                line: lines.line_of(attr.span()),
            };
            (attr.key.as_str().to_string(), expr)
        })
        .collect())
}

/// The blocks of one file, read with their line numbers.
struct Reader<'p> {
    path: &'p Path,
    lines: &'p LineIndex,
}

impl Reader<'_> {
    fn line_of(&self, span: Option<std::ops::Range<usize>>) -> usize {
        self.lines.line_of(span)
    }

    fn expr(&self, attr: &Attribute) -> Expr {
        Expr {
            expr: Expression::from(attr.value.clone()),
            line: self.line_of(attr.span()),
        }
    }

    fn get(&self, body: &Body, name: &str) -> Option<Expr> {
        body.get_attribute(name).map(|attr| self.expr(attr))
    }

    fn invalid(&self, line: usize, message: &str) -> TerragruntError {
        TerragruntError::Invalid {
            file: self.path.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    fn inputs(&self, attr: &Attribute) -> Vec<(Option<String>, Expr)> {
        let hcl_edit::expr::Expression::Object(object) = &attr.value else {
            return vec![(None, self.expr(attr))];
        };
        object
            .iter()
            .filter_map(|(key, value)| {
                let name = match key {
                    hcl_edit::expr::ObjectKey::Ident(ident) => ident.as_str().to_string(),
                    hcl_edit::expr::ObjectKey::Expression(hcl_edit::expr::Expression::String(
                        s,
                    )) => s.as_str().to_string(),
                    hcl_edit::expr::ObjectKey::Expression(_) => return None,
                };
                let expr = Expr {
                    expr: Expression::from(value.expr().clone()),
                    line: self.line_of(value.expr().span()),
                };
                Some((Some(name), expr))
            })
            .collect()
    }

    fn include(&self, block: &Block) -> Result<IncludeDecl, TerragruntError> {
        let line = self.line_of(block.span());
        let label = match block.labels.as_slice() {
            [] => String::new(),
            [label] => label.as_str().to_string(),
            _ => return Err(self.invalid(line, "an include block takes at most one label")),
        };
        Ok(IncludeDecl {
            label,
            line,
            path: self.get(&block.body, "path"),
            merge_strategy: self.get(&block.body, "merge_strategy"),
            expose: self.get(&block.body, "expose"),
        })
    }

    fn generate(&self, block: &Block) -> Result<GenerateDecl, TerragruntError> {
        let line = self.line_of(block.span());
        let [label] = block.labels.as_slice() else {
            return Err(self.invalid(line, "a generate block takes exactly one label"));
        };
        let contents_attr = block.body.get_attribute("contents");
        // A heredoc's text starts on the line after its opening marker.
        let contents_first_line = contents_attr.map_or(line, |attr| {
            let at = self.line_of(attr.span());
            match &attr.value {
                hcl_edit::expr::Expression::HeredocTemplate(_) => at + 1,
                _ => at,
            }
        });
        Ok(GenerateDecl {
            label: label.as_str().to_string(),
            line,
            path: self.get(&block.body, "path"),
            if_exists: self.get(&block.body, "if_exists"),
            contents: contents_attr.map(|attr| self.expr(attr)),
            disable: self.get(&block.body, "disable"),
            contents_first_line,
        })
    }
}

/// [`LocalDecl::uses`] of an expression.
fn local_uses(expr: &hcl_edit::expr::Expression) -> Option<Vec<String>> {
    /// Finds `local.NAME` traversals; any other mention of `local` makes the set unknown.
    #[derive(Default)]
    struct Uses {
        names: BTreeSet<String>,
        unknown: bool,
    }
    impl Visit for Uses {
        fn visit_traversal(&mut self, node: &Traversal) {
            let is_local = node
                .expr
                .as_variable()
                .is_some_and(|v| v.as_str() == "local");
            if !is_local {
                return visit::visit_traversal(self, node);
            }
            let name = match node.operators.first().map(|op| op.value()) {
                Some(TraversalOperator::GetAttr(name)) => Some(name.as_str()),
                Some(TraversalOperator::Index(index)) => index.as_str(),
                _ => None,
            };
            match name {
                Some(name) => {
                    self.names.insert(name.to_string());
                }
                None => self.unknown = true,
            }
            for op in &node.operators {
                self.visit_traversal_operator(op);
            }
        }

        fn visit_expr(&mut self, node: &hcl_edit::expr::Expression) {
            if node.as_variable().is_some_and(|v| v.as_str() == "local") {
                self.unknown = true;
            }
            visit::visit_expr(self, node);
        }
    }
    let mut uses = Uses::default();
    uses.visit_expr(expr);
    (!uses.unknown).then(|| uses.names.into_iter().collect())
}
