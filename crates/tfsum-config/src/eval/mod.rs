//! One evaluator for the expression language of HCL configurations, over three scopes:
//! Terraform's and OpenTofu's early evaluation of module `source` and `version`
//! ([`crate::early`]), Terragrunt unit files and Terragrunt stack files
//! ([`crate::terragrunt`]). Each caller implements [`Scope`]: what its names
//! (`var`, `local`, `path`, `values`, …) hold and which functions it forbids or answers
//! itself; the expression rules and the function table ([`functions`]) are the same for
//! all, as OpenTofu keeps its `StaticEvaluator`'s scope apart from evaluation.
//!
//! Semantics are HCL's (`hashicorp/hcl/v2/hclsyntax/expression.go`) over go-cty values:
//! operands convert as cty converts them (`"1" + 1` is 2), a value unknown at this time
//! makes what depends on it unknown ([`Value::Unknown`], which carries the reason so the
//! caller can say why), and marks follow values through every operation. `try` and `can`
//! evaluate their arguments themselves (`internal/lang/funcs/...`, hcl's `tryfunc`).
//!
//! Recursion is bounded by the parser (64 levels of nesting) and runs on a stack that is
//! grown when short, like the parser's ([`crate::PARSE_STACK`]).

pub(crate) mod functions;
pub(crate) mod types;
pub(crate) mod value;

use std::collections::BTreeMap;
use std::sync::Arc;

use hcl::expr::{
    BinaryOperator, Conditional, ForExpr, FuncCall, ObjectKey, Operation, TemplateExpr, Traversal,
    TraversalOperator, UnaryOperator,
};
use hcl::template::{Directive, Element, Template};
use hcl::Expression;

pub(crate) use functions::{Ctx, Def};
pub(crate) use value::{Marks, Value};

/// Why an evaluation failed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EvalError {
    /// A function neither the table nor the scope has.
    UnknownFunction(String),
    /// A name the scope does not hold (`var`, `local`, … or one of their attributes),
    /// as written (`local.region`).
    UnknownName(String),
    /// Anything else, in words.
    Other(String),
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::UnknownFunction(name) => {
                write!(f, "there is no function named {name:?}")
            }
            EvalError::UnknownName(name) => write!(f, "{name} is not declared"),
            EvalError::Other(message) => f.write_str(message),
        }
    }
}

impl From<String> for EvalError {
    fn from(message: String) -> EvalError {
        EvalError::Other(message)
    }
}

/// What a scope answers for a name.
pub(crate) enum Lookup {
    /// The whole value of the name (an object, usually); the evaluator applies the
    /// traversal's attribute itself.
    Whole(Value),
    /// The value of the attribute the evaluator asked for (`local.x`): scopes whose names
    /// are evaluated lazily answer one attribute at a time.
    Attr(Value),
}

/// Whether a function of the table may run in a scope.
pub(crate) enum Allow {
    Run,
    /// It stands for a value not known here (Terraform's init walk: impure functions).
    Unknown(Arc<str>),
    /// Calling it is an error here.
    Refuse(String),
}

/// What one evaluation's names and functions mean (module docs).
pub(crate) trait Scope {
    /// The value of `name`, or, when the expression goes on with `.attr` (or `["attr"]`),
    /// of that attribute if the scope prefers to answer attribute by attribute.
    fn lookup(&self, name: &str, attr: Option<&str>) -> Result<Lookup, EvalError>;

    /// A function this scope defines itself (Terragrunt's `find_in_parent_folders`, …),
    /// called with its evaluated arguments; `None` leaves the name to the table.
    fn own_function(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, EvalError>> {
        None
    }

    /// Whether the table's `def` may run here.
    fn allow(&self, _def: &Def) -> Allow {
        Allow::Run
    }

    /// A provider-defined function (`provider::NAME::FUNCTION`); none can be called
    /// without the provider, so the default refuses.
    fn provider_function(&self, name: &str) -> Result<Value, EvalError> {
        Err(EvalError::Other(format!(
            "{name} is a provider-defined function, which cannot be called without installing the provider"
        )))
    }

    /// Where the filesystem functions read.
    fn files(&self) -> Ctx<'_>;

    /// Text a template writes for an interpolation that is unknown, instead of making
    /// the whole template unknown: for generated files that are read only for what they
    /// declare (Terragrunt's `generate` blocks), where an unknown argument value does
    /// not matter. `None` (the default) keeps the template unknown.
    fn unknown_in_template(&self) -> Option<&str> {
        None
    }
}

/// Evaluates `expr` in `scope`.
pub(crate) fn evaluate(expr: &Expression, scope: &dyn Scope) -> Result<Value, EvalError> {
    Evaluator {
        scope,
        bound: Vec::new(),
    }
    .eval(expr)
}

/// Stack the evaluator may use per level, and the segment it grows by (as the parser).
const EVAL_RED_ZONE: usize = 256 << 10;
const EVAL_SEGMENT: usize = 4 << 20;

/// One evaluation: the scope and the names `for` expressions bind, innermost last.
struct Evaluator<'s> {
    scope: &'s dyn Scope,
    bound: Vec<(String, Value)>,
}

