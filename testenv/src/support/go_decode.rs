//! What Go's JSON decoder sees in a request body and `serde_json::Value` loses: object
//! members in document order, numbers as written, and members repeated in one object.
//! kube-apiserver's decoder reports the first value of a wrong type in document order
//! (printing a number as it was written) and every duplicate field (refused in Strict field
//! validation, warned about in Warn mode); [`Node`] keeps what those messages need.

/// A JSON value as Go's decoder walks it.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written in the document (`1e20`, `1.50`).
    Number(String),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Node>),
    /// An object's members in document order, repeated keys included.
    Object(Vec<(String, Node)>),
}

impl Node {
    /// The name Go's decoder gives this kind of value in its type errors (`cannot
    /// unmarshal <kind> into ...`); `null` never fails to decode.
    pub fn go_kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "bool",
            Node::Number(_) => "number",
            Node::String(_) => "string",
            Node::Array(_) => "array",
            Node::Object(_) => "object",
        }
    }
}

/// What decoding a request body found beyond its parsed value: the duplicate fields (Go's
/// paths, `spec.ports[0].name`) and the first value of a wrong type (Go's message).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decoding {
    /// The paths of repeated members, each once, in the order Go's decoder meets them.
    pub duplicates: Vec<String>,
    /// The decoder's message for the first value that does not fit the kind's Go type.
    pub type_error: Option<String>,
    /// A built-in kind's strict decoding errors, unknown and repeated fields, as the
    /// decoder words them and in the order it meets them (it knows the kind's fields).
    pub strict: Vec<String>,
    /// The body's own kind and version when it was decoded as another version of the
    /// resource's Go type (`HorizontalPodAutoscaler`, `v2`): the decoder's messages name them.
    pub decoded_as: Option<(String, String)>,
}

impl Decoding {
    /// Whether decoding found nothing to report.
    pub fn is_empty(&self) -> bool {
        self.duplicates.is_empty() && self.type_error.is_none() && self.strict.is_empty()
    }
}

/// Deeper documents are left to the ordinary parser (Go refuses beyond 10 000 levels,
/// serde_json beyond 128).
const MAX_DEPTH: usize = 512;

/// The most strict errors Go's decoder keeps.
const MAX_STRICT_ERRORS: usize = 100;

struct Parser<'a> {
    doc: &'a [u8],
    i: usize,
    /// Whether an object or array deeper than [`MAX_DEPTH`] is read for its kind only
    /// (see [`parse_top`]) rather than making the parse fail.
    kinds_beyond: bool,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.doc.get(self.i).is_some_and(|b| b" \t\r\n".contains(b)) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        self.skip_space();
        (self.doc.get(self.i) == Some(&b)).then(|| self.i += 1)
    }

    fn string(&mut self) -> Option<String> {
        self.skip_space();
        if self.doc.get(self.i) != Some(&b'"') {
            return None;
        }
        let end = super::go_json::string_end(self.doc, self.i + 1).ok()?;
        let text = serde_json::from_slice(&self.doc[self.i..end]).ok()?;
        self.i = end;
        Some(text)
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        self.skip_space();
        if depth > MAX_DEPTH {
            let kind = match *self.doc.get(self.i)? {
                _ if !self.kinds_beyond => return None,
                b'{' => Node::Object(Vec::new()),
                b'[' => Node::Array(Vec::new()),
                _ => return self.scalar(),
            };
            self.i = super::go_json::value_end(self.doc, self.i)?;
            return Some(kind);
        }
        match *self.doc.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                if self.eat(b'}').is_some() {
                    return Some(Node::Object(members));
                }
                loop {
                    let key = self.string()?;
                    self.eat(b':')?;
                    members.push((key, self.value(depth + 1)?));
                    if self.eat(b',').is_none() {
                        self.eat(b'}')?;
                        return Some(Node::Object(members));
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_some() {
                    return Some(Node::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b',').is_none() {
                        self.eat(b']')?;
                        return Some(Node::Array(items));
                    }
                }
            }
            _ => self.scalar(),
        }
    }

    /// A string, number, boolean or null.
    fn scalar(&mut self) -> Option<Node> {
        match *self.doc.get(self.i)? {
            b'"' => self.string().map(Node::String),
            b'-' | b'0'..=b'9' => {
                let end = super::go_json::number_end(self.doc, self.i).ok()?;
                let text = std::str::from_utf8(&self.doc[self.i..end]).ok()?;
                self.i = end;
                Some(Node::Number(text.to_string()))
            }
            b't' | b'f' | b'n' => {
                let end = super::go_json::literal_end(self.doc, self.i).ok()?;
                let node = match self.doc[self.i] {
                    b't' => Node::Bool(true),
                    b'f' => Node::Bool(false),
                    _ => Node::Null,
                };
                self.i = end;
                Some(node)
            }
            _ => None,
        }
    }
}

