//! What an object is sharded by: the 64-bit FNV-1a hash of its `metadata.uid` (the default) or
//! of its `metadata.namespace`, the hash the API server computes for `shardSelector`
//! (KEP-5866), so server-side and client-side filtering put every object in the same place.

use kube::Resource;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a of `bytes` (Go's `hash/fnv.New64a`, which kube-apiserver uses).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(FNV_PRIME)
    })
}

/// The field objects are sharded by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum ShardKey {
    /// `metadata.uid`: objects spread evenly whatever their namespaces (the default).
    #[default]
    Uid,
    /// `metadata.namespace`: every object of a namespace on one replica (cluster-scoped
    /// objects, which have no namespace, all hash the empty string and land on one replica).
    Namespace,
}

impl ShardKey {
    /// The field path as `shardSelector` names it (`object.metadata.uid`).
    pub fn field_path(self) -> &'static str {
        match self {
            ShardKey::Uid => "object.metadata.uid",
            ShardKey::Namespace => "object.metadata.namespace",
        }
    }

    /// The hash of `obj`'s key field (a missing field hashes as the empty string, as the API
    /// server does).
    pub fn hash<K: Resource>(self, obj: &K) -> u64 {
        let meta = obj.meta();
        let value = match self {
            ShardKey::Uid => meta.uid.as_deref(),
            ShardKey::Namespace => meta.namespace.as_deref(),
        };
        fnv1a64(value.unwrap_or_default().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        // The FNV reference test vectors (also what Go's hash/fnv produces).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn objects_hash_by_uid_or_namespace() {
        let mut cm = ConfigMap::default();
        cm.metadata.uid = Some("a".into());
        cm.metadata.namespace = Some("foobar".into());
        assert_eq!(ShardKey::Uid.hash(&cm), fnv1a64(b"a"));
        assert_eq!(ShardKey::Namespace.hash(&cm), fnv1a64(b"foobar"));
        cm.metadata.namespace = None;
        assert_eq!(ShardKey::Namespace.hash(&cm), fnv1a64(b""));
        assert_eq!(
            ShardKey::Namespace.field_path(),
            "object.metadata.namespace"
        );
    }
}