impl Evaluator<'_> {
    fn eval(&mut self, expr: &Expression) -> Result<Value, EvalError> {
        stacker::maybe_grow(EVAL_RED_ZONE, EVAL_SEGMENT, || self.eval_inner(expr))
    }

    fn eval_inner(&mut self, expr: &Expression) -> Result<Value, EvalError> {
        match expr {
            Expression::Null => Ok(Value::Null),
            Expression::Bool(b) => Ok(Value::Bool(*b)),
            Expression::Number(n) => Ok(Value::Number(n.as_f64().unwrap_or(f64::NAN))),
            Expression::String(s) => Ok(Value::String(s.clone())),
            Expression::Array(items) => {
                let values = items
                    .iter()
                    .map(|item| self.eval(item))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Value::List(values))
            }
            Expression::Object(object) => self.object(object),
            Expression::TemplateExpr(template) => self.template_expr(template),
            Expression::Variable(name) => self.name(name.as_str(), None).map(|(v, _)| v),
            Expression::Traversal(traversal) => self.traversal(traversal),
            Expression::FuncCall(call) => self.call(call),
            Expression::Parenthesis(inner) => self.eval(inner),
            Expression::Conditional(cond) => self.conditional(cond),
            Expression::Operation(op) => match op.as_ref() {
                Operation::Unary(unary) => {
                    let value = self.eval(&unary.expr)?;
                    unary_op(unary.operator, value)
                }
                Operation::Binary(binary) => {
                    let lhs = self.eval(&binary.lhs_expr)?;
                    let rhs = self.eval(&binary.rhs_expr)?;
                    binary_op(binary.operator, lhs, rhs)
                }
            },
            Expression::ForExpr(for_expr) => self.for_expr(for_expr),
            // hcl-rs's expression type is not exhaustive.
            #[allow(unreachable_patterns)]
            _ => Err(EvalError::Other("unsupported expression".into())),
        }
    }

    /// A root name: bound by a `for` expression, else the scope's. With `attr`, the scope
    /// may answer that attribute alone; the flag says it did.
    fn name(&mut self, name: &str, attr: Option<&str>) -> Result<(Value, bool), EvalError> {
        if let Some((_, value)) = self.bound.iter().rev().find(|(n, _)| n == name) {
            return Ok((value.clone(), false));
        }
        match self.scope.lookup(name, attr)? {
            Lookup::Whole(value) => Ok((value, false)),
            Lookup::Attr(value) => Ok((value, true)),
        }
    }

    fn object(&mut self, object: &hcl::Object<ObjectKey, Expression>) -> Result<Value, EvalError> {
        let mut out = BTreeMap::new();
        let mut marks = Marks::NONE;
        let mut unknown = None;
        for (key, value) in object {
            let key = match key {
                ObjectKey::Identifier(ident) => ident.as_str().to_string(),
                ObjectKey::Expression(expr) => {
                    // `(var.x) = …` and `"${…}" = …`; a bare name is a literal key.
                    let evaluated = match expr {
                        Expression::Variable(v) => Value::String(v.as_str().to_string()),
                        other => self.eval(other)?,
                    };
                    let (evaluated, key_marks) = evaluated.unmark();
                    marks = marks.union(key_marks);
                    match evaluated {
                        Value::Unknown(cause) => {
                            unknown.get_or_insert(cause);
                            continue;
                        }
                        Value::Null => {
                            return Err(EvalError::Other("an object key must not be null".into()))
                        }
                        other => other.as_string().ok_or_else(|| {
                            EvalError::Other(format!(
                                "an object key must be a string, not {}",
                                other.type_name()
                            ))
                        })?,
                    }
                }
                // hcl-rs's key type is not exhaustive.
                #[allow(unreachable_patterns)]
                _ => return Err(EvalError::Other("unsupported object key".into())),
            };
            let value = self.eval(value)?;
            out.insert(key, value);
        }
        match unknown {
            Some(cause) => Ok(Value::Unknown(cause).mark(marks)),
            None => Ok(Value::Object(out).mark(marks)),
        }
    }

    fn template_expr(&mut self, template: &TemplateExpr) -> Result<Value, EvalError> {
        let parsed = Template::from_expr(template)
            .map_err(|e| EvalError::Other(format!("invalid template: {e}")))?;
        // A template that is one interpolation alone is that value, unconverted
        // (hcl's TemplateWrapExpr).
        if let [Element::Interpolation(interp)] = parsed.elements() {
            if !matches!(template, TemplateExpr::Heredoc(_)) {
                return self.eval(&interp.expr);
            }
        }
        let mut out = Rendered::default();
        self.elements(parsed.elements(), (false, false), &mut out)?;
        Ok(out.finish())
    }

    /// Renders `elements`; `outer` is whether the marks around them strip the whitespace
    /// of their first and last literal (a directive's `~}` and `{~`).
    fn elements(
        &mut self,
        elements: &[Element],
        outer: (bool, bool),
        out: &mut Rendered,
    ) -> Result<(), EvalError> {
        for (i, element) in elements.iter().enumerate() {
            // A literal's neighbours strip it: the one before with its closing `~}`, the
            // one after with its opening `{~`.
            let after_strip = match i.checked_sub(1) {
                Some(prev) => element_strip(&elements[prev]).1,
                None => outer.0,
            };
            let before_strip = match elements.get(i + 1) {
                Some(next) => element_strip(next).0,
                None => outer.1,
            };
            match element {
                Element::Literal(text) => {
                    out.text
                        .push_str(strip_literal(text, after_strip, before_strip));
                }
                Element::Interpolation(interp) => {
                    let value = self.eval(&interp.expr)?;
                    match self.scope.unknown_in_template() {
                        Some(text) if value.is_unknown() => out.text.push_str(text),
                        _ => out.push(value)?,
                    }
                }
                Element::Directive(directive) => self.directive(directive, out)?,
            }
        }
        Ok(())
    }

    fn directive(&mut self, directive: &Directive, out: &mut Rendered) -> Result<(), EvalError> {
        match directive {
            Directive::If(if_dir) => {
                let cond = self.eval(&if_dir.cond_expr)?;
                let (cond, marks) = cond.unmark();
                out.marks = out.marks.union(marks);
                let true_end = match &if_dir.false_template {
                    Some(_) => if_dir.else_strip.strip_start(),
                    None => if_dir.endif_strip.strip_start(),
                };
                match cond {
                    Value::Unknown(cause) => {
                        out.unknown.get_or_insert(cause);
                        Ok(())
                    }
                    Value::Bool(true) => self.elements(
                        if_dir.true_template.elements(),
                        (if_dir.if_strip.strip_end(), true_end),
                        out,
                    ),
                    Value::Bool(false) => match &if_dir.false_template {
                        Some(t) => self.elements(
                            t.elements(),
                            (
                                if_dir.else_strip.strip_end(),
                                if_dir.endif_strip.strip_start(),
                            ),
                            out,
                        ),
                        None => Ok(()),
                    },
                    other => Err(EvalError::Other(format!(
                        "the condition of a template's %{{if}} must be a bool, not {}",
                        other.type_name()
                    ))),
                }
            }
            Directive::For(for_dir) => {
                let collection = self.eval(&for_dir.collection_expr)?;
                let (collection, marks) = collection.unmark();
                out.marks = out.marks.union(marks);
                let pairs = match collection {
                    Value::Unknown(cause) => {
                        out.unknown.get_or_insert(cause);
                        return Ok(());
                    }
                    other => iteration_pairs(other)?,
                };
                let outer = (
                    for_dir.for_strip.strip_end(),
                    for_dir.endfor_strip.strip_start(),
                );
                for (key, value) in pairs {
                    let bound = self.bound.len();
                    if let Some(key_var) = &for_dir.key_var {
                        self.bound.push((key_var.as_str().to_string(), key));
                    }
                    self.bound
                        .push((for_dir.value_var.as_str().to_string(), value));
                    let result = self.elements(for_dir.template.elements(), outer, out);
                    self.bound.truncate(bound);
                    result?;
                }
                Ok(())
            }
        }
    }

    fn traversal(&mut self, traversal: &Traversal) -> Result<Value, EvalError> {
        let ops = traversal.operators.as_slice();
        let (mut value, consumed) = match &traversal.expr {
            Expression::Variable(name) => {
                let attr = match ops.first() {
                    Some(TraversalOperator::GetAttr(attr)) => Some(attr.as_str().to_string()),
                    Some(TraversalOperator::Index(Expression::String(key))) => Some(key.clone()),
                    _ => None,
                };
                let (value, answered) = self.name(name.as_str(), attr.as_deref())?;
                (value, usize::from(answered))
            }
            other => (self.eval(other)?, 0),
        };
        let mut rest = &ops[consumed..];
        while let Some((op, tail)) = rest.split_first() {
            match op {
                TraversalOperator::AttrSplat | TraversalOperator::FullSplat => {
                    // `.*` takes the attribute accesses that follow, `[*]` every operator.
                    let full = matches!(op, TraversalOperator::FullSplat);
                    let take = tail
                        .iter()
                        .take_while(|op| full || matches!(op, TraversalOperator::GetAttr(_)))
                        .count();
                    let (each, after) = tail.split_at(take);
                    value = self.splat(value, each)?;
                    rest = after;
                }
                _ => {
                    value = self.step(value, op)?;
                    rest = tail;
                }
            }
        }
        Ok(value)
    }

    fn splat(&mut self, value: Value, each: &[TraversalOperator]) -> Result<Value, EvalError> {
        let (value, marks) = value.unmark();
        let items = match value {
            Value::Unknown(cause) => return Ok(Value::Unknown(cause).mark(marks)),
            Value::Null => Vec::new(),
            Value::List(items) => items,
            other => vec![other],
        };
        let mut out = Vec::with_capacity(items.len());
        for mut item in items {
            for op in each {
                item = self.step(item, op)?;
            }
            out.push(item);
        }
        Ok(Value::List(out).mark(marks))
    }

    /// One attribute or index step.
    fn step(&mut self, value: Value, op: &TraversalOperator) -> Result<Value, EvalError> {
        let key = match op {
            TraversalOperator::GetAttr(attr) => Value::String(attr.as_str().to_string()),
            TraversalOperator::Index(expr) => self.eval(expr)?,
            TraversalOperator::LegacyIndex(i) => Value::Number(*i as f64),
            TraversalOperator::AttrSplat | TraversalOperator::FullSplat => {
                return self.splat(value, &[])
            }
        };
        let by_name = matches!(op, TraversalOperator::GetAttr(_));
        index(value, key, by_name)
    }

    fn call(&mut self, call: &FuncCall) -> Result<Value, EvalError> {
        let name = call.name.name.as_str();
        let namespace: Vec<&str> = call.name.namespace.iter().map(|i| i.as_str()).collect();
        match namespace.as_slice() {
            [] | ["core"] => {}
            _ => {
                let full = format!("{}::{name}", namespace.join("::"));
                return self.scope.provider_function(&full);
            }
        }
        match name {
            "try" if namespace.is_empty() || namespace == ["core"] => return self.try_(call),
            "can" if namespace.is_empty() || namespace == ["core"] => return self.can(call),
            "convert" if namespace.is_empty() || namespace == ["core"] => {
                return self.convert(call)
            }
            _ => {}
        }
        let mut args = Vec::with_capacity(call.args.len());
        for (i, arg) in call.args.iter().enumerate() {
            let value = self.eval(arg)?;
            if call.expand_final && i + 1 == call.args.len() {
                let (value, marks) = value.unmark();
                match value {
                    Value::List(items) => args.extend(items.into_iter().map(|v| v.mark(marks))),
                    Value::Unknown(cause) => return Ok(Value::Unknown(cause).mark(marks)),
                    other => {
                        return Err(EvalError::Other(format!(
                            "the argument after ... must be a list, not {}",
                            other.type_name()
                        )))
                    }
                }
            } else {
                args.push(value);
            }
        }
        if namespace.is_empty() {
            if let Some(result) = self.scope.own_function(name, &args) {
                return result;
            }
        }
        let def =
            functions::find(name).ok_or_else(|| EvalError::UnknownFunction(name.to_string()))?;
        match self.scope.allow(def) {
            Allow::Run => {}
            Allow::Unknown(cause) => return Ok(Value::Unknown(Some(cause))),
            Allow::Refuse(message) => return Err(EvalError::Other(message)),
        }
        functions::call(def, &self.scope.files(), args)
            .map_err(|message| EvalError::Other(format!("{name}: {message}")))
    }

    /// `try(a, b, …)`: the first argument that evaluates without an error; unknown when
    /// that one is not wholly known (it might still fail), as hcl's `tryfunc` decides.
    fn try_(&mut self, call: &FuncCall) -> Result<Value, EvalError> {
        if call.args.is_empty() {
            return Err(EvalError::Other(
                "try: at least one argument is required".into(),
            ));
        }
        let mut last = None;
        for arg in &call.args {
            match self.eval(arg) {
                Ok(value) if !value.is_wholly_known() => {
                    let cause = value.first_unknown().cloned().flatten();
                    return Ok(Value::Unknown(cause));
                }
                Ok(value) => return Ok(value),
                Err(e) => last = Some(e),
            }
        }
        Err(EvalError::Other(format!(
            "try: no expression succeeded; the last failed with: {}",
            last.map(|e| e.to_string()).unwrap_or_default()
        )))
    }

    /// `can(expr)`: whether `expr` evaluates without an error (unknown while it is not
    /// wholly known).
    fn can(&mut self, call: &FuncCall) -> Result<Value, EvalError> {
        let [arg] = call.args.as_slice() else {
            return Err(EvalError::Other(
                "can: exactly one argument is required".into(),
            ));
        };
        match self.eval(arg) {
            Ok(value) if !value.is_wholly_known() => {
                Ok(Value::Unknown(value.first_unknown().cloned().flatten()))
            }
            Ok(_) => Ok(Value::Bool(true)),
            Err(_) => Ok(Value::Bool(false)),
        }
    }

    /// `convert(value, type)`: its second argument is a type constraint, not a value
    /// (Terraform's `internal/lang/funcs/conversion.go`, `MakeToFunc`'s type argument).
    fn convert(&mut self, call: &FuncCall) -> Result<Value, EvalError> {
        let [value, ty] = call.args.as_slice() else {
            return Err(EvalError::Other(
                "convert: exactly two arguments are required, a value and a type".into(),
            ));
        };
        let ty = types::Type::parse(ty).map_err(|e| EvalError::Other(format!("convert: {e}")))?;
        let value = self.eval(value)?;
        types::convert(value, &ty).map_err(|e| EvalError::Other(format!("convert: {e}")))
    }

    fn conditional(&mut self, cond: &Conditional) -> Result<Value, EvalError> {
        let (test, marks) = self.eval(&cond.cond_expr)?.unmark();
        let chosen = match test {
            Value::Unknown(cause) => return Ok(Value::Unknown(cause).mark(marks)),
            Value::Bool(b) => b,
            Value::String(s) if s == "true" || s == "false" => s == "true",
            Value::Null => {
                return Err(EvalError::Other(
                    "the condition of a conditional expression must not be null".into(),
                ))
            }
            other => {
                return Err(EvalError::Other(format!(
                    "the condition of a conditional expression must be a bool, not {}",
                    other.type_name()
                )))
            }
        };
        let value = if chosen {
            self.eval(&cond.true_expr)?
        } else {
            self.eval(&cond.false_expr)?
        };
        Ok(value.mark(marks))
    }

    fn for_expr(&mut self, for_expr: &ForExpr) -> Result<Value, EvalError> {
        let (collection, marks) = self.eval(&for_expr.collection_expr)?.unmark();
        let pairs = match collection {
            Value::Unknown(cause) => return Ok(Value::Unknown(cause).mark(marks)),
            other => iteration_pairs(other)?,
        };
        let mut list = Vec::new();
        let mut object: BTreeMap<String, Value> = BTreeMap::new();
        let mut grouped: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut unknown = None;
        for (key, value) in pairs {
            let bound = self.bound.len();
            if let Some(key_var) = &for_expr.key_var {
                self.bound.push((key_var.as_str().to_string(), key));
            }
            self.bound
                .push((for_expr.value_var.as_str().to_string(), value));
            let result = self.for_item(for_expr, &mut list, &mut object, &mut grouped);
            self.bound.truncate(bound);
            if let Some(cause) = result? {
                unknown.get_or_insert(cause);
            }
        }
        if let Some(cause) = unknown {
            return Ok(Value::Unknown(cause).mark(marks));
        }
        let value = match &for_expr.key_expr {
            None => Value::List(list),
            Some(_) if for_expr.grouping => Value::Object(
                grouped
                    .into_iter()
                    .map(|(k, v)| (k, Value::List(v)))
                    .collect(),
            ),
            Some(_) => Value::Object(object),
        };
        Ok(value.mark(marks))
    }

    /// One element of a `for` expression, with its names bound; `Some(cause)` when its
    /// condition or key is unknown (the whole result is then unknown).
    fn for_item(
        &mut self,
        for_expr: &ForExpr,
        list: &mut Vec<Value>,
        object: &mut BTreeMap<String, Value>,
        grouped: &mut BTreeMap<String, Vec<Value>>,
    ) -> Result<Option<value::UnknownCause>, EvalError> {
        if let Some(cond) = &for_expr.cond_expr {
            match self.eval(cond)?.unmark().0 {
                Value::Bool(true) => {}
                Value::Bool(false) => return Ok(None),
                Value::Unknown(cause) => return Ok(Some(cause)),
                other => {
                    return Err(EvalError::Other(format!(
                        "the condition of a for expression must be a bool, not {}",
                        other.type_name()
                    )))
                }
            }
        }
        let Some(key_expr) = &for_expr.key_expr else {
            list.push(self.eval(&for_expr.value_expr)?);
            return Ok(None);
        };
        let key = match self.eval(key_expr)?.unmark().0 {
            Value::Unknown(cause) => return Ok(Some(cause)),
            other => other.as_string().ok_or_else(|| {
                EvalError::Other(format!(
                    "a for expression's key must be a string, not {}",
                    other.type_name()
                ))
            })?,
        };
        let value = self.eval(&for_expr.value_expr)?;
        if for_expr.grouping {
            grouped.entry(key).or_default().push(value);
        } else if object.insert(key.clone(), value).is_some() {
            return Err(EvalError::Other(format!(
                "duplicate object key {key:?} in a for expression; add an ellipsis (...) after the value to group the values by key"
            )));
        }
        Ok(None)
    }
}

