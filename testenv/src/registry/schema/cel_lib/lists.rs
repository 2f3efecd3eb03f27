//! Kubernetes' lists library (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`),
//! regex library (`find`, `findAll`) and cel-go's sets extension.

use super::overload::{fail, str_arg, value_fn};
use cel::common::types::{DYN_TYPE, INT_TYPE, LIST_TYPE, STRING_TYPE};
use cel::{DeclarationError, Env, ExecutionError, Value};
use std::cmp::Ordering;
use std::sync::Arc;

/// Declares this library's functions on `env` (called once, when the environment is built).
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_member_overload("isSorted", "list.isSorted()", LIST_TYPE, vec![], is_sorted)?;
    env.add_member_overload("sum", "list.sum()", LIST_TYPE, vec![], sum)?;
    env.add_member_overload("min", "list.min()", LIST_TYPE, vec![], min)?;
    env.add_member_overload("max", "list.max()", LIST_TYPE, vec![], max)?;
    env.add_member_overload(
        "indexOf",
        "list.indexOf(dyn)",
        LIST_TYPE,
        vec![DYN_TYPE],
        index_of,
    )?;
    env.add_member_overload(
        "lastIndexOf",
        "list.lastIndexOf(dyn)",
        LIST_TYPE,
        vec![DYN_TYPE],
        last_index_of,
    )?;
    env.add_member_overload(
        "find",
        "string.find(string)",
        STRING_TYPE,
        vec![STRING_TYPE],
        find,
    )?;
    env.add_member_overload(
        "findAll",
        "string.findAll(string)",
        STRING_TYPE,
        vec![STRING_TYPE],
        find_all,
    )?;
    env.add_member_overload(
        "findAll",
        "string.findAll(string,int)",
        STRING_TYPE,
        vec![STRING_TYPE, INT_TYPE],
        find_all_n,
    )?;
    env.add_overload(
        "sets.contains",
        "sets.contains",
        vec![LIST_TYPE, LIST_TYPE],
        sets_contains,
    )?;
    env.add_overload(
        "sets.equivalent",
        "sets.equivalent",
        vec![LIST_TYPE, LIST_TYPE],
        sets_equivalent,
    )?;
    env.add_overload(
        "sets.intersects",
        "sets.intersects",
        vec![LIST_TYPE, LIST_TYPE],
        sets_intersects,
    )?;
    Ok(())
}

fn list(args: &[Value], i: usize) -> Result<&[Value], ExecutionError> {
    match args.get(i) {
        Some(Value::List(l)) => Ok(l.as_slice()),
        other => Err(ExecutionError::UnexpectedType {
            got: format!("{other:?}"),
            want: "list".into(),
        }),
    }
}

fn compare(a: &Value, b: &Value) -> Result<Ordering, ExecutionError> {
    a.partial_cmp(b)
        .ok_or_else(|| ExecutionError::ValuesNotComparable(a.clone(), b.clone()))
}

value_fn!(is_sorted, |a| {
    let items = list(a, 0)?;
    for w in items.windows(2) {
        if compare(&w[0], &w[1])? == Ordering::Greater {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
});

value_fn!(sum, |a| {
    let items = list(a, 0)?;
    let mut acc = Value::Int(0);
    for (i, x) in items.iter().enumerate() {
        acc = match (acc, x) {
            (Value::Int(s), Value::Int(v)) => Value::Int(
                s.checked_add(*v)
                    .ok_or_else(|| ExecutionError::Overflow("+", Value::Int(s), x.clone()))?,
            ),
            (Value::UInt(s), Value::UInt(v)) => Value::UInt(s.saturating_add(*v)),
            (Value::Int(0), Value::UInt(v)) if i == 0 => Value::UInt(*v),
            (Value::Int(s), Value::Float(v)) if i == 0 => Value::Float(s as f64 + v),
            (Value::Float(s), Value::Float(v)) => Value::Float(s + v),
            (_, other) => return Err(fail("sum", format!("no such overload: sum of {other:?}"))),
        };
    }
    Ok(acc)
});

fn extreme(a: &[Value], want: Ordering, name: &str) -> Result<Value, ExecutionError> {
    let items = list(a, 0)?;
    let mut best = items
        .first()
        .ok_or_else(|| fail(name, format!("{name} called on empty list")))?;
    for x in &items[1..] {
        if compare(x, best)? == want {
            best = x;
        }
    }
    Ok(best.clone())
}

value_fn!(min, |a| extreme(a, Ordering::Less, "min"));
value_fn!(max, |a| extreme(a, Ordering::Greater, "max"));

value_fn!(index_of, |a| {
    let items = list(a, 0)?;
    Ok(Value::Int(
        items
            .iter()
            .position(|x| *x == a[1])
            .map_or(-1, |p| p as i64),
    ))
});

value_fn!(last_index_of, |a| {
    let items = list(a, 0)?;
    Ok(Value::Int(
        items
            .iter()
            .rposition(|x| *x == a[1])
            .map_or(-1, |p| p as i64),
    ))
});

fn regex(pattern: &str, function: &str) -> Result<regex::Regex, ExecutionError> {
    regex::Regex::new(pattern).map_err(|e| fail(function, format!("invalid regex: {e}")))
}

value_fn!(find, |a| {
    let re = regex(str_arg(a, 1)?, "find")?;
    Ok(Value::from(
        re.find(str_arg(a, 0)?)
            .map_or("", |m| m.as_str())
            .to_string(),
    ))
});

fn find_n(a: &[Value], n: i64) -> Result<Value, ExecutionError> {
    let re = regex(str_arg(a, 1)?, "findAll")?;
    let limit = if n < 0 { usize::MAX } else { n as usize };
    let found: Vec<Value> = re
        .find_iter(str_arg(a, 0)?)
        .take(limit)
        .map(|m| Value::String(Arc::new(m.as_str().to_string())))
        .collect();
    Ok(Value::List(Arc::new(found)))
}

value_fn!(find_all, |a| find_n(a, -1));
value_fn!(find_all_n, |a| match a.get(2) {
    Some(Value::Int(n)) => find_n(a, *n),
    _ => Err(ExecutionError::invalid_argument_count(3, a.len())),
});

value_fn!(sets_contains, |a| {
    let (x, y) = (list(a, 0)?, list(a, 1)?);
    Ok(Value::Bool(y.iter().all(|v| x.contains(v))))
});
value_fn!(sets_equivalent, |a| {
    let (x, y) = (list(a, 0)?, list(a, 1)?);
    Ok(Value::Bool(
        y.iter().all(|v| x.contains(v)) && x.iter().all(|v| y.contains(v)),
    ))
});
value_fn!(sets_intersects, |a| {
    let (x, y) = (list(a, 0)?, list(a, 1)?);
    Ok(Value::Bool(y.iter().any(|v| x.contains(v))))
});
