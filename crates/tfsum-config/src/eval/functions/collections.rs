//! Collection functions: go-cty `cty/function/stdlib/collection.go`, `sequence.go` and
//! `set.go` (`chunklist`, `coalescelist`, `compact`, `concat`, `contains`, `distinct`,
//! `element`, `flatten`, `keys`, `merge`, `range`, `reverse`, `set*`, `slice`, `sort`,
//! `values`, `zipmap`), and Terraform `internal/lang/funcs/collection.go` (`alltrue`,
//! `anytrue`, `coalesce`, `index`, `length`, `list`, `lookup`, `map`, `matchkeys`, `one`,
//! `sum`, `transpose`).
//!
//! Lists, tuples and sets are all [`Value::List`] here; where cty's result depends on
//! which one it was given (`setproduct` of lists keeps their order), a list is assumed.

use std::collections::BTreeMap;

use super::conversion::unify;
use super::{
    arg, check_items, int_arg, list_arg, number_arg, object_arg, string_arg, string_list_arg, Ctx,
};
use crate::eval::value::{Marks, Value};

/// cty's equality for `contains`, `index`, `distinct`, `matchkeys` and the set
/// functions: same type and same value (numbers compare by value).
fn same(a: &Value, b: &Value) -> bool {
    a == b
}

/// The elements of a list argument as bools (`list(bool)`: `"true"` converts).
fn bool_items(args: &[Value]) -> Result<Vec<Option<bool>>, String> {
    list_arg(args, 0)?
        .into_iter()
        .map(|item| match item {
            Value::Null => Ok(None),
            Value::Bool(b) => Ok(Some(b)),
            Value::String(s) if s == "true" => Ok(Some(true)),
            Value::String(s) if s == "false" => Ok(Some(false)),
            other => Err(format!(
                "a list of bools is required, and it holds a {}",
                other.type_name()
            )),
        })
        .collect()
}

/// `alltrue(list)`: true when every element is true (a null is false), true when empty.
pub(super) fn alltrue(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::Bool(
        bool_items(&args)?.iter().all(|b| *b == Some(true)),
    ))
}

/// `anytrue(list)`: true when some element is true, false when empty.
pub(super) fn anytrue(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::Bool(bool_items(&args)?.contains(&Some(true))))
}

/// `chunklist(list, size)`: the list cut into lists of `size` (0: one list of all).
pub(super) fn chunklist(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let items = list_arg(&args, 0)?;
    let size = int_arg(&args, 1).map_err(|e| format!("invalid size: {e}"))?;
    if size < 0 {
        return Err("the size argument must be positive".into());
    }
    if items.is_empty() {
        return Ok(Value::List(Vec::new()));
    }
    if size == 0 {
        return Ok(Value::List(vec![Value::List(items)]));
    }
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    Ok(Value::List(
        items
            .chunks(size)
            .map(|c| Value::List(c.to_vec()))
            .collect(),
    ))
}

/// `coalesce(vals…)`: the first argument that is neither null nor an empty string, all
/// of them converted to one type.
pub(super) fn coalesce(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let args = unify(args).ok_or("all arguments must have the same type")?;
    args.into_iter()
        .find(|v| !matches!(v, Value::Null) && *v != Value::string(""))
        .ok_or_else(|| "no non-null, non-empty-string arguments".to_string())
}

/// `coalescelist(lists…)`: the first list that is not empty.
pub(super) fn coalescelist(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    if args.is_empty() {
        return Err("at least one argument is required".into());
    }
    for value in &args {
        match value {
            Value::List(items) if !items.is_empty() => return Ok(value.clone()),
            Value::List(_) | Value::Null => {}
            _ => return Err("coalescelist arguments must be lists or tuples".into()),
        }
    }
    Err("no non-null arguments".into())
}

/// `compact(list)`: the strings that are neither null nor empty.
pub(super) fn compact(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let mut out = Vec::new();
    for item in list_arg(&args, 0)? {
        match item {
            Value::Null => {}
            other => {
                let text = other.as_string().ok_or_else(|| {
                    format!(
                        "a list of strings is required, and it holds a {}",
                        other.type_name()
                    )
                })?;
                if !text.is_empty() {
                    out.push(Value::String(text));
                }
            }
        }
    }
    Ok(Value::List(out))
}