/// The text a template renders so far, and what makes it unknown or marked.
#[derive(Default)]
struct Rendered {
    text: String,
    marks: Marks,
    unknown: Option<value::UnknownCause>,
}

impl Rendered {
    fn push(&mut self, value: Value) -> Result<(), EvalError> {
        let (value, marks) = value.unmark();
        self.marks = self.marks.union(marks);
        match value {
            Value::Unknown(cause) => {
                self.unknown.get_or_insert(cause);
                Ok(())
            }
            Value::Null => Err(EvalError::Other(
                "invalid template interpolation value: the expression result is null".into(),
            )),
            other => {
                let text = other.as_string().ok_or_else(|| {
                    EvalError::Other(format!(
                        "cannot include a {} in a string template: string required",
                        other.type_name()
                    ))
                })?;
                self.text.push_str(&text);
                Ok(())
            }
        }
    }

    fn finish(self) -> Value {
        match self.unknown {
            Some(cause) => Value::Unknown(cause).mark(self.marks),
            None => Value::String(self.text).mark(self.marks),
        }
    }
}

/// Whether `element` strips the whitespace before it (its opening `{~`) and after it
/// (its closing `~}`, or its end directive's).
fn element_strip(element: &Element) -> (bool, bool) {
    match element {
        Element::Interpolation(i) => (i.strip.strip_start(), i.strip.strip_end()),
        Element::Directive(directive) => match directive.as_ref() {
            Directive::If(d) => (d.if_strip.strip_start(), d.endif_strip.strip_end()),
            Directive::For(d) => (d.for_strip.strip_start(), d.endfor_strip.strip_end()),
        },
        Element::Literal(_) => (false, false),
    }
}

