//! Kubernetes' quantity library: `quantity()`, `isQuantity()`, `sign(q)` (a function, not a
//! method) and the methods of a `kubernetes.Quantity` (`isInteger`, `asInteger`,
//! `asApproximateFloat`, `add`, `sub`, `isLessThan`, `isGreaterThan`, `compareTo`; `==`
//! compares values, so `quantity('1Gi') == quantity('1024Mi')`).
//!
//! A quantity is held exactly as a count of nano-units (`i128`), which covers every suffix
//! from `n` to `Ei` (2^60 × 10^9 < 2^127).

use super::overload::{fail, opaque_arg, opaque_type, str_arg, value_fn};
use cel::common::types::{INT_TYPE, STRING_TYPE};
use cel::objects::Opaque;
use cel::{DeclarationError, Env, ExecutionError, Value};
use std::sync::Arc;

const TYPE_NAME: &str = "kubernetes.Quantity";
const NANO: i128 = 1_000_000_000;

/// A parsed quantity, in nano-units: the CEL value, equal to another when their values are
/// (the written suffix family does not count, unlike [`crate::support::quantity::Quantity`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantity {
    nanos: i128,
}

impl Opaque for Quantity {
    fn runtime_type_name(&self) -> &str {
        TYPE_NAME
    }
}

/// Parses a Kubernetes quantity (`500m`, `1.5Gi`, `1e3`, `-2k`) with the one parser of
/// the crate ([`crate::support::quantity::Quantity::try_parse`]).
pub fn parse(s: &str) -> Result<Quantity, String> {
    crate::support::quantity::Quantity::try_parse(s).map(|q| Quantity { nanos: q.nanos })
}

fn quantity_value(q: Quantity) -> Value {
    Value::Opaque(Arc::new(q))
}

fn q(a: &[Value], i: usize) -> Result<Quantity, ExecutionError> {
    opaque_arg::<Quantity>(a, i).copied()
}

/// The second argument of `add`/`sub`: a quantity or an int.
fn operand(a: &[Value]) -> Result<i128, ExecutionError> {
    match a.get(1) {
        Some(Value::Int(i)) => Ok(*i as i128 * NANO),
        _ => Ok(q(a, 1)?.nanos),
    }
}

/// The CEL type of a quantity.
fn quantity_type() -> cel::common::types::Type {
    opaque_type(TYPE_NAME)
}

/// Declares this library's functions on `env` (called once, when the environment is built).
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload(
        "quantity",
        "string_to_quantity",
        vec![STRING_TYPE],
        quantity,
    )?;
    env.add_overload(
        "isQuantity",
        "is_quantity_string",
        vec![STRING_TYPE],
        is_quantity,
    )?;
    // A global function (`sign(q)`), not a member, in the real library.
    env.add_overload("sign", "quantity_sign", vec![quantity_type()], sign)?;
    env.add_member_overload(
        "isInteger",
        "quantity_is_integer",
        quantity_type(),
        vec![],
        is_integer,
    )?;
    env.add_member_overload(
        "asInteger",
        "quantity_get_integer",
        quantity_type(),
        vec![],
        as_integer,
    )?;
    env.add_member_overload(
        "asApproximateFloat",
        "quantity_get_float",
        quantity_type(),
        vec![],
        as_float,
    )?;
    env.add_member_overload(
        "add",
        "quantity_add",
        quantity_type(),
        vec![quantity_type()],
        add,
    )?;
    env.add_member_overload(
        "add",
        "quantity_add_int",
        quantity_type(),
        vec![INT_TYPE],
        add,
    )?;
    env.add_member_overload(
        "sub",
        "quantity_sub",
        quantity_type(),
        vec![quantity_type()],
        sub,
    )?;
    env.add_member_overload(
        "sub",
        "quantity_sub_int",
        quantity_type(),
        vec![INT_TYPE],
        sub,
    )?;
    env.add_member_overload(
        "isLessThan",
        "quantity_less",
        quantity_type(),
        vec![quantity_type()],
        less,
    )?;
    env.add_member_overload(
        "isGreaterThan",
        "quantity_greater",
        quantity_type(),
        vec![quantity_type()],
        greater,
    )?;
    env.add_member_overload(
        "compareTo",
        "quantity_compare",
        quantity_type(),
        vec![quantity_type()],
        compare,
    )?;
    Ok(())
}

value_fn!(quantity, |a| parse(str_arg(a, 0)?)
    .map(quantity_value)
    .map_err(|e| fail("quantity", e)));
value_fn!(is_quantity, |a| Ok(Value::Bool(
    parse(str_arg(a, 0)?).is_ok()
)));
value_fn!(sign, |a| Ok(Value::Int(q(a, 0)?.nanos.signum() as i64)));
value_fn!(is_integer, |a| {
    let n = q(a, 0)?.nanos;
    Ok(Value::Bool(
        n % NANO == 0 && i64::try_from(n / NANO).is_ok(),
    ))
});
value_fn!(as_integer, |a| {
    let n = q(a, 0)?.nanos;
    if n % NANO != 0 {
        return Err(fail("asInteger", "cannot convert value to integer"));
    }
    i64::try_from(n / NANO)
        .map(Value::Int)
        .map_err(|_| fail("asInteger", "cannot convert value to integer"))
});
value_fn!(as_float, |a| Ok(Value::Float(
    q(a, 0)?.nanos as f64 / NANO as f64
)));
value_fn!(add, |a| q(a, 0)?
    .nanos
    .checked_add(operand(a)?)
    .map(|nanos| quantity_value(Quantity { nanos }))
    .ok_or_else(|| fail("add", "quantity overflow")));
value_fn!(sub, |a| q(a, 0)?
    .nanos
    .checked_sub(operand(a)?)
    .map(|nanos| quantity_value(Quantity { nanos }))
    .ok_or_else(|| fail("sub", "quantity overflow")));
value_fn!(less, |a| Ok(Value::Bool(q(a, 0)?.nanos < q(a, 1)?.nanos)));
value_fn!(greater, |a| Ok(Value::Bool(
    q(a, 0)?.nanos > q(a, 1)?.nanos
)));
value_fn!(compare, |a| Ok(Value::Int(
    q(a, 0)?.nanos.cmp(&q(a, 1)?.nanos) as i64
)));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_suffix_exactly() {
        let n = |s: &str| parse(s).map(|q| q.nanos);
        assert_eq!(n("1"), Ok(NANO));
        assert_eq!(n("500m"), Ok(NANO / 2));
        assert_eq!(n("1.5Gi"), Ok(3 * (1 << 29) * NANO));
        assert_eq!(n("1Gi"), n("1024Mi"));
        assert_eq!(n("1e3"), n("1k"));
        assert_eq!(n("-2k"), Ok(-2000 * NANO));
        assert_eq!(n("0"), Ok(0));
        assert_eq!(n(".5"), Ok(NANO / 2));
        assert!(n("1Qi").is_err());
        assert!(n("abc").is_err());
        assert!(n("").is_err());
    }
}