/// `concat(lists…)`: the lists' elements, in order.
pub(super) fn concat(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    if args.is_empty() {
        return Err("at least one argument is required".into());
    }
    let mut out = Vec::new();
    for value in args {
        match value {
            Value::List(items) => {
                check_items(out.len() + items.len())?;
                out.extend(items);
            }
            other => {
                return Err(format!(
                    "all arguments must be lists or tuples; got {}",
                    other.type_name()
                ))
            }
        }
    }
    Ok(Value::List(out))
}

/// `contains(list, value)`.
pub(super) fn contains(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let items = match arg(&args, 0)? {
        Value::List(items) => items,
        Value::Null => return Err("cannot search a nil list or set".into()),
        _ => return Err("argument must be list, tuple, or set".into()),
    };
    let wanted = arg(&args, 1)?;
    Ok(Value::Bool(items.iter().any(|item| same(item, wanted))))
}

/// `distinct(list)`: the first occurrence of each element, in order.
pub(super) fn distinct(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let items = unify(list_arg(&args, 0)?).ok_or("all elements must have the same type")?;
    let mut out: Vec<Value> = Vec::new();
    for item in items {
        if !out.iter().any(|seen| same(seen, &item)) {
            out.push(item);
        }
    }
    Ok(Value::List(out))
}

/// `element(list, index)`: the element at `index` modulo the length (a negative index
/// counts from the end, as in cty's current version).
pub(super) fn element(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let items = match arg(&args, 0)? {
        Value::List(items) => items,
        other => return Err(format!("cannot read elements from {}", other.type_name())),
    };
    let index = int_arg(&args, 1).map_err(|e| format!("invalid index: {e}"))?;
    if items.is_empty() {
        return Err("cannot use element function with an empty list".into());
    }
    let len = items.len() as i64;
    Ok(items[index.rem_euclid(len) as usize].clone())
}

/// `flatten(list)`: nested lists replaced by their elements, at every depth.
pub(super) fn flatten(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    fn walk(items: Vec<Value>, out: &mut Vec<Value>) -> Result<(), String> {
        for item in items {
            match item {
                Value::List(inner) => walk(inner, out)?,
                other => {
                    check_items(out.len() + 1)?;
                    out.push(other);
                }
            }
        }
        Ok(())
    }
    let items = match arg(&args, 0)? {
        Value::List(items) => items.clone(),
        _ => return Err("can only flatten lists, sets and tuples".into()),
    };
    let mut out = Vec::new();
    walk(items, &mut out)?;
    Ok(Value::List(out))
}

/// `index(list, value)`: the position of the first element equal to `value`.
pub(super) fn index(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let items = match arg(&args, 0)? {
        Value::List(items) => items,
        _ => return Err("argument must be a list or tuple".into()),
    };
    if items.is_empty() {
        return Err("cannot search an empty list".into());
    }
    let wanted = arg(&args, 1)?;
    items
        .iter()
        .position(|item| same(item, wanted))
        .map(|i| Value::Number(i as f64))
        .ok_or_else(|| "item not found".to_string())
}

/// `keys(map)`: the keys, sorted.
pub(super) fn keys(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    match arg(&args, 0)? {
        Value::Object(attrs) => Ok(Value::List(attrs.keys().map(Value::string).collect())),
        _ => Err("must have map or object type".into()),
    }
}

/// `values(map)`: the values, in the order of their sorted keys.
pub(super) fn values(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    match arg(&args, 0)? {
        Value::Object(attrs) => Ok(Value::List(attrs.values().cloned().collect())),
        _ => Err("values() requires a map as the first argument".into()),
    }
}

