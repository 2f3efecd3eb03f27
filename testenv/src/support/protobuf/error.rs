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
    /// A length that is negative as Go's `int`, or overflows it when added to the position.
    #[error("proto: negative length found during unmarshaling")]
    NegativeLength,
    /// A wire type that does not exist (6 or 7), in a field the message does not describe.
    #[error("proto: illegal wireType {0}")]
    WireType(u64),
    /// An end of group that closes no group, as a message's field.
    #[error("proto: {0}: wiretype end group for non-group")]
    EndGroup(&'static str),
    /// An end of group that closes no group, skipped inside a map entry.
    #[error("proto: unexpected end of group")]
    UnexpectedEndOfGroup,
    /// A field number that is zero or negative once cut to Go's `int32`.
    #[error("proto: {message}: illegal tag {number} (wire type {key})")]
    IllegalTag {
        /// The message's Go type.
        message: &'static str,
        /// The field number as Go's `int32`.
        number: i32,
        /// The whole key, which Go prints as the wire type.
        key: u64,
    },
    /// A kind without a described message.
    #[error("protobuf bodies of {api_version} {kind} are not supported")]
    UnsupportedKind {
        /// The envelope's apiVersion.
        api_version: String,
        /// The envelope's kind.
        kind: String,
    },
    /// A described field with the wrong wire type.
    #[error("proto: wrong wireType = {wire} for field {field}")]
    UnexpectedWireType {
        /// The field's Go name.
        field: String,
        /// The wire type found.
        wire: u64,
    },
    /// A Quantity whose string Go's `ParseQuantity` refuses, with its error.
    #[error("{0}")]
    Quantity(&'static str),
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
        matches!(self, DecodeError::Malformed { .. })
    }
}
