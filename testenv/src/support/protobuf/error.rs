//! Why a protobuf body could not be decoded, in the words of Go's generated `Unmarshal`.

/// Why a protobuf body could not be decoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    /// The body does not start with `k8s\0`.
    #[error("missing the k8s protobuf envelope")]
    MissingEnvelope,
    /// A varint or a length-delimited field runs past the end (`io.ErrUnexpectedEOF`).
    #[error("unexpected EOF")]
    Truncated,
    /// A varint longer than 10 bytes.
    #[error("proto: integer overflow")]
    VarintTooLong,
    /// A wire type that does not exist (6 or 7), in a field the message does not describe.
    #[error("proto: illegal wireType {0}")]
    WireType(u64),
    /// An end of group that closes no group.
    #[error("proto: {0}: wiretype end group for non-group")]
    EndGroup(&'static str),
    /// A kind without a described message.
    #[error("protobuf bodies of {api_version} {kind} are not supported")]
    UnsupportedKind {
        /// The envelope's apiVersion.
        api_version: String,
        /// The envelope's kind.
        kind: String,
    },
    /// A described field with the wrong wire type.
    #[error("proto: wrong wireType = {wire} for field {}", go_field_name(field))]
    UnexpectedWireType {
        /// The message's Go type.
        message: &'static str,
        /// The field's JSON name.
        field: &'static str,
        /// The wire type found.
        wire: u64,
    },
    /// A field that must be unset (a status the server sets) holds a value.
    #[error("field {field} of {message} is set: it is not decoded from protobuf")]
    Set {
        /// The message's Go type.
        message: &'static str,
        /// The field's JSON name.
        field: &'static str,
    },
    /// A `FieldsV1` whose bytes are not JSON.
    #[error("field {0} does not hold JSON")]
    Json(&'static str),
    /// A body of a described kind that Go's `Unmarshal` refuses: the real server's 400.
    #[error("{kind} in version \"{version}\" cannot be handled as a {kind}: {reason}")]
    Malformed {
        /// The envelope's kind.
        kind: String,
        /// The version of the envelope's apiVersion (without its group).
        version: String,
        /// Go's error.
        reason: Box<DecodeError>,
    },
}

impl DecodeError {
    /// Whether the real server answers this with 400 Bad Request (it decodes the kind, and
    /// Go's `Unmarshal` refuses the body), rather than 415.
    pub fn is_bad_request(&self) -> bool {
        matches!(self, DecodeError::Malformed { reason, .. } if !matches!(**reason, DecodeError::Set { .. }))
    }
}

/// The Go name of the struct field whose JSON name is `json`: capitalized, a leading
/// initialism in capitals (`uid` is `UID`, `ipFamilies` `IPFamilies`).
fn go_field_name(json: &str) -> String {
    const INITIALISMS: &[&str] = &[
        "api", "cidr", "cpu", "dns", "fs", "http", "id", "io", "ip", "ipc", "ips", "json", "os",
        "pid", "tcp", "tls", "udp", "uid", "url",
    ];
    let lower = json
        .find(|c: char| !c.is_ascii_lowercase())
        .unwrap_or(json.len());
    let (head, tail) = json.split_at(lower);
    if INITIALISMS.contains(&head) {
        return format!("{}{tail}", head.to_ascii_uppercase());
    }
    let mut chars = json.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::go_field_name;

    #[test]
    fn go_names_capitalize_and_keep_initialisms() {
        assert_eq!(go_field_name("data"), "Data");
        assert_eq!(go_field_name("uid"), "UID");
        assert_eq!(go_field_name("clusterIP"), "ClusterIP");
        assert_eq!(go_field_name("ipFamilies"), "IPFamilies");
        assert_eq!(go_field_name("apiVersion"), "APIVersion");
    }
}
