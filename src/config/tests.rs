//! Tests for module loading (fixtures under `testdata/config/`).
