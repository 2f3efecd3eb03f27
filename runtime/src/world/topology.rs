//! [`Topology`]: how watched kinds link to each other (owner references, label selectors,
//! fields naming another object), resolved over a [`Snapshot`](super::Snapshot) into a graph to
//! query parents, children, policy targets and paths, as Kuadrant's policy-machinery does for
//! Gateway API policies.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::core::{Selector, SelectorExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::{
    any::TypeId,
    collections::{BTreeMap, HashMap, HashSet},
    sync::Arc,
};

use super::{
    kind::{self, WatchedKind},
    object::{KindState, ObjectKey, downcast},
};
use crate::cache::Kind;

/// How two objects are linked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkType {
    /// The child's `ownerReferences` name the parent.
    Owner,
    /// The parent's label selector selects the child (same namespace).
    LabelSelector,
    /// A field of the parent (a policy) names the child (its target).
    TargetRef,
    /// A field of the child names its parent (an HTTPRoute's `parentRefs` naming a Gateway).
    ParentRef,
}

/// A reference to an object by group, kind, namespace and name, for custom resources' specs
/// (Gateway API's `targetRef` shape; `namespace` defaults to the referrer's).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TargetRef {
    /// API group of the target (`apps` for Deployments, empty for the core group).
    #[serde(default)]
    pub group: String,
    /// Kind of the target (`Deployment`).
    pub kind: String,
    /// Name of the target.
    pub name: String,
    /// Namespace of the target; the referrer's namespace when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl TargetRef {
    /// A reference to the object of kind `K` named `name` in the referrer's namespace.
    pub fn to<K: Kind>(name: impl Into<String>) -> Self {
        Self {
            group: K::group(&()).into_owned(),
            kind: K::kind(&()).into_owned(),
            name: name.into(),
            namespace: None,
        }
    }
}

/// One named object, as a link function returns it: an optional group and kind (a reference of
/// another kind is ignored), an optional namespace (default: the referrer's) and a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// `(group, kind)` the reference is restricted to, if it says.
    pub group_kind: Option<(String, String)>,
    /// Namespace, if not the referrer's.
    pub namespace: Option<String>,
    /// Name.
    pub name: String,
}

/// What a reference field can be: a [`TargetRef`], a plain name, or an option or list of them.
pub trait IntoReferences {
    /// The references, in order.
    fn into_references(self) -> Vec<Reference>;
}

impl IntoReferences for Reference {
    fn into_references(self) -> Vec<Reference> {
        vec![self]
    }
}

impl IntoReferences for TargetRef {
    fn into_references(self) -> Vec<Reference> {
        vec![Reference {
            group_kind: Some((self.group, self.kind)),
            namespace: self.namespace,
            name: self.name,
        }]
    }
}

impl IntoReferences for String {
    fn into_references(self) -> Vec<Reference> {
        vec![Reference {
            group_kind: None,
            namespace: None,
            name: self,
        }]
    }
}

impl<T: IntoReferences> IntoReferences for Option<T> {
    fn into_references(self) -> Vec<Reference> {
        self.map(IntoReferences::into_references)
            .unwrap_or_default()
    }
}

impl<T: IntoReferences> IntoReferences for Vec<T> {
    fn into_references(self) -> Vec<Reference> {
        self.into_iter()
            .flat_map(IntoReferences::into_references)
            .collect()
    }
}

/// What a selector field can be: a `LabelSelector` (empty selects everything, as
/// `metav1.LabelSelectorAsSelector`), a label map (empty selects nothing, as a Service's
/// selector), or an option of them (none selects nothing).
pub trait IntoSelector {
    /// The selector, or none when it selects nothing.
    fn into_selector(self) -> Option<Selector>;
}

impl IntoSelector for LabelSelector {
    fn into_selector(self) -> Option<Selector> {
        match Selector::try_from(self) {
            Ok(selector) => Some(selector),
            Err(err) => {
                tracing::warn!(error = %err, "invalid label selector selects nothing");
                None
            }
        }
    }
}

impl IntoSelector for BTreeMap<String, String> {
    fn into_selector(self) -> Option<Selector> {
        (!self.is_empty()).then(|| self.into_iter().collect())
    }
}

