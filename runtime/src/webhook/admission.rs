//! The typed admission traits operators implement: [`Defaulter`] (a mutating webhook that
//! changes the object; the server computes the JSON patch) and [`Validator`] (a validating
//! webhook for create, update and delete that allows with warnings or denies with a reason).

use std::future::Future;

/// Warnings returned to the API client (`kubectl` prints them); keep each under 120 characters.
pub type Warnings = Vec<String>;

/// A refusal: the API server rejects the request with `reason` and shows `warnings`.
///
/// `code` is the HTTP status the API server reports to its client: 403 (Forbidden, the
/// default, as controller-runtime's validators) or e.g. 422 (Invalid) through [`Denied::with_code`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Denied {
    /// Why the request is refused; shown to the user.
    pub reason: String,
    /// Warnings shown along with the refusal.
    pub warnings: Warnings,
    /// The HTTP status code reported in the response's `status.code`.
    pub code: u16,
}

impl Denied {
    /// A refusal with `reason`, code 403 and no warnings.
    pub fn new(reason: impl Into<String>) -> Self {
        Denied {
            reason: reason.into(),
            warnings: Vec::new(),
            code: 403,
        }
    }

    /// Adds warnings shown with the refusal.
    #[must_use]
    pub fn with_warnings<S: Into<String>>(mut self, warnings: impl IntoIterator<Item = S>) -> Self {
        self.warnings.extend(warnings.into_iter().map(Into::into));
        self
    }

    /// Sets the status code (e.g. 422 for an invalid object).
    #[must_use]
    pub fn with_code(mut self, code: u16) -> Self {
        self.code = code;
        self
    }

    /// The machine-readable `status.reason` for the code (`Forbidden`, `Invalid`, ...).
    pub fn status_reason(&self) -> &'static str {
        status_reason(self.code)
    }
}

pub(crate) fn status_reason(code: u16) -> &'static str {
    match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        409 => "Conflict",
        413 => "RequestEntityTooLarge",
        422 => "Invalid",
        500 => "InternalError",
        _ => "",
    }
}

/// A mutating (defaulting) webhook for kind `K`, served at
/// [`mutate_path`](super::mutate_path). It changes the typed object in place; the server turns
/// the change into the RFC 6902 patch the API server applies, leaving fields the Rust type does
/// not know untouched. Returning [`Denied`] rejects the request.
///
/// ```ignore
/// struct MemcachedDefaulter;
/// impl Defaulter<Memcached> for MemcachedDefaulter {
///     async fn default(&self, m: &mut Memcached) -> Result<(), Denied> {
///         m.spec.size.get_or_insert(1);
///         Ok(())
///     }
/// }
/// ```
pub trait Defaulter<K>: Send + Sync + 'static {
    /// Sets defaults on `obj` (create and update requests).
    fn default(&self, obj: &mut K) -> impl Future<Output = Result<(), Denied>> + Send;
}

/// A validating webhook for kind `K`, served at [`validate_path`](super::validate_path). Each
/// method allows (with possibly empty warnings) or denies with a reason.
pub trait Validator<K>: Send + Sync + 'static {
    /// Validates an object being created.
    fn validate_create(&self, obj: &K) -> impl Future<Output = Result<Warnings, Denied>> + Send;

    /// Validates an update from `old` to `new` (immutable fields, allowed transitions).
    fn validate_update(
        &self,
        old: &K,
        new: &K,
    ) -> impl Future<Output = Result<Warnings, Denied>> + Send;

    /// Validates a deletion of `obj`; allows by default (register the webhook for DELETE to use it).
    fn validate_delete(&self, obj: &K) -> impl Future<Output = Result<Warnings, Denied>> + Send {
        let _ = obj;
        std::future::ready(Ok(Vec::new()))
    }
}
