//! The encoder against answers recorded from kube-apiserver v1.34.9: the same object read in
//! JSON and in YAML (`tests/fixtures/yaml/`).

use super::read::{fold, go_float_g, merge_sort};
use super::*;

fn fixture(name: &str) -> (String, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/yaml/");
    let read = |ext: &str| {
        std::fs::read_to_string(format!("{dir}{name}.{ext}"))
            .unwrap_or_else(|e| panic!("{name}.{ext}: {e}"))
    };
    (read("json"), read("yaml"))
}

fn assert_recorded(name: &str) {
    let (json, yaml) = fixture(name);
    let written = from_json(json.as_bytes()).expect("writable");
    if written != yaml {
        let line = written
            .lines()
            .zip(yaml.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(written.lines().count().min(yaml.lines().count()));
        panic!(
            "{name}: first difference at line {}:\n  written: {:?}\n  recorded: {:?}",
            line + 1,
            written.lines().nth(line),
            yaml.lines().nth(line)
        );
    }
}

#[test]
fn strings_that_read_as_other_types_escapes_and_blocks_as_recorded() {
    // Annotations that would read as bools, nulls, numbers and timestamps; indicators;
    // escapes (a tab, a control character, a BOM, an emoji); literal blocks with each chomp.
    assert_recorded("configmap-tricky");
}

#[test]
fn edge_strings_and_folding_as_recorded() {
    // Float syntax, timestamps out of range, base 60 floats, line and paragraph separators,
    // long plain, single- and double-quoted strings folded past column 80.
    assert_recorded("configmap-edges");
}

#[test]
fn numbers_key_order_and_complex_keys_as_recorded() {
    // Ints, floats (`1e+21`, `1e-06`, `1.234567895e+08`), empty collections, nested lists,
    // keys ordered with their numbers compared as numbers, multi-line and long keys.
    assert_recorded("widget-numbers");
}

#[test]
fn tables_statuses_and_discovery_as_recorded() {
    assert_recorded("table");
    assert_recorded("status-invalid");
    assert_recorded("apis");
}

#[test]
fn characters_a_yaml_stream_does_not_allow_are_refused() {
    assert_eq!(
        from_json("{\"a\":\"x\u{7f}\"}".as_bytes()),
        Err(CONTROL_CHARACTERS)
    );
    assert_eq!(
        from_json("{\"a\":\"x\u{9f}\"}".as_bytes()),
        Err(CONTROL_CHARACTERS)
    );
    assert_eq!(
        from_json("{\"a\":\"\u{85}\u{ffef}\"}".as_bytes()).as_deref(),
        Ok("a: ' \u{ffef}'\n")
    );
}

#[test]
fn floats_in_go_s_shortest_g_form() {
    for (f, text) in [
        (0.5, "0.5"),
        (1e21, "1e+21"),
        (1e20, "1e+20"),
        (1e-6, "1e-06"),
        (1e-7, "1e-07"),
        (0.0001, "0.0001"),
        (123456.5, "123456.5"),
        (1234567.5, "1.2345675e+06"),
        (-2.5e-5, "-2.5e-05"),
        (1.8446744073709552e19, "1.8446744073709552e+19"),
    ] {
        assert_eq!(go_float_g(f), text);
    }
}

#[test]
fn keys_ordered_as_yaml_v2_s_key_list() {
    let mut keys = vec![
        "b", "a10", "a2", "10b", "9b", "", "_u", "x_1", "x.1", "x-1", "a01", "a001", "a1", "ä",
        "B", "base",
    ];
    merge_sort(&mut keys);
    assert_eq!(
        keys,
        [
            "", "_u", "9b", "10b", "B", "a1", "a01", "a001", "a2", "a10", "b", "base", "x-1",
            "x.1", "x_1", "ä"
        ]
    );
}

/// Past ASCII, letters are Unicode's category L (a combining vowel sign is none) and digits
/// its Nd, valued as Go's `keyList` values them (the rune minus `'0'`); the order recorded
/// from the real server's YAML answer.
#[test]
fn keys_past_ascii_ordered_by_go_s_letters_and_digits() {
    let expected = [
        "a\u{b2}",
        "a\u{93e}",
        "a\u{2167}",
        "a1",
        "a2",
        "a9",
        "a10",
        "a\u{663}",
        "a\u{967}",
        "a\u{660}1",
        "a\u{663}\u{663}",
        "aZ",
        "ab",
        "a\u{e9}",
        "b",
        "b\u{301}",
    ];
    let mut keys: Vec<&str> = expected.iter().rev().copied().collect();
    keys.swap(3, 9);
    merge_sort(&mut keys);
    assert_eq!(keys, expected);
}

#[test]
fn a_raw_next_line_is_folded_as_the_reader_folds_it() {
    assert_eq!(fold("a\u{85}b"), "a b");
    assert_eq!(fold("a  \u{85}  b"), "a b");
    assert_eq!(fold("a\u{85}\u{85}\u{85}b"), "a\n\nb");
    assert_eq!(fold("a  b"), "a  b");
    assert_eq!(fold("\u{85}x"), " x");
}