/// A literal with the whitespace stripped that a neighbour's `~` asks for: all of it,
/// line breaks included (hcl's `parser_template.go`, `unicode.IsSpace`).
fn strip_literal(literal: &str, start: bool, end: bool) -> &str {
    let mut literal = literal;
    if start {
        literal = literal.trim_start();
    }
    if end {
        literal = literal.trim_end();
    }
    literal
}

/// The (key, value) pairs a `for` iterates: a list's indices, an object's keys.
fn iteration_pairs(collection: Value) -> Result<Vec<(Value, Value)>, EvalError> {
    match collection {
        Value::List(items) => Ok(items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (Value::Number(i as f64), v))
            .collect()),
        Value::Object(attrs) => Ok(attrs
            .into_iter()
            .map(|(k, v)| (Value::String(k), v))
            .collect()),
        Value::Null => Err(EvalError::Other(
            "a for expression cannot iterate over null".into(),
        )),
        other => Err(EvalError::Other(format!(
            "a for expression can iterate only over a list or an object, not a {}",
            other.type_name()
        ))),
    }
}

/// `value[key]` (or `value.key` with `by_name`).
fn index(value: Value, key: Value, by_name: bool) -> Result<Value, EvalError> {
    let (value, marks) = value.unmark();
    let (key, key_marks) = key.unmark();
    let marks = marks.union(key_marks);
    let found = match (value, key) {
        (Value::Unknown(cause), _) | (_, Value::Unknown(cause)) => Value::Unknown(cause),
        (Value::Null, key) => {
            return Err(EvalError::Other(if by_name {
                format!(
                    "attempt to get attribute {} from a null value",
                    key.as_string().unwrap_or_default()
                )
            } else {
                "attempt to index a null value".to_string()
            }))
        }
        (Value::Object(mut attrs), key) => {
            let name = key.as_string().ok_or_else(|| {
                EvalError::Other(format!(
                    "an object's attribute is named by a string, not a {}",
                    key.type_name()
                ))
            })?;
            attrs.remove(&name).ok_or_else(|| {
                EvalError::Other(if by_name {
                    format!("unsupported attribute: this object does not have an attribute named {name:?}")
                } else {
                    format!("invalid index: the given key {name:?} does not identify an element in this collection value")
                })
            })?
        }
        (Value::List(mut items), key) if !by_name => {
            let position = match &key {
                Value::Number(n) => Some(*n),
                Value::String(s) => s.parse::<f64>().ok(),
                _ => None,
            }
            .ok_or_else(|| {
                EvalError::Other(format!(
                    "a list is indexed by a number, not a {}",
                    key.type_name()
                ))
            })?;
            if position.fract() != 0.0 || position < 0.0 || position as usize >= items.len() {
                return Err(EvalError::Other(format!(
                    "invalid index: the given key does not identify an element in this collection value ({} elements, index {})",
                    items.len(),
                    value::number_text(position)
                )));
            }
            items.swap_remove(position as usize)
        }
        (other, key) => {
            return Err(EvalError::Other(if by_name {
                format!(
                    "unsupported attribute: can't access attribute {:?} on a value of type {}",
                    key.as_string().unwrap_or_default(),
                    other.type_name()
                )
            } else {
                format!("a value of type {} cannot be indexed", other.type_name())
            }))
        }
    };
    Ok(found.mark(marks))
}