/// `length(v)`: a string's grapheme clusters, a collection's elements.
pub(super) fn length(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let n = match arg(&args, 0)? {
        // Called with unknowns too: a list's length is known even when its elements
        // are not.
        Value::Unknown(cause) => return Ok(Value::Unknown(cause.clone())),
        Value::String(s) => super::strings::grapheme_count(s),
        Value::List(items) => items.len(),
        Value::Object(attrs) => attrs.len(),
        Value::Null => return Err("argument must not be null".into()),
        _ => {
            return Err("argument must be a string, a collection type, or a structural type".into())
        }
    };
    Ok(Value::Number(n as f64))
}

/// `list(…)`: removed in Terraform 0.12 (still in the table, to say so).
pub(super) fn list(_: &Ctx<'_>, _: Vec<Value>) -> Result<Value, String> {
    Err("the \"list\" function was deprecated in Terraform v0.12 and is no longer available; use tolist([ ... ]) syntax to write a literal list".into())
}

/// `map(…)`: removed in Terraform 0.12 (still in the table, to say so).
pub(super) fn map(_: &Ctx<'_>, _: Vec<Value>) -> Result<Value, String> {
    Err("the \"map\" function was deprecated in Terraform v0.12 and is no longer available; use tomap({ ... }) syntax to write a literal map".into())
}

/// `lookup(map, key, default?)`: the key's value, else the default; with no default a
/// missing key is an error. It sees the marks itself so a sensitive key is not printed.
pub(super) fn lookup(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    if args.len() > 3 {
        return Err(format!(
            "lookup() takes two or three arguments, got {}",
            args.len()
        ));
    }
    let mut marks = Marks::NONE;
    let mut plain = Vec::with_capacity(args.len());
    for (i, value) in args.into_iter().enumerate() {
        // The default keeps its own marks (cty leaves it marked).
        if i < 2 {
            marks = marks.union(value.deep_marks());
            plain.push(value.unmark_deep());
        } else {
            plain.push(value);
        }
    }
    let key_marks = plain.get(1).map(Value::deep_marks).unwrap_or(Marks::NONE);
    for value in plain.iter().take(2) {
        if let Some(cause) = value.first_unknown() {
            return Ok(Value::Unknown(cause.clone()).mark(marks));
        }
    }
    let attrs = match &plain[0] {
        Value::Object(attrs) => attrs,
        _ => return Err("lookup() requires a map as the first argument".into()),
    };
    let key = string_arg(&plain, 1)?;
    if let Some(found) = attrs.get(&key) {
        return Ok(found.clone().mark(marks));
    }
    match plain.into_iter().nth(2) {
        Some(default) => Ok(default.mark(marks)),
        None if marks.contains(Marks::SENSITIVE) || key_marks.contains(Marks::SENSITIVE) => {
            Err("lookup failed to find key (sensitive value)".into())
        }
        None => Err(format!("lookup failed to find key {key:?}")),
    }
}

/// `matchkeys(values, keys, searchset)`: the `values` whose `keys` entry is in
/// `searchset`.
pub(super) fn matchkeys(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let values = list_arg(&args, 0)?;
    let keys = list_arg(&args, 1)?;
    let search = list_arg(&args, 2)?;
    let joined = unify(keys.iter().chain(&search).cloned().collect())
        .ok_or("keys and searchset must be of the same type")?;
    let (keys, search) = joined.split_at(keys.len());
    if values.len() != keys.len() {
        return Err("length of keys and values should be equal".into());
    }
    Ok(Value::List(
        values
            .into_iter()
            .zip(keys)
            .filter(|(_, key)| search.iter().any(|s| same(s, key)))
            .map(|(v, _)| v)
            .collect(),
    ))
}

/// `merge(maps…)`: the attributes of all, later ones winning; nulls are skipped.
pub(super) fn merge(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let mut out = BTreeMap::new();
    for value in args {
        match value {
            Value::Object(attrs) => out.extend(attrs),
            Value::Null => {}
            other => {
                return Err(format!(
                    "arguments must be maps or objects, got {:?}",
                    other.type_name()
                ))
            }
        }
    }
    Ok(Value::Object(out))
}

/// `one(list)`: the only element, null when empty, an error when more.
pub(super) fn one(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let refuse =
        || "must be a list, set, or tuple value with either zero or one elements".to_string();
    match arg(&args, 0)? {
        Value::List(items) => match items.as_slice() {
            [] => Ok(Value::Null),
            [only] => Ok(only.clone()),
            _ => Err(refuse()),
        },
        _ => Err(refuse()),
    }
}

