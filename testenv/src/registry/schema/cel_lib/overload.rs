//! Writing CEL overloads over [`cel::Value`]: the [`value_fn!`] macro that lifts a function
//! into an overload, argument accessors, and errors worded as the real server's.

use cel::common::types::Type;
use cel::common::value::{CowVal, Val};
use cel::{ExecutionError, Value};

/// Defines an overload (`fn(Vec<CowVal>) -> Result<CowVal>`) from a function over
/// [`Value`]s: arguments are converted to `Value`s, the result back.
macro_rules! value_fn {
    ($name:ident, $body:expr) => {
        fn $name<'b, 'v>(
            args: Vec<cel::common::value::CowVal<'b, 'v>>,
        ) -> Result<cel::common::value::CowVal<'b, 'v>, cel::ExecutionError> {
            let values = $crate::registry::schema::cel_lib::overload::values(&args)?;
            let f: fn(&[cel::Value]) -> Result<cel::Value, cel::ExecutionError> = $body;
            $crate::registry::schema::cel_lib::overload::lift(f(&values)?)
        }
    };
}
pub(crate) use value_fn;

/// The arguments of an overload as [`Value`]s.
pub(crate) fn values(args: &[CowVal<'_, '_>]) -> Result<Vec<Value>, ExecutionError> {
    args.iter()
        .map(|a| Value::try_from(<CowVal as AsRef<dyn Val>>::as_ref(a)))
        .collect()
}

/// A [`Value`] as the result of an overload.
pub(crate) fn lift<'b, 'v>(v: Value) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let boxed: Box<dyn Val> = v.try_into()?;
    Ok(CowVal::Owned(boxed))
}

/// A function error with the text the real server reports.
pub(crate) fn fail(function: &str, message: impl Into<String>) -> ExecutionError {
    ExecutionError::function_error(function, message.into())
}

/// The string argument `i`.
pub(crate) fn str_arg(args: &[Value], i: usize) -> Result<&str, ExecutionError> {
    match args.get(i) {
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(other) => Err(ExecutionError::UnexpectedType {
            got: format!("{other:?}"),
            want: "string".into(),
        }),
        None => Err(ExecutionError::invalid_argument_count(i + 1, args.len())),
    }
}

/// The opaque argument `i` downcast to `T`.
pub(crate) fn opaque_arg<T: 'static>(args: &[Value], i: usize) -> Result<&T, ExecutionError> {
    match args.get(i) {
        Some(Value::Opaque(o)) => {
            o.downcast_ref::<T>()
                .ok_or_else(|| ExecutionError::UnexpectedType {
                    got: o.runtime_type_name().to_string(),
                    want: std::any::type_name::<T>().into(),
                })
        }
        other => Err(ExecutionError::UnexpectedType {
            got: format!("{other:?}"),
            want: std::any::type_name::<T>().into(),
        }),
    }
}

/// The CEL type of an opaque Kubernetes value (`kubernetes.Quantity`, `net.IP`, ...).
pub(crate) fn opaque_type(name: &'static str) -> Type {
    Type::new_opaque_type(name)
}