fn unary_op(op: UnaryOperator, value: Value) -> Result<Value, EvalError> {
    let (value, marks) = value.unmark();
    let result = match (op, value) {
        (_, Value::Unknown(cause)) => Value::Unknown(cause),
        (UnaryOperator::Neg, v) => Value::Number(-to_number(&v, "-")?),
        (UnaryOperator::Not, v) => Value::Bool(!to_bool(&v, "!")?),
    };
    Ok(result.mark(marks))
}

fn binary_op(op: BinaryOperator, lhs: Value, rhs: Value) -> Result<Value, EvalError> {
    use BinaryOperator as B;
    let (lhs, lmarks) = lhs.unmark();
    let (rhs, rmarks) = rhs.unmark();
    let marks = lmarks.union(rmarks);
    let result = match op {
        B::Eq | B::NotEq => match equal(&lhs, &rhs) {
            None => Value::Unknown(first_cause(&lhs, &rhs)),
            Some(eq) => Value::Bool(eq == matches!(op, B::Eq)),
        },
        B::And | B::Or => {
            let is_and = matches!(op, B::And);
            let symbol = if is_and { "&&" } else { "||" };
            // A known side that decides the result decides it (hcl short-circuits).
            let known = |v: &Value| -> Result<Option<bool>, EvalError> {
                match v {
                    Value::Unknown(_) => Ok(None),
                    other => to_bool(other, symbol).map(Some),
                }
            };
            match (known(&lhs)?, known(&rhs)?) {
                (Some(a), Some(b)) => Value::Bool(if is_and { a && b } else { a || b }),
                (Some(a), None) | (None, Some(a)) if a != is_and => Value::Bool(a),
                _ => Value::Unknown(first_cause(&lhs, &rhs)),
            }
        }
        _ => {
            if lhs.is_unknown() || rhs.is_unknown() {
                Value::Unknown(first_cause(&lhs, &rhs))
            } else {
                let symbol = op.as_str();
                let a = to_number(&lhs, symbol)?;
                let b = to_number(&rhs, symbol)?;
                match op {
                    B::Plus => Value::Number(a + b),
                    B::Minus => Value::Number(a - b),
                    B::Mul => Value::Number(a * b),
                    B::Div if b == 0.0 => return Err(EvalError::Other("divide by zero".into())),
                    B::Div => Value::Number(a / b),
                    B::Mod if b == 0.0 => return Err(EvalError::Other("modulo by zero".into())),
                    B::Mod => Value::Number(a % b),
                    B::Less => Value::Bool(a < b),
                    B::LessEq => Value::Bool(a <= b),
                    B::Greater => Value::Bool(a > b),
                    B::GreaterEq => Value::Bool(a >= b),
                    _ => return Err(EvalError::Other(format!("unsupported operator {symbol}"))),
                }
            }
        }
    };
    Ok(result.mark(marks))
}

