//! The keys a serde type reads, found by deserializing it from a [`Recorder`]: a
//! deserializer that holds no data and writes down the `fields` serde's derive passes to
//! `deserialize_struct`, then offers each field in turn so that nested tables
//! (`[[var_files]]`) are reached too.
//!
//! A field's value is fabricated: a sequence has one element, an option is `Some`, and a
//! scalar is an error (the recorder cannot know what a validator would accept). An error
//! ends one pass over the type, so passes repeat, each skipping the fields already
//! explored, until one adds nothing. Keys are dotted below their table (`var_files.roots`);
//! serde's private structs (`$__serde_spanned_private_…`, behind `toml::Spanned`) are
//! values, not tables. Not reached: `#[serde(flatten)]` fields (serde reads them as a map)
//! and map-typed tables, whose keys are data.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

#[derive(Default)]
struct State {
    keys: BTreeSet<String>,
    /// Keys whose value has been explored to the end.
    done: BTreeSet<String>,
    /// Bumped whenever a key is found or finished: a pass without progress is the last.
    progress: u64,
}

/// The deserializer: `prefix` is the dotted key of the table being read.
pub struct Recorder {
    state: Rc<RefCell<State>>,
    prefix: String,
}

impl Recorder {
    fn at(&self, prefix: String) -> Recorder {
        Recorder {
            state: Rc::clone(&self.state),
            prefix,
        }
    }
}

/// Every key `deserialize` reads, dotted below its table.
pub fn keys(deserialize: impl Fn(Recorder) -> Result<(), Error>) -> BTreeSet<String> {
    let state = Rc::new(RefCell::new(State::default()));
    loop {
        let before = state.borrow().progress;
        // Every pass ends in an error (a scalar) or in a value; either way the state
        // says what it reached.
        let _ = deserialize(Recorder {
            state: Rc::clone(&state),
            prefix: String::new(),
        });
        if state.borrow().progress == before {
            break;
        }
    }
    let keys = state.borrow().keys.clone();
    keys
}

impl<'de> de::Deserializer<'de> for Recorder {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
        Err(Error(format!("{}: a value", self.prefix)))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(OneElement(Some(self)))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name.starts_with('$') {
            return Err(Error(format!("{}: a value", self.prefix)));
        }
        let mut pending = Vec::new();
        {
            let mut state = self.state.borrow_mut();
            for field in fields {
                let key = if self.prefix.is_empty() {
                    field.to_string()
                } else {
                    format!("{}.{field}", self.prefix)
                };
                if state.keys.insert(key.clone()) {
                    state.progress += 1;
                }
                if !state.done.contains(&key) {
                    pending.push((key, *field));
                }
            }
        }
        pending.reverse();
        visitor.visit_map(Fields {
            recorder: self,
            pending,
            current: None,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct tuple tuple_struct map enum identifier ignored_any
    }
}

/// A sequence of one element, read by the same recorder.
struct OneElement(Option<Recorder>);

impl<'de> SeqAccess<'de> for OneElement {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.0.take() {
            Some(recorder) => seed.deserialize(recorder).map(Some),
            None => Ok(None),
        }
    }
}

/// The fields of one table not explored yet, each offered as a key.
struct Fields {
    recorder: Recorder,
    /// Reversed: the next one last.
    pending: Vec<(String, &'static str)>,
    current: Option<String>,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, field)) = self.pending.pop() else {
            return Ok(None);
        };
        self.current = Some(key);
        seed.deserialize(de::value::StrDeserializer::<Error>::new(field))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let key = self.current.take().unwrap_or_default();
        let before = self.recorder.state.borrow().progress;
        let value = seed.deserialize(self.recorder.at(key.clone()));
        let mut state = self.recorder.state.borrow_mut();
        if state.progress == before {
            state.done.insert(key);
            state.progress += 1;
        }
        value
    }
}