/// Parses a JSON document keeping what Go's decoder sees; `None` when it is not JSON (or
/// nested too deep), which the ordinary parser then reports.
pub fn parse(doc: &[u8]) -> Option<Node> {
    parse_with(doc, false)
}

/// Parses a JSON document for a decoder that reads only its top levels (a continue token's
/// struct): an object or array nested deeper than [`MAX_DEPTH`] is kept as an empty one of
/// its kind, as what it holds decides nothing there (Go reads up to 10 000 levels).
pub fn parse_top(doc: &[u8]) -> Option<Node> {
    parse_with(doc, true)
}

fn parse_with(doc: &[u8], kinds_beyond: bool) -> Option<Node> {
    let mut parser = Parser {
        doc,
        i: 0,
        kinds_beyond,
    };
    let node = parser.value(0)?;
    parser.skip_space();
    (parser.i == doc.len()).then_some(node)
}

fn collect_duplicates(node: &Node, path: &str, out: &mut Vec<String>) {
    let field = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match node {
        Node::Object(members) => {
            let mut seen = std::collections::HashSet::new();
            for (key, value) in members {
                if !seen.insert(key.as_str()) {
                    let dup = field(key);
                    if out.len() < MAX_STRICT_ERRORS && !out.contains(&dup) {
                        out.push(dup);
                    }
                }
                collect_duplicates(value, &field(key), out);
            }
        }
        Node::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_duplicates(item, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The fields repeated in one object, as Go's strict decoder names them (`spec.color`,
/// `spec.ports[1].port`, `metadata`): each path once, in the order the decoder meets the
/// repetitions, at most 100.
pub fn duplicate_fields(node: &Node) -> Vec<String> {
    let mut out = Vec::new();
    collect_duplicates(node, "", &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dups(doc: &str) -> Vec<String> {
        duplicate_fields(&parse(doc.as_bytes()).expect("valid JSON"))
    }

    #[test]
    fn keeps_document_order_and_numbers_as_written() {
        let node = parse(br#" {"b": 1e20, "a": [1.50, "x\u0041", true, null], "b": {}} "#);
        assert_eq!(
            node,
            Some(Node::Object(vec![
                ("b".into(), Node::Number("1e20".into())),
                (
                    "a".into(),
                    Node::Array(vec![
                        Node::Number("1.50".into()),
                        Node::String("xA".into()),
                        Node::Bool(true),
                        Node::Null,
                    ])
                ),
                ("b".into(), Node::Object(Vec::new())),
            ]))
        );
        assert_eq!(parse(b"{\"a\": 1,}"), None);
        assert_eq!(parse(b"{} x"), None);
        assert_eq!(parse(b"[1, 2"), None);
    }

    #[test]
    fn names_duplicates_as_the_strict_decoder_does() {
        assert_eq!(
            dups(r#"{"spec": {"color": "red", "color": "blue", "color": "green"}}"#),
            ["spec.color"]
        );
        assert_eq!(
            dups(
                r#"{"metadata": {"name": "a"}, "spec": {"tags": [], "tags": [], "ports": [{"name": "a"}, {"port": 1, "port": 2}]}, "metadata": {}}"#
            ),
            ["spec.tags", "spec.ports[1].port", "metadata"]
        );
        // Keys compare unescaped; keys with dots are not quoted.
        assert_eq!(dups(r#"{"data": {"a": "1", "\u0061": "2"}}"#), ["data.a"]);
        assert_eq!(
            dups(r#"{"kind": "A", "kind": "A", "a.b": 1, "a.b": 2}"#),
            ["kind", "a.b"]
        );
        assert!(dups(r#"{"a": {"x": 1}, "b": {"x": 1}}"#).is_empty());
    }
}