fn first_cause(a: &Value, b: &Value) -> value::UnknownCause {
    a.first_unknown()
        .or_else(|| b.first_unknown())
        .cloned()
        .flatten()
}

/// cty's `Equals`: `None` while either side holds an unknown that could decide it.
fn equal(a: &Value, b: &Value) -> Option<bool> {
    let (a, _) = a.unmarked();
    let (b, _) = b.unmarked();
    match (a, b) {
        (Value::Unknown(_), _) | (_, Value::Unknown(_)) => None,
        (Value::Number(x), Value::Number(y)) => Some(x == y),
        (Value::List(x), Value::List(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            let mut all = Some(true);
            for (x, y) in x.iter().zip(y) {
                match equal(x, y) {
                    Some(false) => return Some(false),
                    None => all = None,
                    Some(true) => {}
                }
            }
            all
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() || x.keys().ne(y.keys()) {
                return Some(false);
            }
            let mut all = Some(true);
            for (x, y) in x.values().zip(y.values()) {
                match equal(x, y) {
                    Some(false) => return Some(false),
                    None => all = None,
                    Some(true) => {}
                }
            }
            all
        }
        (x, y) => Some(x == y),
    }
}

/// An operand as a number, converting a string as cty does.
pub(crate) fn to_number(value: &Value, op: &str) -> Result<f64, EvalError> {
    match value.unmarked().0 {
        Value::Number(n) => Ok(*n),
        Value::String(s) => s.trim().parse::<f64>().map_err(|_| {
            EvalError::Other(format!(
                "invalid operand for {op}: a number is required, and {s:?} is not one"
            ))
        }),
        Value::Null => Err(EvalError::Other(format!(
            "invalid operand for {op}: a null value cannot be used"
        ))),
        other => Err(EvalError::Other(format!(
            "invalid operand for {op}: a number is required, not a {}",
            other.type_name()
        ))),
    }
}

/// An operand as a bool, converting `"true"`/`"false"` as cty does.
pub(crate) fn to_bool(value: &Value, op: &str) -> Result<bool, EvalError> {
    match value.unmarked().0 {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        Value::Null => Err(EvalError::Other(format!(
            "invalid operand for {op}: a null value cannot be used"
        ))),
        other => Err(EvalError::Other(format!(
            "invalid operand for {op}: a bool is required, not a {}",
            other.type_name()
        ))),
    }
}

/// The names an expression reads directly, each as `(root, first attribute)` (`var.ref`
/// is `("var", Some("ref"))`), in order of appearance: Terraform checks the references
/// written in a module's `source` and `version` before it evaluates them
/// (`internal/terraform/node_module_install.go`). Names bound by the expression's own
/// `for` are left out.
pub(crate) fn references(expr: &Expression) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    collect_references(expr, &mut Vec::new(), &mut out);
    out
}