/// `range(limit)`, `range(start, limit)`, `range(start, limit, step)`: at most 1024
/// numbers (cty's limit).
pub(super) fn range(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let numbers = (0..args.len())
        .map(|i| number_arg(&args, i))
        .collect::<Result<Vec<f64>, String>>()?;
    let (start, end, step) = match numbers.as_slice() {
        [end] => (0.0, *end, if *end < 0.0 { -1.0 } else { 1.0 }),
        [start, end] => (*start, *end, if end < start { -1.0 } else { 1.0 }),
        [start, end, step] => (*start, *end, *step),
        _ => return Err("must have one, two, or three arguments".into()),
    };
    if step == 0.0 {
        return Err("step must not be zero".into());
    }
    let down = step < 0.0;
    if down && end > start {
        return Err("end must be less than start when step is negative".into());
    }
    if !down && end < start {
        return Err("end must be greater than start when step is positive".into());
    }
    let mut out = Vec::new();
    for i in 0.. {
        // cty adds in decimal; computing each value from the start and trimming to 15
        // significant digits keeps `range(0, 1, 0.1)` at 0.3, not 0.30000000000000004.
        let n = decimal_tidy(start + f64::from(i) * step);
        if (down && n <= end) || (!down && n >= end) {
            break;
        }
        if out.len() >= 1024 {
            return Err("more than 1024 values were generated; either decrease the difference between start and end or use a smaller step".into());
        }
        out.push(Value::Number(n));
    }
    Ok(Value::List(out))
}

/// `n` rounded to 15 significant digits (what an `f64` holds exactly in decimal).
fn decimal_tidy(n: f64) -> f64 {
    format!("{n:.14e}").parse().unwrap_or(n)
}

/// `reverse(list)`.
pub(super) fn reverse(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    match arg(&args, 0)? {
        Value::List(items) => Ok(Value::List(items.iter().rev().cloned().collect())),
        other => Err(format!(
            "can only reverse list or tuple values, not {}",
            other.type_name()
        )),
    }
}

/// The elements of every argument, converted to one type (the set functions).
fn set_args(args: &[Value]) -> Result<Vec<Vec<Value>>, String> {
    let sets = (0..args.len())
        .map(|i| list_arg(args, i))
        .collect::<Result<Vec<_>, _>>()?;
    let lengths: Vec<usize> = sets.iter().map(Vec::len).collect();
    let mut all = unify(sets.into_iter().flatten().collect())
        .ok_or("given sets must all have compatible element types")?
        .into_iter();
    Ok(lengths
        .into_iter()
        .map(|n| all.by_ref().take(n).collect())
        .collect())
}

pub(super) fn setunion(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let all: Vec<Value> = set_args(&args)?.into_iter().flatten().collect();
    Ok(Value::set_of(all))
}

pub(super) fn setintersection(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let mut sets = set_args(&args)?.into_iter();
    let mut acc = sets.next().unwrap_or_default();
    for set in sets {
        acc.retain(|v| set.iter().any(|w| same(v, w)));
    }
    Ok(Value::set_of(acc))
}

pub(super) fn setsubtract(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let mut sets = set_args(&args)?.into_iter();
    let mut acc = sets.next().unwrap_or_default();
    let minus = sets.next().unwrap_or_default();
    acc.retain(|v| !minus.iter().any(|w| same(v, w)));
    Ok(Value::set_of(acc))
}

