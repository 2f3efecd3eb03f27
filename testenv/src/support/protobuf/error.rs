//! Why a protobuf body could not be decoded.

/// Why a protobuf body could not be decoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    /// The body does not start with `k8s\0`.
    #[error("missing the k8s protobuf envelope")]
    MissingEnvelope,
    /// A varint or a length-delimited field runs past the end.
    #[error("truncated field")]
    Truncated,
    /// A varint longer than 10 bytes.
    #[error("varint too long")]
    VarintTooLong,
    /// A wire type that does not exist.
    #[error("unknown wire type {0}")]
    WireType(u64),
    /// A string that is not UTF-8.
    #[error("field {0} is not valid UTF-8")]
    Utf8(&'static str),
    /// A kind without a described message.
    #[error("protobuf bodies of {api_version} {kind} are not supported")]
    UnsupportedKind {
        /// The envelope's apiVersion.
        api_version: String,
        /// The envelope's kind.
        kind: String,
    },
    /// A field the message's table does not describe.
    #[error("field {number} of {message} is not understood")]
    UnknownField {
        /// The message's Go type.
        message: &'static str,
        /// The field number.
        number: u64,
    },
    /// A described field with the wrong wire type.
    #[error("field {field} of {message} has an unexpected wire type {wire}")]
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
    /// A field the envelope (`runtime.Unknown`) does not have.
    #[error("unexpected envelope field {0}")]
    Envelope(u64),
}
