//! Table tests for constraints: canonical rendering, parse errors and matching (spec §4).

use super::*;

fn v(s: &str) -> Version {
    Version::parse(s).unwrap()
}

/// Every case of Terraform's `TestVersionConstraintsString` (vectors/constraints_canonical.json
/// and the spec §4.5 table), plus the spec's derived examples and a few more.
#[test]
fn canonical_strings() {
    let cases = [
        // constraints_canonical.json
        ("1.2.3", "1.2.3"),
        ("1.2.3-beta", "1.2.3-beta"),
        ("1.2.3+foo.bar", "1.2.3+foo.bar"),
        ("1.2.3-beta+foo.bar", "1.2.3-beta+foo.bar"),
        (">= 3", ">= 3.0.0"),
        ("~> 3", "~> 3.0"),
        ("~> 3.0", "~> 3.0"),
        ("~> 3.0.0", "~> 3.0.0"),
        (
            "> 1.0.0, < 1.0.0, >= 1.0.0, <= 1.0.0, != 1.0.0",
            "> 1.0.0, >= 1.0.0, <= 1.0.0, < 1.0.0, != 1.0.0",
        ),
        (">= 3.0, < 4.0", ">= 3.0.0, < 4.0.0"),
        (">= 1.2.3, 1.2.3, ~> 1.2, 1.2.3", "~> 1.2, >= 1.2.3, 1.2.3"),
        (">= 2.68, >= 2.68.0", ">= 2.68.0"),
        (
            "< 1.2.3, <= 1.2.3, != 1.2.3, 1.2.3+local.2, 1.2.3+local.1, = 1.2.4, = 1.2.3, > 2, > 1.2.3, >= 1.2.3, ~> 1.2.3, ~> 1.2",
            "~> 1.2, > 1.2.3, >= 1.2.3, 1.2.3, ~> 1.2.3, <= 1.2.3, < 1.2.3, != 1.2.3, 1.2.3+local.1, 1.2.3+local.2, 1.2.4, > 2.0.0",
        ),
        ("~> 1.2, >= 1.2, 1.2.4", ">= 1.2.0, ~> 1.2, 1.2.4"),
        (">= 2, >= 1.2, < 1.3", ">= 1.2.0, < 1.3.0, >= 2.0.0"),
        // spec §4.5 derived examples and TestSaveLocksToFile inputs
        ("= 1.2", "1.2.0"),
        ("1.2", "1.2.0"),
        ("~> 1", "~> 1.0"),
        (
            ">= 2.23.0, >= 3.63.0, >= 3.72.0",
            ">= 2.23.0, >= 3.63.0, >= 3.72.0",
        ),
        // more: spacing, dedupe of `~> 2` with `~> 2.0`, prerelease quirk in ordering
        ("", ""),
        ("  >=1.0 ,<2 ", ">= 1.0.0, < 2.0.0"),
        ("~> 2, ~> 2.0", "~> 2.0"),
        ("~> 2.1, ~> 2.1.0", "~> 2.1.0, ~> 2.1"),
        ("~> 1.0-beta", "~> 1.0-beta"),
        ("= 1.0.0-alpha.1, = 1.0.0-beta", "1.0.0-beta, 1.0.0-alpha.1"),
        ("1.0.0, 1.0.0-rc1", "1.0.0-rc1, 1.0.0"),
        (">= 1.0.0+b, >= 1.0.0+a, >= 1.0.0", ">= 1.0.0, >= 1.0.0+a, >= 1.0.0+b"),
        ("!= 0.1, > 0.0.1, < 01.002", "> 0.0.1, != 0.1.0, < 1.2.0"),
    ];
    for (input, want) in cases {
        let c = Constraints::parse_ruby_style(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
        assert_eq!(c.canonical(), want, "{input:?}");
        assert_eq!(c.to_string(), want, "{input:?}");
        // The canonical form is itself canonical.
        let again = Constraints::parse_ruby_style(want).unwrap();
        assert_eq!(again.canonical(), want, "{want:?}");
    }
}

/// Strings Terraform rejects, with go-versions' reason (VECTORS.md §E, ruby_style_test.go)
/// or, for those only hashicorp/go-version rejects, the syntax error.
#[test]
fn parse_errors() {
    let syntax = |piece: &str| {
        ConstraintError::Syntax {
            piece: piece.to_string(),
        }
        .to_string()
    };
    let cases: Vec<(&str, String)> = vec![
        (
            "=> 1.1.1",
            r#"invalid specification "=> 1.1.1": invalid constraint operator "=>"; did you mean ">="?"#.into(),
        ),
        (
            "=>1.1.1",
            r#"invalid specification "=>1.1.1": invalid constraint operator "=>"; did you mean ">="?"#.into(),
        ),
        (
            "=< 1.1.1",
            r#"invalid specification "=< 1.1.1": invalid constraint operator "=<"; did you mean "<="?"#.into(),
        ),
        (
            "=  1.1.1",
            r#"invalid specification "=  1.1.1": only one space is expected after the operator "=""#.into(),
        ),
        (
            ">=  1.2",
            r#"invalid specification ">=  1.2": only one space is expected after the operator ">=""#.into(),
        ),
        (
            ">=\t1.2",
            r#"invalid specification ">=\t1.2": only one space is expected after the operator ">=""#.into(),
        ),
        (
            "1.*.*",
            r#"invalid specification "1.*.*": can't use wildcard for minor number; omit segments that should be unconstrained"#.into(),
        ),
        (
            "1.0.x",
            r#"invalid specification "1.0.x": can't use wildcard for patch number; omit segments that should be unconstrained"#.into(),
        ),
        (
            "~> X",
            r#"invalid specification "~> X": can't use wildcard for major number; omit segments that should be unconstrained"#.into(),
        ),
        (">= 1.0 < 2", r#"missing comma after ">= 1.0""#.into()),
        (
            "~> v1.1.1",
            r#"invalid specification "~> v1.1.1": a "v" prefix should not be used"#.into(),
        ),
        (
            ">= 1.0, < v2.0",
            r#"invalid specification "< v2.0": a "v" prefix should not be used"#.into(),
        ),
        (
            "v1.2",
            r#"invalid specification "v1.2": a "v" prefix should not be used"#.into(),
        ),
        ("1.0 v2", r#"a "v" prefix should not be used"#.into()),
        (
            "1.2.3.4",
            r#"invalid specification "1.2.3.4": too many numbered portions; only three are allowed (major, minor, patch)"#.into(),
        ),
        ("1.0.0beta", r#"missing comma after "1.0.0""#.into()),
        (
            "& 1.1.0",
            r#"invalid specification "& 1.1.0": invalid constraint operator "&""#.into(),
        ),
        (
            "== 1.0",
            r#"invalid specification "== 1.0": invalid constraint operator "==""#.into(),
        ),
        (
            "^1.0",
            r#"invalid specification "^1.0": invalid constraint operator "^""#.into(),
        ),
        (
            "garbage",
            r#"invalid specification "garbage": invalid characters "garbage""#.into(),
        ),
        (
            ">=",
            r#"invalid specification ">=": a version number is required"#.into(),
        ),
        (
            "1.0,,2.0",
            r#"invalid specification ",2.0": invalid constraint operator ",""#.into(),
        ),
        ("1.0 || 2.0", r#"missing comma after "1.0""#.into()),
        // go-versions accepts these; hashicorp/go-version does not (spec §4.2).
        ("", syntax("")),
        ("  ", syntax("  ")),
        (">= 1.0,", syntax("")),
        ("1.0\x0b", syntax("1.0\x0b")),
        ("1.0.", r#"missing comma after "1.0""#.into()),
        ("1.0-", r#"missing comma after "1.0""#.into()),
        ("1.0.0-beta~1", r#"missing comma after "1.0.0-beta""#.into()),
    ];
    for (input, want) in cases {
        match Constraints::parse(input) {
            Ok(c) => panic!("{input:?} should fail, parsed as {c:?}"),
            Err(e) => assert_eq!(e.to_string(), want, "{input:?}"),
        }
    }
    // The VECTORS.md §E reasons, without the "invalid specification" wrapper.
    let reasons = [
        (
            "=> 1.1.1",
            r#"invalid constraint operator "=>"; did you mean ">="?"#,
        ),
        (
            "=< 1.1.1",
            r#"invalid constraint operator "=<"; did you mean "<="?"#,
        ),
        (
            "=  1.1.1",
            r#"only one space is expected after the operator "=""#,
        ),
        (
            "1.*.*",
            "can't use wildcard for minor number; omit segments that should be unconstrained",
        ),
        (">= 1.0 < 2", r#"missing comma after ">= 1.0""#),
        ("~> v1.1.1", r#"a "v" prefix should not be used"#),
    ];
    for (input, want) in reasons {
        let e = Constraints::parse(input).unwrap_err();
        assert_eq!(e.reason(), want, "{input:?}");
    }
    // Accepted by both parsers.
    for ok in [
        "1.2.3",
        ">=1.0",
        " >= 1.0 , < 2.0 ",
        "~> 1.0.0-beta.1+build-7",
        "1.0.0--x",
        "!=1.2",
        "= 1",
        "\t~> 3.1\n",
    ] {
        assert!(Constraints::parse(ok).is_ok(), "{ok:?}");
    }
    // The empty string is fine for a lock file's `constraints`, which skips go-version.
    assert!(Constraints::parse_ruby_style("").unwrap().is_empty());
}

/// What a constraint string allows (spec §4.4): each row lists versions in and out.
#[test]
fn allows() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("", &["0.0.1", "1.0.0", "99.0.0+meta"], &["1.0.0-beta"]),
        (
            "1.2",
            &["1.2.0"],
            &["1.2.1", "1.2.0+meta", "1.3.0", "1.1.9"],
        ),
        ("= 1.2.3", &["1.2.3"], &["1.2.4", "1.2.3+x", "1.2.3-rc1"]),
        ("1.2.3+x", &["1.2.3+x"], &["1.2.3", "1.2.3+y"]),
        (
            "!= 1.2.3",
            &["1.2.2", "1.2.4", "1.2.3+x"],
            &["1.2.3", "1.2.4-rc1"],
        ),
        (
            "> 1.2.3",
            &["1.2.4", "2.0.0"],
            &["1.2.3", "1.2.3+x", "1.0.0", "1.2.4-rc1"],
        ),
        (
            ">= 1.2.3",
            &["1.2.3", "1.2.3+x", "5.0.0"],
            &["1.2.2", "1.2.3-rc1"],
        ),
        (
            "< 1.2.3",
            &["1.2.2", "0.1.0"],
            &["1.2.3", "1.2.4", "1.2.3-rc1"],
        ),
        ("<= 1.2.3", &["1.2.3", "1.0.0"], &["1.2.4"]),
        (
            "~> 2",
            &["2.0.0", "2.9.9"],
            &["1.9.9", "3.0.0", "3.0.0-rc1"],
        ),
        ("~> 2.0", &["2.0.0", "2.9.9"], &["1.9.9", "3.0.0"]),
        ("~> 2.1", &["2.1.0", "2.9.0"], &["2.0.9", "3.0.0"]),
        ("~> 2.1.0", &["2.1.0", "2.1.9"], &["2.0.9", "2.2.0"]),
        ("~> 0.1.2", &["0.1.2", "0.1.99"], &["0.2.0", "0.1.1"]),
        (
            ">= 1.0, < 2.0, != 1.5.0",
            &["1.0.0", "1.4.9", "1.5.1"],
            &["1.5.0", "2.0.0"],
        ),
        (">= 2.0, < 1.0", &[], &["0.5.0", "1.5.0", "2.5.0"]),
        // Prereleases: only when named exactly with `=` or bare.
        (
            "1.0.0-beta",
            &["1.0.0-beta"],
            &["1.0.0", "1.0.0-beta.1", "1.0.0-alpha"],
        ),
        ("= 1.0.0-beta, >= 0.9", &["1.0.0-beta"], &["1.0.0"]),
        (
            ">= 1.0.0-beta",
            &["1.0.0", "1.1.0"],
            &["1.0.0-beta", "1.0.0-rc1", "1.1.0-rc1"],
        ),
        (
            "~> 1.0-beta",
            &["1.0.0", "1.9.0"],
            &["1.0.0-beta", "1.0.0-rc1"],
        ),
        ("1.0.0-beta, 1.0.0-rc1", &[], &["1.0.0-beta", "1.0.0-rc1"]),
    ];
    for (input, yes, no) in cases {
        let c = Constraints::parse(input)
            .or_else(|_| Constraints::parse_ruby_style(input))
            .unwrap_or_else(|e| panic!("{input:?}: {e}"));
        for s in *yes {
            assert!(c.allows(&v(s)), "{input:?} should allow {s}");
        }
        for s in *no {
            assert!(!c.allows(&v(s)), "{input:?} should not allow {s}");
        }
    }
}

#[test]
fn extend_intersects() {
    let mut c = Constraints::parse(">= 2.23.0").unwrap();
    c.extend(&Constraints::parse("~> 3.0, >= 2.23.0").unwrap());
    assert_eq!(c.selections().len(), 3);
    assert_eq!(c.canonical(), ">= 2.23.0, ~> 3.0");
    assert!(c.allows(&v("3.5.0")));
    assert!(!c.allows(&v("2.50.0")));
    let mut empty = Constraints::default();
    assert!(empty.is_empty());
    empty.extend(&Constraints::default());
    assert!(empty.is_empty());
}

#[test]
fn newest_allowed_picks_highest() {
    let available: Vec<Version> = [
        "1.0.0",
        "2.0.0-rc1",
        "1.9.0",
        "2.0.0",
        "2.1.0-beta",
        "1.10.0",
        "3.0.0",
    ]
    .iter()
    .map(|s| v(s))
    .collect();
    let cases = [
        ("", Some("3.0.0")),
        ("~> 1.0", Some("1.10.0")),
        ("< 2.0.0", Some("1.10.0")),
        ("~> 2.0.0", Some("2.0.0")),
        ("2.1.0-beta", Some("2.1.0-beta")),
        (">= 2.1.0-beta", Some("3.0.0")),
        ("> 3.0.0", None),
    ];
    for (input, want) in cases {
        let c = Constraints::parse_ruby_style(input).unwrap();
        assert_eq!(
            newest_allowed(&available, &c)
                .map(ToString::to_string)
                .as_deref(),
            want,
            "{input:?}"
        );
    }
    assert_eq!(newest_allowed(&[], &Constraints::default()), None);
}