/// `setproduct(sets…)`: every combination of one element of each, as lists.
pub(super) fn setproduct(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    if args.len() < 2 {
        return Err("at least two arguments are required".into());
    }
    let mut sets = Vec::with_capacity(args.len());
    for (i, value) in args.iter().enumerate() {
        match value {
            Value::List(items) => sets.push(unify(items.clone()).ok_or_else(|| {
                format!("argument {}: all elements must be of the same type", i + 1)
            })?),
            _ => return Err(format!("argument {}: a set or a list is required", i + 1)),
        }
    }
    let total = sets
        .iter()
        .try_fold(1usize, |acc, s| acc.checked_mul(s.len()))
        .unwrap_or(usize::MAX);
    check_items(total)?;
    let mut out: Vec<Vec<Value>> = vec![Vec::new()];
    for set in &sets {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                set.iter().map(move |item| {
                    let mut next = prefix.clone();
                    next.push(item.clone());
                    next
                })
            })
            .collect();
    }
    if total == 0 {
        return Ok(Value::List(Vec::new()));
    }
    Ok(Value::List(out.into_iter().map(Value::List).collect()))
}

/// `slice(list, start, end)`: the elements from `start` up to (not including) `end`.
pub(super) fn slice(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let items = match arg(&args, 0)? {
        Value::List(items) => items,
        _ => return Err("must be a list or tuple value".into()),
    };
    let start = int_arg(&args, 1).map_err(|e| format!("invalid start index: {e}"))?;
    let end = int_arg(&args, 2).map_err(|e| format!("invalid end index: {e}"))?;
    let len = items.len() as i64;
    if start < 0 {
        return Err("start index must not be less than zero".into());
    }
    if start > len {
        return Err("start index must not be greater than the length of the list".into());
    }
    if end < 0 {
        return Err("end index must not be less than zero".into());
    }
    if end > len {
        return Err("end index must not be greater than the length of the list".into());
    }
    if start > end {
        return Err("start index must not be greater than end index".into());
    }
    Ok(Value::List(items[start as usize..end as usize].to_vec()))
}

/// `sort(list)`: strings in lexical (byte) order; numbers convert to strings first.
pub(super) fn sort(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    if let Some(i) = list_arg(&args, 0)?
        .iter()
        .position(|v| matches!(v, Value::Null))
    {
        return Err(format!(
            "given list element {i} is null; a null string cannot be sorted"
        ));
    }
    let mut items = string_list_arg(&args, 0)?;
    items.sort();
    Ok(Value::List(items.into_iter().map(Value::String).collect()))
}

/// `sum(list)`: the numbers added (numeric strings convert).
pub(super) fn sum(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let items = match arg(&args, 0)? {
        Value::List(items) => items,
        Value::Object(_) => {
            return Err("argument must be list, set, or tuple. Received object".into())
        }
        _ => return Err("cannot sum noniterable".into()),
    };
    if items.is_empty() {
        return Err("cannot sum an empty list".into());
    }
    let mut total = 0.0;
    for item in items {
        let n = super::to_number(item)
            .ok_or("argument must be list, set, or tuple of number values")?;
        total += n;
    }
    if total.is_nan() {
        return Err("can't compute sum of opposing infinities".into());
    }
    Ok(Value::Number(total))
}

/// `transpose(map)`: a map of lists of strings turned inside out: each string to the
/// sorted keys whose lists hold it.
pub(super) fn transpose(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (key, value) in object_arg(&args, 0)? {
        let items = match value {
            Value::List(items) => items,
            Value::Null => return Err("input must not contain null list".into()),
            _ => return Err("input must be a map of lists of strings".into()),
        };
        for item in items {
            match item {
                Value::String(s) => out.entry(s).or_default().push(key.clone()),
                Value::Null => return Err("input list must not contain null string".into()),
                _ => return Err("input must be a map of lists of strings".into()),
            }
        }
    }
    Ok(Value::Object(
        out.into_iter()
            .map(|(k, mut v)| {
                v.sort();
                (k, Value::List(v.into_iter().map(Value::String).collect()))
            })
            .collect(),
    ))
}