impl<T: IntoSelector> IntoSelector for Option<T> {
    fn into_selector(self) -> Option<Selector> {
        self.and_then(IntoSelector::into_selector)
    }
}

type Kinds = HashMap<TypeId, KindState>;
/// A graph node: kind and key.
type Node = (TypeId, ObjectKey);
type Resolve = Arc<dyn Fn(&Kinds) -> Vec<(ObjectKey, ObjectKey)> + Send + Sync>;

struct Link {
    link: LinkType,
    parent: TypeId,
    child: TypeId,
    resolve: Resolve,
}

/// The declared links between kinds. Kinds named here are watched by the controller too.
///
/// ```ignore
/// Topology::new()
///     .target_ref::<Policy, Deployment>(|p| p.spec.target_ref.clone())
///     .owner::<Deployment, ReplicaSet>()
///     .label_selector::<Service, Pod>(|s| s.spec.as_ref().and_then(|s| s.selector.clone()))
/// ```
#[derive(Default)]
pub struct Topology {
    links: Vec<Link>,
    pub(crate) kinds: Vec<Arc<dyn WatchedKind>>,
}

fn objects<K: Kind>(kinds: &Kinds) -> impl Iterator<Item = (&ObjectKey, Arc<K>)> {
    kinds
        .get(&TypeId::of::<K>())
        .into_iter()
        .flat_map(|k| k.objects.iter())
        .filter_map(|(key, o)| downcast::<K>(o).map(|o| (key, o)))
}

fn contains<K: Kind>(kinds: &Kinds, key: &ObjectKey) -> bool {
    kinds
        .get(&TypeId::of::<K>())
        .is_some_and(|k| k.objects.contains_key(key))
}

/// Resolves references made by an object at `from` to objects of kind `T`.
fn resolve_refs<T: Kind>(kinds: &Kinds, from: &ObjectKey, refs: Vec<Reference>) -> Vec<ObjectKey> {
    refs.into_iter()
        .filter(|r| match &r.group_kind {
            Some((group, kind)) => *group == T::group(&()) && *kind == T::kind(&()),
            None => true,
        })
        .map(|r| ObjectKey {
            namespace: if T::namespaced() {
                r.namespace.or_else(|| from.namespace.clone())
            } else {
                None
            },
            name: r.name,
        })
        .filter(|key| contains::<T>(kinds, key))
        .collect()
}

impl Topology {
    /// No links.
    pub fn new() -> Self {
        Self::default()
    }

    fn push<P: Kind, C: Kind>(mut self, link: LinkType, resolve: Resolve) -> Self {
        for k in [kind::of::<P>(), kind::of::<C>()] {
            if !self.kinds.iter().any(|d| d.type_id() == k.type_id()) {
                self.kinds.push(k);
            }
        }
        self.links.push(Link {
            link,
            parent: TypeId::of::<P>(),
            child: TypeId::of::<C>(),
            resolve,
        });
        self
    }

    /// `C` objects whose `ownerReferences` name a `P` (by kind, apiVersion, name and uid) are
    /// children of it.
    #[must_use]
    pub fn owner<P: Kind, C: Kind>(self) -> Self {
        let resolve: Resolve = Arc::new(|kinds| {
            let (kind, api_version) = (P::kind(&()), P::api_version(&()));
            let mut edges = Vec::new();
            for (child_key, child) in objects::<C>(kinds) {
                for owner in kube::Resource::meta(child.as_ref())
                    .owner_references
                    .iter()
                    .flatten()
                    .filter(|o| o.kind == kind && o.api_version == api_version)
                {
                    let parent_key = ObjectKey {
                        namespace: if P::namespaced() {
                            child_key.namespace.clone()
                        } else {
                            None
                        },
                        name: owner.name.clone(),
                    };
                    let uid_matches = kinds
                        .get(&TypeId::of::<P>())
                        .and_then(|k| k.objects.get(&parent_key))
                        .is_some_and(|p| p.meta().uid.as_ref().is_none_or(|u| *u == owner.uid));
                    if uid_matches {
                        edges.push((parent_key, child_key.clone()));
                    }
                }
            }
            edges
        });
        self.push::<P, C>(LinkType::Owner, resolve)
    }

