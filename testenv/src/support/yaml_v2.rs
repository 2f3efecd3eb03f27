//! YAML as kube-apiserver writes it: its serializer in YAML mode writes the object as JSON, then
//! converts that JSON with sigs.k8s.io/yaml's `JSONToYAML`, which reads it with yaml.v2 into
//! Go's generic values and writes them back with yaml.v2's `Marshal`. This module mirrors that
//! for a JSON document: the reader's refusal of characters YAML does not allow in a stream,
//! the types the reader gives JSON's numbers (an int, a uint or a float64, written back in
//! Go's shortest `'g'` form), the encoder's key order (`sorter.go`'s `keyList`: numbers
//! within keys compared as numbers, letters before other characters), the scalar style
//! `encode.go` asks for (a literal block for a string with a line feed, plain when
//! [`resolve`] reads it back as a string, double-quoted otherwise) and the style the emitter
//! settles on (`emitterc.go`'s analysis: indicators, leading and trailing spaces, line breaks,
//! characters it escapes), with its layout: a two-space indent, sequences in a mapping at the
//! mapping's indent, empty maps and lists in flow style (`{}`, `[]`), keys longer than 128
//! bytes or spanning lines written as complex keys (`? `), and long plain and quoted scalars
//! folded at spaces past column 80.
//!
//! Letters and digits in keys are told apart as Go's `unicode.IsLetter` (here: alphabetic)
//! and `unicode.IsDigit` (here: ASCII digits) tell them.

mod read;
mod resolve;
mod scalar;
#[cfg(test)]
mod tests;

use serde_json::Value;

use read::{fold_next_lines, number, sorted_keys};
use scalar::{analyze, is_break, is_printable, is_space};

/// Why a document cannot be written in YAML: the message of the real server's 500.
pub const CONTROL_CHARACTERS: &str = "yaml: control characters are not allowed";

/// The JSON document `json` in YAML, as `JSONToYAML` writes it; `Err` with yaml.v2's message
/// when its reader refuses the JSON (a character YAML does not allow in a stream, such as
/// U+007F or U+0080).
pub fn from_json(json: &[u8]) -> Result<String, &'static str> {
    let text = std::str::from_utf8(json).map_err(|_| "yaml: invalid UTF-8")?;
    if text.chars().any(|c| !allowed_in_stream(c)) {
        return Err(CONTROL_CHARACTERS);
    }
    let mut value: Value = serde_json::from_str(text).map_err(|_| "yaml: not valid JSON")?;
    if text.contains('\u{85}') {
        value = fold_next_lines(value);
    }
    let mut emitter = Emitter::default();
    emitter.node(&value, Ctx::ROOT);
    // The document's end: a line end after the last line.
    emitter.indent = -1;
    emitter.write_indent();
    Ok(emitter.out)
}

/// yaml.v2's reader: `#x9 | #xA | #xD | [#x20-#x7E] | #x85 | [#xA0-#xD7FF] | [#xE000-#xFFFD] |
/// [#x10000-#x10FFFF]`.
fn allowed_in_stream(c: char) -> bool {
    matches!(c as u32, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..)
}

/// The scalar styles.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// Where a node is written (`root_context`, `sequence_context`, `mapping_context`,
/// `simple_key_context`).
#[derive(Clone, Copy, Default)]
struct Ctx {
    mapping: bool,
    simple_key: bool,
}

impl Ctx {
    const ROOT: Ctx = Ctx {
        mapping: false,
        simple_key: false,
    };
    const ITEM: Ctx = Ctx {
        mapping: false,
        simple_key: false,
    };
    const KEY: Ctx = Ctx {
        mapping: true,
        simple_key: true,
    };
    const VALUE: Ctx = Ctx {
        mapping: true,
        simple_key: false,
    };
}

const BEST_INDENT: isize = 2;
const BEST_WIDTH: usize = 80;

/// The emitter's state (`yaml_emitter_t`) for one document.
struct Emitter {
    out: String,
    column: usize,
    indent: isize,
    indents: Vec<isize>,
    whitespace: bool,
    indention: bool,
    flow_level: usize,
}