/// `zipmap(keys, values)`: a map from the keys to the values at the same positions.
pub(super) fn zipmap(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let keys = list_arg(&args, 0)?;
    let values = match arg(&args, 1)? {
        Value::List(items) => items.clone(),
        _ => return Err("values argument must be a list or tuple value".into()),
    };
    if keys.len() != values.len() {
        return Err(format!(
            "number of keys ({}) does not match number of values ({})",
            keys.len(),
            values.len()
        ));
    }
    let mut out = BTreeMap::new();
    for (i, (key, value)) in keys.into_iter().zip(values).enumerate() {
        let key = match key {
            Value::Null => return Err(format!("keys list has null value at index {i}")),
            other => other.as_string().ok_or_else(|| {
                format!(
                    "keys must be strings, and key {i} is a {}",
                    other.type_name()
                )
            })?,
        };
        out.insert(key, value);
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{b, check, list, n, obj, s, strs, Case};
    use crate::eval::value::{Marks, Value};

    /// Cases from Terraform `internal/lang/funcs/collection_test.go` and go-cty
    /// `cty/function/stdlib/collection_test.go`, `sequence_test.go`, `set_test.go`.
    #[test]
    fn collection_functions() {
        let nums = |v: &[f64]| list(v.iter().map(|x| n(*x)).collect());
        let cases: &[Case] = &[
            ("alltrue([true, true])", Ok(b(true))),
            ("alltrue([true, false])", Ok(b(false))),
            ("alltrue([])", Ok(b(true))),
            ("alltrue([\"true\"])", Ok(b(true))),
            ("alltrue([true, null])", Ok(b(false))),
            ("alltrue([1])", Err("a list of bools is required")),
            ("anytrue([false, true])", Ok(b(true))),
            ("anytrue([])", Ok(b(false))),
            ("anytrue([null, false])", Ok(b(false))),
            ("chunklist([\"a\", \"b\", \"c\"], 2)", Ok(list(vec![strs(&["a", "b"]), strs(&["c"])]))),
            ("chunklist([\"a\", \"b\"], 0)", Ok(list(vec![strs(&["a", "b"])]))),
            ("chunklist([], 2)", Ok(list(vec![]))),
            ("chunklist([\"a\"], -1)", Err("the size argument must be positive")),
            ("coalesce(\"\", \"b\")", Ok(s("b"))),
            ("coalesce(null, 1)", Ok(n(1.0))),
            ("coalesce(1, \"a\")", Ok(s("1"))),
            ("coalesce(\"\", null)", Err("no non-null, non-empty-string arguments")),
            ("coalesce(1, true)", Err("all arguments must have the same type")),
            ("coalescelist([], [\"a\"])", Ok(strs(&["a"]))),
            ("coalescelist([], [])", Err("no non-null arguments")),
            ("coalescelist(\"a\")", Err("coalescelist arguments must be lists or tuples")),
            ("compact([\"a\", \"\", null, \"b\"])", Ok(strs(&["a", "b"]))),
            ("compact([])", Ok(list(vec![]))),
            ("concat([\"a\"], [\"b\", \"c\"])", Ok(strs(&["a", "b", "c"]))),
            ("concat([1], [\"a\"])", Ok(list(vec![n(1.0), s("a")]))),
            ("concat([1], \"a\")", Err("all arguments must be lists or tuples; got string")),
            ("concat()", Err("at least one argument is required")),
            ("contains([\"a\", \"b\"], \"b\")", Ok(b(true))),
            ("contains([\"a\", \"b\"], \"c\")", Ok(b(false))),
            ("contains([1, 2], 2)", Ok(b(true))),
            ("contains(\"a\", \"a\")", Err("argument must be list, tuple, or set")),
            ("distinct([\"a\", \"b\", \"a\", \"c\"])", Ok(strs(&["a", "b", "c"]))),
            ("distinct([])", Ok(list(vec![]))),
            ("element([\"a\", \"b\", \"c\"], 1)", Ok(s("b"))),
            ("element([\"a\", \"b\", \"c\"], 4)", Ok(s("b"))),
            ("element([\"a\", \"b\", \"c\"], -1)", Ok(s("c"))),
            ("element([], 0)", Err("cannot use element function with an empty list")),
            ("element([\"a\"], 1.5)", Err("invalid index")),
            ("flatten([[\"a\", \"b\"], [], [\"c\", [\"d\"]]])", Ok(strs(&["a", "b", "c", "d"]))),
            ("flatten([])", Ok(list(vec![]))),
            ("flatten([{a = 1}])", Ok(list(vec![obj(&[("a", n(1.0))])]))),
            ("flatten(\"a\")", Err("can only flatten lists, sets and tuples")),
            ("index([\"a\", \"b\"], \"b\")", Ok(n(1.0))),
            ("index([\"a\", \"b\"], \"z\")", Err("item not found")),
            ("index([], \"z\")", Err("cannot search an empty list")),
            ("index({a = 1}, 1)", Err("argument must be a list or tuple")),
            ("keys({b = 1, a = 2})", Ok(strs(&["a", "b"]))),
            ("keys({})", Ok(list(vec![]))),
            ("keys([1])", Err("must have map or object type")),
            ("values({b = 1, a = 2})", Ok(nums(&[2.0, 1.0]))),
            ("values(\"a\")", Err("values() requires a map")),
            ("length(\"hello\")", Ok(n(5.0))),
            ("length(\"\")", Ok(n(0.0))),
            ("length(\"e\\u0301\")", Ok(n(1.0))),
            ("length(\"👾🕹️\")", Ok(n(2.0))),
            ("length([1, 2])", Ok(n(2.0))),
            ("length({a = 1})", Ok(n(1.0))),
            ("length(1)", Err("argument must be a string, a collection type, or a structural type")),
            ("list(\"a\")", Err("the \"list\" function was deprecated in Terraform v0.12 and is no longer available; use tolist([ ... ]) syntax")),
            ("map(\"a\", 1)", Err("use tomap({ ... }) syntax to write a literal map")),
            ("lookup({a = \"x\"}, \"a\")", Ok(s("x"))),
            ("lookup({a = \"x\"}, \"b\", \"y\")", Ok(s("y"))),
            ("lookup({a = \"x\"}, \"b\")", Err("lookup failed to find key \"b\"")),
            ("lookup({a = \"x\"}, var.secret)", Err("lookup failed to find key (sensitive value)")),
            ("lookup({a = var.secret}, \"a\")", Ok(s("s").mark(Marks::SENSITIVE))),
            ("lookup({a = 1}, var.unknown, 2)", Ok(Value::unknown("var.unknown is not const"))),
            ("lookup({a = 1}, \"b\", var.unknown)", Ok(Value::unknown("var.unknown is not const"))),
            ("lookup([1], \"a\")", Err("lookup() requires a map as the first argument")),
            ("lookup({}, \"a\", 1, 2)", Err("lookup() takes two or three arguments, got 4")),
            ("matchkeys([\"i-1\", \"i-2\", \"i-3\"], [\"a\", \"b\", \"a\"], [\"a\"])", Ok(strs(&["i-1", "i-3"]))),
            ("matchkeys([\"a\"], [1], [\"1\"])", Ok(strs(&["a"]))),
            ("matchkeys([\"a\", \"b\"], [1], [1])", Err("length of keys and values should be equal")),
            ("merge({a = 1}, {b = 2}, {a = 3})", Ok(obj(&[("a", n(3.0)), ("b", n(2.0))]))),
            ("merge()", Ok(obj(&[]))),
            ("merge({a = 1}, null)", Ok(obj(&[("a", n(1.0))]))),
            ("merge({a = 1}, [1])", Err("arguments must be maps or objects")),
            ("one([])", Ok(Value::Null)),
            ("one([\"a\"])", Ok(s("a"))),
            ("one([\"a\", \"b\"])", Err("must be a list, set, or tuple value with either zero or one elements")),
            ("one(\"a\")", Err("must be a list, set, or tuple value with either zero or one elements")),
            ("range(3)", Ok(nums(&[0.0, 1.0, 2.0]))),
            ("range(-3)", Ok(nums(&[0.0, -1.0, -2.0]))),
            ("range(1, 4)", Ok(nums(&[1.0, 2.0, 3.0]))),
            ("range(4, 1)", Ok(nums(&[4.0, 3.0, 2.0]))),
            ("range(0, 1, 0.25)", Ok(nums(&[0.0, 0.25, 0.5, 0.75]))),
            ("range(0, 0.5, 0.1)", Ok(nums(&[0.0, 0.1, 0.2, 0.3, 0.4]))),
            ("range(0)", Ok(nums(&[]))),
            ("range(1, 4, -1)", Err("end must be less than start when step is negative")),
            ("range(4, 1, 1)", Err("end must be greater than start when step is positive")),
            ("range(0, 1, 0)", Err("step must not be zero")),
            ("range(1025)", Err("more than 1024 values were generated")),
            ("range(1e300)", Err("more than 1024 values were generated")),
            ("length(range(1024))", Ok(n(1024.0))),
            ("range()", Err("must have one, two, or three arguments")),
            ("reverse([1, 2, 3])", Ok(nums(&[3.0, 2.0, 1.0]))),
            ("reverse(\"a\")", Err("can only reverse list or tuple values, not string")),
            ("setunion([\"a\", \"b\"], [\"b\", \"c\"])", Ok(strs(&["a", "b", "c"]))),
            ("setunion([\"a\"], [1])", Ok(strs(&["1", "a"]))),
            ("setintersection([\"a\", \"b\"], [\"b\", \"c\"], [\"b\"])", Ok(strs(&["b"]))),
            ("setintersection([\"a\"], [\"b\"])", Ok(list(vec![]))),
            ("setsubtract([\"a\", \"b\", \"c\"], [\"a\", \"c\"])", Ok(strs(&["b"]))),
            ("setunion([1], [true])", Err("given sets must all have compatible element types")),
            (
                "setproduct([\"a\", \"b\"], [1, 2])",
                Ok(list(vec![
                    list(vec![s("a"), n(1.0)]),
                    list(vec![s("a"), n(2.0)]),
                    list(vec![s("b"), n(1.0)]),
                    list(vec![s("b"), n(2.0)]),
                ])),
            ),
            ("setproduct([\"a\"], [])", Ok(list(vec![]))),
            ("setproduct([\"a\"])", Err("at least two arguments are required")),
            ("setproduct([\"a\"], \"b\")", Err("a set or a list is required")),
            ("setproduct(range(1024), range(1024), range(2))", Err("more than the")),
            ("slice([\"a\", \"b\", \"c\", \"d\"], 1, 3)", Ok(strs(&["b", "c"]))),
            ("slice([\"a\"], 0, 0)", Ok(list(vec![]))),
            ("slice([\"a\"], -1, 1)", Err("start index must not be less than zero")),
            ("slice([\"a\"], 0, 2)", Err("end index must not be greater than the length of the list")),
            ("slice([\"a\"], 1, 0)", Err("start index must not be greater than end index")),
            ("slice([\"a\"], 2, 2)", Err("start index must not be greater than the length")),
            ("sort([\"b\", \"a\", \"C\"])", Ok(strs(&["C", "a", "b"]))),
            ("sort([3, 1, 10])", Ok(strs(&["1", "10", "3"]))),
            ("sort([\"a\", null])", Err("given list element 1 is null; a null string cannot be sorted")),
            ("sum([1, 2, 3.5])", Ok(n(6.5))),
            ("sum([\"1\", 2])", Ok(n(3.0))),
            ("sum([])", Err("cannot sum an empty list")),
            ("sum([\"a\"])", Err("argument must be list, set, or tuple of number values")),
            ("sum(1)", Err("cannot sum noniterable")),
            (
                "transpose({a = [\"1\", \"2\"], b = [\"2\", \"3\"]})",
                Ok(obj(&[("1", strs(&["a"])), ("2", strs(&["a", "b"])), ("3", strs(&["b"]))])),
            ),
            ("transpose({a = [1]})", Err("input must be a map of lists of strings")),
            ("transpose({a = [null]})", Err("input list must not contain null string")),
            ("zipmap([\"a\", \"b\"], [1, 2])", Ok(obj(&[("a", n(1.0)), ("b", n(2.0))]))),
            ("zipmap([], [])", Ok(obj(&[]))),
            ("zipmap([\"a\"], [1, 2])", Err("number of keys (1) does not match number of values (2)")),
            ("zipmap([null], [1])", Err("keys list has null value at index 0")),
        ];
        check(cases);
    }
}
