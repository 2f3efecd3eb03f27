//! The protobuf wire format, as much as the OpenAPI v2 message needs: varints, 64-bit
//! floats and length-delimited fields (strings and nested messages).

/// One message being written.
#[derive(Default)]
pub struct Message(Vec<u8>);

impl Message {
    fn key(&mut self, field: u32, wire_type: u8) {
        self.varint_raw((u64::from(field) << 3) | u64::from(wire_type));
    }

    fn varint_raw(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    /// A string field; empty strings are left out, as proto3 leaves out defaults.
    pub fn string(&mut self, field: u32, s: &str) {
        if !s.is_empty() {
            self.bytes(field, s.as_bytes());
        }
    }

    /// A repeated string field.
    pub fn strings<'a>(&mut self, field: u32, items: impl IntoIterator<Item = &'a str>) {
        for s in items {
            self.bytes(field, s.as_bytes());
        }
    }

    fn bytes(&mut self, field: u32, b: &[u8]) {
        self.key(field, 2);
        self.varint_raw(b.len() as u64);
        self.0.extend_from_slice(b);
    }

    /// A nested message field (written even when empty: it is present).
    pub fn message(&mut self, field: u32, m: Message) {
        self.bytes(field, &m.0);
    }

    /// A bool field (left out when false).
    pub fn boolean(&mut self, field: u32, b: bool) {
        if b {
            self.key(field, 0);
            self.varint_raw(1);
        }
    }

    /// An int64 field (left out when zero).
    pub fn int64(&mut self, field: u32, v: i64) {
        if v != 0 {
            self.key(field, 0);
            self.varint_raw(v as u64);
        }
    }

    /// A double field (left out when zero).
    pub fn double(&mut self, field: u32, v: f64) {
        if v != 0.0 {
            self.key(field, 1);
            self.0.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// The encoded bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_keys_varints_and_nested_messages() {
        let mut inner = Message::default();
        inner.string(1, "hi");
        let mut m = Message::default();
        m.int64(2, 300);
        m.message(3, inner);
        m.boolean(4, true);
        m.double(5, 1.0);
        assert_eq!(
            m.into_bytes(),
            vec![
                0x10, 0xac, 0x02, 0x1a, 0x04, 0x0a, 0x02, b'h', b'i', 0x20, 0x01, 0x29, 0, 0, 0, 0,
                0, 0, 0xf0, 0x3f
            ]
        );
    }
}
