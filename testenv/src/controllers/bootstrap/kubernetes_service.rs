//! The `kubernetes` Service of the `default` namespace and where it leads: the API server
//! itself. kube-apiserver's bootstrap controller keeps them; here they are made once the
//! server listens, with the server's address and port.

use std::net::SocketAddr;

use serde_json::json;

use crate::endpoints::hooks::Client;

/// The first address of the embedded server's service range, as the real server takes the
/// first address of its own.
pub const CLUSTER_IP: &str = crate::registry::service_ips::FIRST_IP;

/// Creates `object` unless it exists; `validated` false for the objects naming the server's
/// own address, which a real server refuses when it is a loopback one (its endpoint reconciler
/// then publishes nothing, as envtest's kube-apiserver on 127.0.0.1 shows), while clients
/// of the embedded server look the API server up there.
fn create(
    client: &mut dyn Client,
    (group, plural): (&str, &str),
    object: serde_json::Value,
    validated: bool,
) {
    let Some(def) = client.registry().get(group, "v1", plural) else {
        return;
    };
    if client
        .store()
        .get(&def.storage_key, "default", "kubernetes")
        .is_some()
    {
        return;
    }
    let created = if validated {
        client.create(&def, "default", object, "kube-apiserver")
    } else {
        client.create_unvalidated(&def, "default", object, "kube-apiserver")
    };
    if let Err(e) = created {
        tracing::warn!(plural, error = %e, "the kubernetes service could not be made");
    }
}

/// Creates the Service, its Endpoints and its EndpointSlice for a server listening on `addr`.
pub fn serving(client: &mut dyn Client, addr: SocketAddr) {
    let ip = addr.ip().to_string();
    let port = addr.port();
    create(
        client,
        ("", "services"),
        json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "kubernetes", "namespace": "default",
                "labels": {"component": "apiserver", "provider": "kubernetes"}},
            "spec": {"type": "ClusterIP", "clusterIP": CLUSTER_IP, "sessionAffinity": "None",
                "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}]},
        }),
        true,
    );
    create(
        client,
        ("", "endpoints"),
        json!({
            "apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": "kubernetes", "namespace": "default",
                "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
            "subsets": [{"addresses": [{"ip": ip}],
                "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}],
        }),
        false,
    );
    create(
        client,
        ("discovery.k8s.io", "endpointslices"),
        json!({
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "kubernetes", "namespace": "default",
                "labels": {"kubernetes.io/service-name": "kubernetes"}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": [ip], "conditions": {"ready": true}}],
            "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
        }),
        false,
    );
}