    /// `C` objects (in the `P`'s namespace, when both are namespaced) whose labels match the
    /// selector `selector` returns are children of the `P`.
    #[must_use]
    pub fn label_selector<P: Kind, C: Kind, S: IntoSelector>(
        self,
        selector: impl Fn(&P) -> S + Send + Sync + 'static,
    ) -> Self {
        let resolve: Resolve = Arc::new(move |kinds| {
            let mut edges = Vec::new();
            let Some(children) = kinds.get(&TypeId::of::<C>()) else {
                return edges;
            };
            let same_namespace = P::namespaced() && C::namespaced();
            for (parent_key, parent) in objects::<P>(kinds) {
                let Some(selector) = selector(&parent).into_selector() else {
                    continue;
                };
                // Children are ordered by namespace: only the parent's namespace is scanned.
                let candidates: Box<dyn Iterator<Item = _>> = if same_namespace {
                    let start = ObjectKey {
                        namespace: parent_key.namespace.clone(),
                        name: String::new(),
                    };
                    Box::new(
                        children
                            .objects
                            .range(start..)
                            .take_while(|(k, _)| k.namespace == parent_key.namespace),
                    )
                } else {
                    Box::new(children.objects.iter())
                };
                for (child_key, child) in candidates {
                    let matched = match &child.meta().labels {
                        Some(labels) => selector.matches(labels),
                        None => selector.matches(&Default::default()),
                    };
                    if matched {
                        edges.push((parent_key.clone(), child_key.clone()));
                    }
                }
            }
            edges
        });
        self.push::<P, C>(LinkType::LabelSelector, resolve)
    }

    /// The `T` objects a field of `P` names are its targets (`P` is a policy attached to
    /// them): `targets` returns a [`TargetRef`], a name, or an option or list of them. References
    /// of another kind, and to objects that do not exist, make no link.
    #[must_use]
    pub fn target_ref<P: Kind, T: Kind, R: IntoReferences>(
        self,
        targets: impl Fn(&P) -> R + Send + Sync + 'static,
    ) -> Self {
        let resolve: Resolve = Arc::new(move |kinds| {
            objects::<P>(kinds)
                .flat_map(|(key, p)| {
                    resolve_refs::<T>(kinds, key, targets(&p).into_references())
                        .into_iter()
                        .map(|t| (key.clone(), t))
                        .collect::<Vec<_>>()
                })
                .collect()
        });
        self.push::<P, T>(LinkType::TargetRef, resolve)
    }

    /// The `P` objects a field of `C` names are its parents (a route's `parentRefs` naming
    /// gateways): the edge goes from the named `P` to the `C`.
    #[must_use]
    pub fn parent_ref<C: Kind, P: Kind, R: IntoReferences>(
        self,
        parents: impl Fn(&C) -> R + Send + Sync + 'static,
    ) -> Self {
        let resolve: Resolve = Arc::new(move |kinds| {
            objects::<C>(kinds)
                .flat_map(|(key, c)| {
                    resolve_refs::<P>(kinds, key, parents(&c).into_references())
                        .into_iter()
                        .map(|p| (p, key.clone()))
                        .collect::<Vec<_>>()
                })
                .collect()
        });
        self.push::<P, C>(LinkType::ParentRef, resolve)
    }
}

impl std::fmt::Debug for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Topology")
            .field(
                "links",
                &self.links.iter().map(|l| l.link).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// An object in the topology graph, kind-agnostic.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeRef {
    /// `group/version/Kind`.
    pub kind: String,
    /// Namespace and name.
    pub key: ObjectKey,
}

impl std::fmt::Display for NodeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.kind, self.key)
    }
}

/// The topology resolved over one snapshot: a directed graph, parent to child.
pub struct TopologyView {
    kinds: Kinds,
    children: HashMap<Node, Vec<(Node, LinkType)>>,
    parents: HashMap<Node, Vec<(Node, LinkType)>>,
    edges: usize,
}

fn node<K: Kind>(obj: &K) -> Node {
    (TypeId::of::<K>(), ObjectKey::of(kube::Resource::meta(obj)))
}

