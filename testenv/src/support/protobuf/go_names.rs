//! The Go name of a described field, as Go's generated `Unmarshal` names it in its errors
//! (`proto: wrong wireType = 0 for field ObjectMeta`): derived from the JSON name, or the
//! recorded exception where the Go name is not the derived one (`go_name_exceptions.rs`).

use super::go_name_exceptions::GO_NAME_EXCEPTIONS;
use super::schema::{Field, Message, Shape, Ty};

/// The Go name of `field` of `message`.
pub(super) fn go_name(message: &Message, field: &Field) -> String {
    if let Some((_, _, name)) = GO_NAME_EXCEPTIONS
        .iter()
        .find(|(m, number, _)| *m == message.name && *number == field.number)
    {
        return (*name).to_string();
    }
    match (field.shape, field.ty) {
        // An embedded struct's field is named after its type.
        (Shape::Inline, Ty::Msg(inner)) => inner.name.to_string(),
        _ => derived(field.name),
    }
}

/// The Go name derived from a JSON name: an object's `metadata` is its embedded `ObjectMeta`;
/// otherwise capitalized, a leading initialism in capitals (`uid` is `UID`, `ipFamilies`
/// `IPFamilies`).
fn derived(json: &str) -> String {
    const INITIALISMS: &[&str] = &[
        "api", "cidr", "cpu", "dns", "fs", "http", "id", "io", "ip", "ipc", "ips", "json", "os",
        "pid", "tcp", "tls", "udp", "uid", "url",
    ];
    if json == "metadata" {
        return "ObjectMeta".into();
    }
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
    use super::super::{core, pod};
    use super::*;

    #[test]
    fn go_names_capitalize_and_keep_initialisms() {
        assert_eq!(derived("data"), "Data");
        assert_eq!(derived("uid"), "UID");
        assert_eq!(derived("clusterIP"), "ClusterIP");
        assert_eq!(derived("ipFamilies"), "IPFamilies");
        assert_eq!(derived("apiVersion"), "APIVersion");
        assert_eq!(derived("metadata"), "ObjectMeta");
        // The runtime.Unknown envelope's TypeMeta and authentication's ExtraValue.
        assert_eq!(derived("kind"), "Kind");
        assert_eq!(derived("items"), "Items");
    }

    #[test]
    fn recorded_go_names_win_and_embedded_structs_are_named_after_their_type() {
        let source = &pod::VOLUME_SOURCE;
        let field = |number| source.field(number).expect("described");
        // `csi` is CSI, `nfs` NFS: recorded.
        assert_eq!(go_name(source, field(28)), "CSI");
        assert_eq!(go_name(source, field(7)), "NFS");
        // A plain one is derived.
        assert_eq!(go_name(source, field(1)), "HostPath");
        // A Volume embeds its VolumeSource.
        let embedded = pod::VOLUME.field(2).expect("described");
        assert_eq!(go_name(&pod::VOLUME, embedded), "VolumeSource");
        let meta = core::CONFIG_MAP.field(1).expect("described");
        assert_eq!(go_name(&core::CONFIG_MAP, meta), "ObjectMeta");
    }
}
