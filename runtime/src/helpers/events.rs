//! An event recorder: `kubectl describe` shows what the controller did and why. Thin wrapper
//! over kube-runtime's `Recorder` (which deduplicates repeated events into a series).

use kube::{
    Resource,
    runtime::events::{Event, EventType, Recorder, Reporter},
};

/// Publishes `events.k8s.io/v1` Events about objects, as one controller.
#[derive(Clone)]
pub struct EventRecorder {
    recorder: Recorder,
}

impl EventRecorder {
    /// A recorder reporting as `controller` (instance: the `POD_NAME` env var, if set).
    pub fn new(client: kube::Client, controller: &str) -> Self {
        let reporter = Reporter {
            controller: controller.to_string(),
            instance: std::env::var("POD_NAME").ok(),
        };
        Self {
            recorder: Recorder::new(client, reporter),
        }
    }

    /// A `Normal` event: `reason` is CamelCase (`Created`), `action` what was done.
    pub async fn normal<K: Resource<DynamicType = ()>>(
        &self,
        obj: &K,
        reason: &str,
        action: &str,
        note: impl Into<String>,
    ) -> Result<(), kube::Error> {
        self.publish(obj, EventType::Normal, reason, action, note.into())
            .await
    }

    /// A `Warning` event.
    pub async fn warning<K: Resource<DynamicType = ()>>(
        &self,
        obj: &K,
        reason: &str,
        action: &str,
        note: impl Into<String>,
    ) -> Result<(), kube::Error> {
        self.publish(obj, EventType::Warning, reason, action, note.into())
            .await
    }

    async fn publish<K: Resource<DynamicType = ()>>(
        &self,
        obj: &K,
        type_: EventType,
        reason: &str,
        action: &str,
        note: String,
    ) -> Result<(), kube::Error> {
        let event = Event {
            type_,
            reason: reason.to_string(),
            note: Some(note),
            action: action.to_string(),
            secondary: None,
        };
        self.recorder.publish(&event, &obj.object_ref(&())).await
    }
}