impl TopologyView {
    pub(crate) fn build(topology: &Topology, kinds: &Kinds) -> Self {
        let mut view = Self {
            kinds: kinds.clone(),
            children: HashMap::new(),
            parents: HashMap::new(),
            edges: 0,
        };
        let mut seen = HashSet::new();
        for link in &topology.links {
            for (parent, child) in (link.resolve)(kinds) {
                let (p, c) = ((link.parent, parent), (link.child, child));
                if !seen.insert((p.clone(), c.clone(), link.link)) {
                    continue;
                }
                view.children
                    .entry(p.clone())
                    .or_default()
                    .push((c.clone(), link.link));
                view.parents.entry(c).or_default().push((p, link.link));
                view.edges += 1;
            }
        }
        view
    }

    fn typed<K: Kind>(
        &self,
        nodes: Option<&Vec<(Node, LinkType)>>,
        only: Option<LinkType>,
    ) -> Vec<Arc<K>> {
        let kind = TypeId::of::<K>();
        nodes
            .into_iter()
            .flatten()
            .filter(|((t, _), l)| *t == kind && only.is_none_or(|o| o == *l))
            .filter_map(|((t, key), _)| self.kinds.get(t)?.objects.get(key).and_then(downcast::<K>))
            .collect()
    }

    /// The `C` children of `parent` (by any link).
    pub fn children<C: Kind>(&self, parent: &impl Kind) -> Vec<Arc<C>> {
        self.typed(self.children.get(&node(parent)), None)
    }

    /// The `P` parents of `child` (by any link).
    pub fn parents<P: Kind>(&self, child: &impl Kind) -> Vec<Arc<P>> {
        self.typed(self.parents.get(&node(child)), None)
    }

    /// The `T` objects `policy` targets ([`Topology::target_ref`] links).
    pub fn targets_of<T: Kind>(&self, policy: &impl Kind) -> Vec<Arc<T>> {
        self.typed(self.children.get(&node(policy)), Some(LinkType::TargetRef))
    }

    /// The `P` policies that target `target` ([`Topology::target_ref`] links).
    pub fn policies_of<P: Kind>(&self, target: &impl Kind) -> Vec<Arc<P>> {
        self.typed(self.parents.get(&node(target)), Some(LinkType::TargetRef))
    }

    /// Every path from `from` down to `to`, following parent-to-child links (each path starts
    /// with `from` and ends with `to`; no object appears twice in a path).
    pub fn paths(&self, from: &impl Kind, to: &impl Kind) -> Vec<Vec<NodeRef>> {
        let (start, goal) = (node(from), node(to));
        let mut paths = Vec::new();
        let mut stack = vec![start.clone()];
        self.walk(&start, &goal, &mut stack, &mut paths);
        paths
            .into_iter()
            .map(|p| p.into_iter().map(|n| self.node_ref(&n)).collect())
            .collect()
    }

    fn walk(&self, at: &Node, goal: &Node, stack: &mut Vec<Node>, out: &mut Vec<Vec<Node>>) {
        if at == goal {
            out.push(stack.clone());
            return;
        }
        for (next, _) in self.children.get(at).into_iter().flatten() {
            if stack.contains(next) {
                continue;
            }
            stack.push(next.clone());
            self.walk(next, goal, stack, out);
            stack.pop();
        }
    }

    /// Every object reachable from `from` by parent-to-child links, nearest first.
    pub fn descendants(&self, from: &impl Kind) -> Vec<NodeRef> {
        let start = node(from);
        let mut seen = HashSet::from([start.clone()]);
        let mut queue = std::collections::VecDeque::from([start]);
        let mut out = Vec::new();
        while let Some(at) = queue.pop_front() {
            for (next, _) in self.children.get(&at).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    out.push(self.node_ref(next));
                    queue.push_back(next.clone());
                }
            }
        }
        out
    }

    fn node_ref(&self, (kind, key): &Node) -> NodeRef {
        NodeRef {
            kind: self
                .kinds
                .get(kind)
                .map(|k| k.gvk.to_string())
                .unwrap_or_default(),
            key: key.clone(),
        }
    }

    /// Number of links between objects.
    pub fn edge_count(&self) -> usize {
        self.edges
    }
}

impl std::fmt::Debug for TopologyView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopologyView")
            .field("edges", &self.edges)
            .finish_non_exhaustive()
    }
}