fn collect_references(
    expr: &Expression,
    bound: &mut Vec<String>,
    out: &mut Vec<(String, Option<String>)>,
) {
    let mut visit = |e: &Expression, bound: &mut Vec<String>| collect_references(e, bound, out);
    match expr {
        Expression::Variable(v) if !bound.iter().any(|b| b == v.as_str()) => {
            out.push((v.as_str().to_string(), None));
        }
        Expression::Traversal(t) => {
            if let Expression::Variable(v) = &t.expr {
                if !bound.iter().any(|b| b == v.as_str()) {
                    let attr = match t.operators.first() {
                        Some(TraversalOperator::GetAttr(a)) => Some(a.as_str().to_string()),
                        Some(TraversalOperator::Index(Expression::String(s))) => Some(s.clone()),
                        _ => None,
                    };
                    out.push((v.as_str().to_string(), attr));
                }
            } else {
                collect_references(&t.expr, bound, out);
            }
            for op in &t.operators {
                if let TraversalOperator::Index(e) = op {
                    collect_references(e, bound, out);
                }
            }
        }
        Expression::Array(items) => items.iter().for_each(|e| visit(e, bound)),
        Expression::Object(object) => {
            for (k, v) in object {
                if let ObjectKey::Expression(k) = k {
                    if !matches!(k, Expression::Variable(_)) {
                        collect_references(k, bound, out);
                    }
                }
                collect_references(v, bound, out);
            }
        }
        Expression::TemplateExpr(t) => {
            if let Ok(template) = Template::from_expr(t) {
                template_references(template.elements(), bound, out);
            }
        }
        Expression::FuncCall(call) => call.args.iter().for_each(|e| visit(e, bound)),
        Expression::Parenthesis(e) => visit(e, bound),
        Expression::Conditional(c) => {
            collect_references(&c.cond_expr, bound, out);
            collect_references(&c.true_expr, bound, out);
            collect_references(&c.false_expr, bound, out);
        }
        Expression::Operation(op) => match op.as_ref() {
            Operation::Unary(u) => collect_references(&u.expr, bound, out),
            Operation::Binary(b) => {
                collect_references(&b.lhs_expr, bound, out);
                collect_references(&b.rhs_expr, bound, out);
            }
        },
        Expression::ForExpr(f) => {
            collect_references(&f.collection_expr, bound, out);
            let before = bound.len();
            if let Some(k) = &f.key_var {
                bound.push(k.as_str().to_string());
            }
            bound.push(f.value_var.as_str().to_string());
            if let Some(k) = &f.key_expr {
                collect_references(k, bound, out);
            }
            collect_references(&f.value_expr, bound, out);
            if let Some(c) = &f.cond_expr {
                collect_references(c, bound, out);
            }
            bound.truncate(before);
        }
        _ => {}
    }
}

fn template_references(
    elements: &[Element],
    bound: &mut Vec<String>,
    out: &mut Vec<(String, Option<String>)>,
) {
    for element in elements {
        match element {
            Element::Literal(_) => {}
            Element::Interpolation(i) => collect_references(&i.expr, bound, out),
            Element::Directive(directive) => match directive.as_ref() {
                Directive::If(d) => {
                    collect_references(&d.cond_expr, bound, out);
                    template_references(d.true_template.elements(), bound, out);
                    if let Some(f) = &d.false_template {
                        template_references(f.elements(), bound, out);
                    }
                }
                Directive::For(d) => {
                    collect_references(&d.collection_expr, bound, out);
                    let before = bound.len();
                    if let Some(k) = &d.key_var {
                        bound.push(k.as_str().to_string());
                    }
                    bound.push(d.value_var.as_str().to_string());
                    template_references(d.template.elements(), bound, out);
                    bound.truncate(before);
                }
            },
        }
    }
}

#[cfg(test)]
mod tests;