impl Default for Emitter {
    fn default() -> Self {
        Emitter {
            out: String::with_capacity(1024),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            whitespace: true,
            indention: true,
            flow_level: 0,
        }
    }
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// `write_break`: a line feed as the emitter's line end, another break as it is.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, indicator: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn node(&mut self, value: &Value, ctx: Ctx) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, ctx),
            Value::Bool(b) => self.scalar(if *b { "true" } else { "false" }, Style::Plain, ctx),
            Value::Number(n) => self.scalar(&number(n), Style::Plain, ctx),
            Value::String(s) => self.scalar(s, requested_style(s), ctx),
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Object(map) if map.is_empty() => self.empty_flow("{", "}"),
            Value::Array(items) => {
                self.increase_indent(false, ctx.mapping && !self.indention);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Ctx::ITEM);
                }
                self.pop_indent();
            }
            Value::Object(map) => {
                self.increase_indent(false, false);
                for key in sorted_keys(map) {
                    self.write_indent();
                    let a = analyze(key);
                    if !a.multiline && key.len() <= 128 {
                        self.scalar(key, requested_style(key), Ctx::KEY);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.scalar(key, requested_style(key), Ctx::VALUE);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.node(&map[key], Ctx::VALUE);
                }
                self.pop_indent();
            }
        }
    }

    /// An empty sequence or mapping, in flow style.
    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.increase_indent(true, false);
        self.pop_indent();
        self.write_indicator(close, false, false, false);
    }

    /// `yaml_emitter_emit_scalar`: the style the emitter settles on, then the scalar.
    fn scalar(&mut self, value: &str, requested: Style, ctx: Ctx) {
        let a = analyze(value);
        let mut style = requested;
        if ctx.simple_key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain {
            if self.flow_level > 0 && !a.flow_plain || self.flow_level == 0 && !a.block_plain {
                style = Style::Single;
            }
            if value.is_empty() && (self.flow_level > 0 || ctx.simple_key) {
                style = Style::Single;
            }
        }
        if style == Style::Single && !a.single_quoted {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block || self.flow_level > 0 || ctx.simple_key) {
            style = Style::Double;
        }
        self.increase_indent(true, false);
        let allow_breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.plain(value, allow_breaks),
            Style::Single => self.single_quoted(value, allow_breaks),
            Style::Double => self.double_quoted(value, allow_breaks),
            Style::Literal => self.literal(value),
        }
        self.pop_indent();
    }

    fn plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let b = value.as_bytes();
        let (mut spaces, mut breaks) = (false, false);
        for (i, c) in value.char_indices() {
            if is_space(b, i) {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !is_space(b, i + 1) {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(b, i) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let b = value.as_bytes();
        let (mut spaces, mut breaks) = (false, false);
        for (i, c) in value.char_indices() {
            if is_space(b, i) {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < b.len() - 1
                    && !is_space(b, i + 1)
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(b, i) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let b = value.as_bytes();
        // libyaml's `is_bom` looks at the start of the string, whichever character it is at.
        let bom = value.starts_with('\u{FEFF}');
        let mut spaces = false;
        for (i, c) in value.char_indices() {
            if !is_printable(b, i) || bom || is_break(b, i) || c == '"' || c == '\\' {
                self.put('\\');
                let escape = match c {
                    '\0' => Some('0'),
                    '\u{7}' => Some('a'),
                    '\u{8}' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\u{b}' => Some('v'),
                    '\u{c}' => Some('f'),
                    '\r' => Some('r'),
                    '\u{1b}' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{a0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match escape {
                    Some(e) => self.put(e),
                    None => {
                        let v = c as u32;
                        let (letter, digits) = match v {
                            0..=0xFF => ('x', 2),
                            0x100..=0xFFFF => ('u', 4),
                            _ => ('U', 8),
                        };
                        self.put(letter);
                        for k in (0..digits).rev() {
                            let digit = (v >> (k * 4)) & 0xF;
                            self.put(
                                char::from_digit(digit, 16).map_or('0', |d| d.to_ascii_uppercase()),
                            );
                        }
                    }
                }
                spaces = false;
            } else if is_space(b, i) {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i > 0 && i < b.len() - 1 {
                    self.write_indent();
                    if is_space(b, i + 1) {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// `yaml_emitter_write_block_scalar_hints`: an indentation indicator when the text starts
    /// with a space or a break, then `-` (no final break) or `+` (more than one).
    fn block_hints(&mut self, value: &str) {
        let b = value.as_bytes();
        if is_space(b, 0) || is_break(b, 0) {
            self.write_indicator("2", false, false, false);
        }
        let mut chars = value.char_indices().rev();
        let chomp = match chars.next() {
            None => Some("-"),
            Some((i, _)) if !is_break(b, i) => Some("-"),
            Some((0, _)) => Some("+"),
            Some(_) => chars
                .next()
                .and_then(|(j, _)| is_break(b, j).then_some("+")),
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
    }

    fn literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        self.block_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let b = value.as_bytes();
        let mut breaks = true;
        for (i, c) in value.char_indices() {
            if is_break(b, i) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

/// The style `encode.go`'s `stringv` asks for.
fn requested_style(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if resolve::plain_is_string(s) {
        Style::Plain
    } else {
        Style::Double
    }
}
