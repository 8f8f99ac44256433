//! The bounds that keep evaluating a hostile Terragrunt file finite: no input may overflow
//! the stack, recurse forever or grow values without end (issue "Safe on an untrusted
//! checkout"). A file that hits one fails its unit with a message naming the limit.
//!
//! **Stack.** hcl-edit's parser rejects expressions nested more than 64 levels or chained
//! through more than 128 binary operators, so one file's parse and evaluation need a
//! bounded stack; `read_terragrunt_config` nests one file's evaluation inside another's,
//! up to [`MAX_READ_DEPTH`] files. Measured with the worst nesting hcl-edit accepts
//! (62 nested `for` expressions, the deepest frames) on this machine: one file takes
//! 2.3 MiB in a debug build and 0.6 MiB in a release build, each further file read 0.3
//! MiB (debug), so the deepest chain needs about 7 MiB in a debug build. Callers run on
//! threads of unknown size (a tokio worker has 2 MiB), so evaluation runs on a thread of
//! its own with [`EVAL_STACK_SIZE`] ([`on_eval_stack`]); a test checks the deepest
//! chain in a quarter of it.
//!
//! **Values.** Each local's value is checked ([`check_value`]): locals that double a
//! string or nest a list once per local would otherwise grow exponentially, or deeper
//! than the recursive `Drop` and `Clone` of `hcl::Value` can go.
//!
//! Not bounded: one expression can still multiply values, as `for` expressions and
//! template `for` directives evaluate their body once per element (`[for a in local.l :
//! [for b in local.l : local.big]]`); hcl-rs gives no hook to count that work.
//!
//! **Files.** A path in a Terragrunt file (or a symbolic link in the repository) can
//! name any file on the machine, such as `/proc/kcore`, so files are read through
//! [`read_file`], which stops at [`MAX_FILE_BYTES`].

use std::cell::RefCell;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use crate::early::TextOverrides;
use crate::eval::value::Value;

/// Texts read in place of the files on disk: the configuration as an upgrade edited it,
/// while the relock reads it ([`with_edited`]).
pub type EditedTexts = Arc<dyn TextOverrides + Send + Sync>;

thread_local! {
    static EDITED: RefCell<Option<EditedTexts>> = const { RefCell::new(None) };
}

/// Runs `f` with `edited` read in place of the files it holds (by [`read_file`], on this
/// thread and the evaluation threads it starts).
pub fn with_edited<T>(edited: Option<EditedTexts>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<EditedTexts>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            EDITED.with(|e| *e.borrow_mut() = before);
        }
    }
    let _restore = Restore(EDITED.with(|e| e.replace(edited)));
    f()
}

/// How many files `read_terragrunt_config` may nest (the file being evaluated not
/// counted). Real configurations read one or two levels (an `env.hcl` that reads an
/// `account.hcl`).
pub(crate) const MAX_READ_DEPTH: usize = 16;

/// The stack of the evaluation thread: four times the measured need of the deepest input
/// in a debug build. Only the pages used are ever committed.
pub(crate) const EVAL_STACK_SIZE: usize = 32 << 20;

/// The largest value a local may hold: bytes of strings plus 16 per list, object or
/// scalar. Real locals hold names, paths and small maps.
pub(crate) const MAX_VALUE_BYTES: usize = 1 << 20;

/// How deeply lists and objects may nest in a local's value (each read file adds two
/// levels: `{ locals = { … } }`).
pub(crate) const MAX_VALUE_DEPTH: usize = 256;

/// The largest Terragrunt or configuration file tfsum reads for a unit. Real ones are a
/// few kilobytes.
pub(crate) const MAX_FILE_BYTES: u64 = 4 << 20;

/// Reads a text file of at most [`MAX_FILE_BYTES`]; a larger one is an
/// [`std::io::ErrorKind::InvalidData`] error saying so. An edited file
/// ([`with_edited`]) is read as edited.
pub(crate) fn read_file(path: &Path) -> std::io::Result<String> {
    let edited = EDITED.with(|e| {
        let e = e.borrow();
        e.as_ref()?.text_of(path).map(str::to_string)
    });
    if let Some(text) = edited {
        return Ok(text);
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB, more than tfsum reads of a Terragrunt unit's file",
                MAX_FILE_BYTES >> 20
            ),
        ));
    }
    Ok(text)
}

/// Runs `f` on a thread whose stack is [`EVAL_STACK_SIZE`], for parsing and evaluating
/// Terragrunt files whatever thread the caller is on. A panic in `f` is resumed in the
/// caller; the error is the operating system's refusal to start a thread.
pub(crate) fn on_eval_stack<T: Send>(f: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    on_stack(EVAL_STACK_SIZE, f)
}

pub(crate) fn on_stack<T: Send>(size: usize, f: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    let edited = EDITED.with(|e| e.borrow().clone());
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("terragrunt-eval".into())
            .stack_size(size)
            .spawn_scoped(scope, move || with_edited(edited, f))?;
        Ok(thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// Whether `value` stays within [`MAX_VALUE_BYTES`] and [`MAX_VALUE_DEPTH`]. Walks
/// without recursion and stops at the first excess, so checking costs at most the limit.
pub(crate) fn check_value(value: &Value) -> Result<(), String> {
    let mut bytes = 0usize;
    let mut stack = vec![(value, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > MAX_VALUE_DEPTH {
            return Err(format!(
                "the value nests lists and objects more than {MAX_VALUE_DEPTH} levels deep"
            ));
        }
        bytes += 16;
        match value {
            Value::String(s) => bytes += s.len(),
            Value::List(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => {
                for (key, v) in map {
                    bytes += key.len();
                    stack.push((v, depth + 1));
                }
            }
            Value::Marked(inner, _) => stack.push((inner, depth)),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Unknown(_) => {}
        }
        if bytes > MAX_VALUE_BYTES {
            return Err(format!(
                "the value is larger than {} MiB",
                MAX_VALUE_BYTES >> 20
            ));
        }
    }
    Ok(())
}
