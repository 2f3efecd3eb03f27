//! CEL for `x-kubernetes-validations` rules (kubebuilder's `XValidation` markers), evaluated
//! with the `cel` crate (cel-rust) and the Kubernetes libraries of [`super::cel_lib`].
//!
//! The environment is the CEL standard library (macros `has`, `all`, `exists`, `exists_one`,
//! `map`, `filter`; optional types), cel-go's strings extension as cel-rust ships it (its
//! math and lists extensions are refused by the reference check, as the real environment
//! lacks them), and the Kubernetes libraries the crate lacks (lists, regex, sets, quantity,
//! URL, IP, CIDR, format, semver, two-variable comprehensions). Values reach CEL typed by their schema: `integer` fields are `int`,
//! `number` fields `double` (even `1.0`), int-or-string fields `int` or `string`, object
//! properties whose names are not CEL identifiers are escaped as the real server escapes
//! them (`my-field` is `self.my__dash__field`).
//!
//! The type checker and the cost estimator the real server runs when a CRD is written are in
//! [`super::cel_types`]; the testenv README ("CEL validation rules") lists what is available.

use super::cel_value;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Why a rule could not be compiled or evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CelError {
    /// The rule does not parse, or refers to a variable or function that does not exist;
    /// the real server refuses such a rule when the CRD is created.
    #[error("compilation failed: {0}")]
    Compile(String),
    /// An error the real server reports while evaluating a rule (`no such key`, division by
    /// zero, overflow, index out of range, a library function refusing its argument).
    #[error("{0}")]
    Runtime(String),
    /// An error that comes from what this evaluator lacks (an overload it does not have,
    /// a value it cannot represent); such a rule is not enforced rather than wrongly
    /// rejecting an object a real server accepts.
    #[error("{0}")]
    Unsupported(String),
}

impl CelError {
    /// Whether the real server would report this error to the client as a failed rule.
    pub fn is_reported(&self) -> bool {
        matches!(self, CelError::Runtime(_))
    }
}

/// A compiled rule, ready to evaluate against many values.
pub struct Program {
    program: cel::Program,
    /// Whether the rule refers to `oldSelf` (a transition rule, only checked on update).
    pub uses_old_self: bool,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("uses_old_self", &self.uses_old_self)
            .finish_non_exhaustive()
    }
}

/// The one environment every rule compiles and runs in (built once: it only holds
/// declarations).
fn env() -> &'static Arc<cel::Env> {
    static ENV: OnceLock<Arc<cel::Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = cel::Env::stdlib();
        let registered = env
            .add_extension(cel::extensions::strings)
            .and_then(|()| env.add_extension(super::cel_lib::register))
            .and_then(|()| super::cel_types::macros::register(&mut env, true));
        if let Err(e) = registered {
            // Declarations are static: a clash is a programming error caught by the tests.
            panic!("CEL environment: {e}");
        }
        Arc::new(env)
    })
}

/// Compiled programs by source text: CRDs are few and their rules fixed, so a rule is
/// compiled once, not on every request (the cache is emptied if it ever grows large).
fn cache() -> &'static Mutex<HashMap<String, Arc<Program>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Program>>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

const CACHE_LIMIT: usize = 4096;

/// Parses `src` and checks that it only refers to `self`, `oldSelf`, the variables its
/// macros declare and functions of the environment, as the real server's compiler does.
pub fn compile(src: &str) -> Result<Arc<Program>, CelError> {
    if let Some(p) = cache()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(src)
    {
        return Ok(p.clone());
    }
    // The parser descends once per nesting level with large frames: parse on a thread
    // with room for it, so that no rule can overflow a request thread's stack.
    let program = on_large_stack(|| {
        let program = env()
            .compile(src)
            .map_err(|e| CelError::Compile(e.to_string()))?;
        super::cel_check::check_references(program.expression())
            .map_err(|e| CelError::Compile(format!("ERROR: <input>: {e}")))?;
        Ok(program)
    })?;
    let uses_old_self = program.references().has_variable("oldSelf");
    let program = Arc::new(Program {
        program,
        uses_old_self,
    });
    let mut cache = cache()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(src.to_string(), program.clone());
    Ok(program)
}

/// Stack for compiling and evaluating rules: the evaluator recurses once per level of the
/// expression (several KiB per level in debug builds), up to the depth limit of
/// [`super::cel_check`]. Only the pages used are committed.
const STACK: usize = 64 << 20;

/// Runs `f` on a scoped thread with a [`STACK`]-sized stack.
pub fn on_large_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("cel".into())
            .stack_size(STACK)
            .spawn_scoped(scope, f)
        {
            Ok(handle) => match handle.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No thread to be had: a programming or resource error the caller cannot fix.
            Err(e) => panic!("cannot start a thread for CEL: {e}"),
        }
    })
}

/// What `oldSelf` is bound to.
#[derive(Debug, Clone, Copy)]
pub enum OldSelf<'a> {
    /// Not bound (a create, or a value without a correlated old value).
    Unbound,
    /// Bound to the old value.
    Value(&'a Value),
    /// `optionalOldSelf: true`: bound to `optional.of(old)` or `optional.none()`.
    Optional(Option<&'a Value>),
}

/// Evaluates `program` with `self` (and `oldSelf`) bound, values typed by `schema`; the
/// result must be a boolean.
pub fn eval_bool(
    program: &Program,
    self_value: &Value,
    old_self: OldSelf<'_>,
    schema: &Value,
) -> Result<bool, CelError> {
    match run(program, self_value, old_self, schema)? {
        cel::Value::Bool(b) => Ok(b),
        other => Err(CelError::Unsupported(format!(
            "rule returned {other:?}, not a bool"
        ))),
    }
}

/// Evaluates `program` and returns its value as a string (`messageExpression`); `None` when
/// the result is not a string.
pub fn eval_string(
    program: &Program,
    self_value: &Value,
    old_self: OldSelf<'_>,
    schema: &Value,
) -> Result<Option<String>, CelError> {
    Ok(match run(program, self_value, old_self, schema)? {
        cel::Value::String(s) => Some(s.to_string()),
        _ => None,
    })
}

fn run(
    program: &Program,
    self_value: &Value,
    old_self: OldSelf<'_>,
    schema: &Value,
) -> Result<cel::Value, CelError> {
    let mut ctx = cel::Context::with_env(env().clone());
    ctx.add_variable_from_value("self", cel_value::to_cel(self_value, schema));
    match old_self {
        OldSelf::Unbound => {}
        OldSelf::Value(old) => {
            ctx.add_variable_from_value("oldSelf", cel_value::to_cel(old, schema));
        }
        OldSelf::Optional(old) => {
            let opt = match old {
                Some(o) => cel::objects::OptionalValue::of(cel_value::to_cel(o, schema)),
                None => cel::objects::OptionalValue::none(),
            };
            ctx.add_variable_from_value("oldSelf", cel::Value::Opaque(Arc::new(opt)));
        }
    }
    program.program.execute(&ctx).map_err(classify)
}

/// Sorts an execution error into what the real server reports and what only this
/// evaluator's gaps cause; the reported ones get cel-go's texts.
fn classify(e: cel::ExecutionError) -> CelError {
    use cel::ExecutionError as E;
    match e {
        E::NoSuchKey(k) => CelError::Runtime(format!("no such key: {k}")),
        E::DivisionByZero(_) => CelError::Runtime("division by zero".into()),
        E::RemainderByZero(_) => CelError::Runtime("modulus by zero".into()),
        E::Overflow(..) => CelError::Runtime("integer overflow".into()),
        E::IndexOutOfBounds(i) => CelError::Runtime(format!(
            "index out of bounds: {}",
            cel_value::debug_plain(&i)
        )),
        E::FunctionError { message, .. } => CelError::Runtime(message),
        other => CelError::Unsupported(other.to_string()),
    }
}

/// A compiled expression of an admission policy or a webhook's match condition: CEL with
/// other root variables than a schema rule's `self` (`object`, `oldObject`, `request`,
/// `params`, ...), the same libraries and the same compile-time checks.
pub struct Expression {
    program: cel::Program,
}

/// Compiles `src` for the root variables `roots` (cached by source and roots).
pub fn compile_expression(src: &str, roots: &[&str]) -> Result<Arc<Expression>, CelError> {
    static EXPRESSIONS: OnceLock<Mutex<HashMap<String, Arc<Expression>>>> = OnceLock::new();
    let key = format!("{}\u{0}{src}", roots.join(","));
    let cache = EXPRESSIONS.get_or_init(Mutex::default);
    if let Some(e) = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&key)
    {
        return Ok(e.clone());
    }
    let program = on_large_stack(|| {
        let program = env()
            .compile(src)
            .map_err(|e| CelError::Compile(e.to_string()))?;
        // The checker's report (every error, each at its place) comes first; the plain
        // reference check catches what it may not see.
        super::cel_types::admission::check_dynamic(src, roots).map_err(CelError::Compile)?;
        super::cel_check::check_references_in(program.expression(), roots)
            .map_err(|e| CelError::Compile(format!("ERROR: <input>: {e}")))?;
        Ok(program)
    })?;
    let expression = Arc::new(Expression { program });
    let mut cache = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(key, expression.clone());
    Ok(expression)
}

/// Evaluates `expression` with `variables` bound (on a thread with room for deep
/// expressions).
pub fn eval_expression(
    expression: &Expression,
    variables: &[(&str, cel::Value)],
) -> Result<cel::Value, CelError> {
    on_large_stack(|| {
        let mut ctx = cel::Context::with_env(env().clone());
        for (name, value) in variables {
            ctx.add_variable_from_value(*name, value.clone());
        }
        expression.program.execute(&ctx).map_err(classify)
    })
}

/// A JSON value as CEL sees a value without a schema (integral numbers are `int`).
pub fn json_to_cel(value: &Value) -> cel::Value {
    cel_value::to_cel(value, &Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(rule: &str, value: Value) -> Result<bool, CelError> {
        eval_bool(&*compile(rule)?, &value, OldSelf::Unbound, &json!({}))
    }

    #[test]
    fn evaluates_common_kubebuilder_rules() {
        let v = json!({"min": 1, "max": 5, "name": "web-1", "items": [1, 2, 3], "labels": {"a": "x"}, "ratio": 0.5});
        for (rule, want) in [
            ("self.min <= self.max", true),
            ("self.min > self.max", false),
            ("has(self.name) && self.name.startsWith('web')", true),
            ("!has(self.other) || self.other > 0", true),
            ("size(self.items) <= 3 && self.items.size() == 3", true),
            ("self.items.all(i, i > 0)", true),
            ("self.items.exists(i, i > 2)", true),
            ("self.items.exists_one(i, i == 2)", true),
            ("self.items.filter(i, i > 1).size() == 2", true),
            ("self.items.map(i, i * 2)[2] == 6", true),
            ("'a' in self.labels && !('b' in self.labels)", true),
            ("2 in self.items", true),
            ("self.name.matches('^[a-z]+-[0-9]+$')", true),
            ("self.ratio < 1.0 && self.ratio >= 0.5", true),
            ("self.min == 1 ? self.max == 5 : false", true),
            ("(self.max - self.min) % 2 == 0", true),
            ("self.name + '!' == \"web-1!\"", true),
            ("self.labels.all(k, self.labels[k] == 'x')", true),
            ("int('3') == 3 && string(3) == '3'", true),
            (r#"self.name.matches(r"^web-\d$")"#, true),
            (
                "self.name.split('-')[1] == '1' && self.name.indexOf('-') == 3",
                true,
            ),
            (
                "self.name.substring(0, 3) == 'web' && ' x '.trim() == 'x'",
                true,
            ),
            (
                "['a', 'b'].join(',') == 'a,b' && self.name.replace('-', '_') == 'web_1'",
                true,
            ),
            (
                "self.items.isSorted() && self.items.sum() == 6 && self.items.max() == 3",
                true,
            ),
            ("self.items.min() == 1 && self.items.indexOf(3) == 2", true),
            ("has(self.labels.a) && !has(self.labels.b)", true),
            (
                "'Web'.lowerAscii() == 'web' && 'web'.upperAscii() == 'WEB'",
                true,
            ),
            ("'%s-%d'.format(['a', 1]) == 'a-1'", true),
        ] {
            assert_eq!(check(rule, v.clone()), Ok(want), "{rule}");
        }
        // errors do not become verdicts
        assert!(matches!(
            check("self.missing > 1", v.clone()),
            Err(CelError::Runtime(m)) if m == "no such key: missing"
        ));
        assert!(matches!(
            check("self.name.unknownFn()", v.clone()),
            Err(CelError::Compile(_))
        ));
        assert!(matches!(compile("self.min <="), Err(CelError::Compile(_))));
        assert!(matches!(compile("other > 1"), Err(CelError::Compile(_))));
        // an error on one side of || is absorbed by a true other side
        assert_eq!(check("self.missing > 1 || true", v), Ok(true));
    }

    #[test]
    fn kubernetes_and_extension_libraries() {
        let v = json!({"url": "https://example.com:8443/a?x=1", "ip": "10.0.0.7", "mem": "1536Mi",
            "names": ["a", "b", "c"], "m": {"k": 2}});
        for rule in [
            "url(self.url).getHostname() == 'example.com' && url(self.url).getPort() == '8443'",
            "url(self.url).getScheme() == 'https' && url(self.url).getQuery()['x'] == ['1']",
            "isURL('/path') && !isURL('no way')",
            "ip(self.ip).family() == 4 && !ip(self.ip).isLoopback() && ip('::1').isLoopback()",
            "cidr('10.0.0.0/8').containsIP(self.ip) && !cidr('10.0.0.0/8').containsIP('11.0.0.1')",
            "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && cidr('10.1.2.3/16').prefixLength() == 16",
            "isIP('1.2.3.4') && !isIP('1.2.3') && isCIDR('::/0') && ip.isCanonical('::1')",
            "quantity(self.mem).isGreaterThan(quantity('1Gi')) && quantity(self.mem) == quantity('1.5Gi')",
            "quantity('1').add(quantity('500m')).asApproximateFloat() == 1.5 && quantity('2k').asInteger() == 2000",
            "quantity('1Gi').compareTo(quantity('1G')) == 1 && sign(quantity('-1')) == -1 && isQuantity('3Mi')",
            "'abc123def45'.find('[0-9]+') == '123' && 'abc123def45'.findAll('[0-9]+') == ['123', '45']",
            "sets.contains(self.names, ['a']) && sets.intersects(self.names, ['z', 'c']) && sets.equivalent(['a', 'b'], ['b', 'a'])",
            "self.names.lastIndexOf('c') == 2 && self.names.indexOf('z') == -1 && self.names.isSorted()",
            "[1.5, 2.5].sum() == 4.0 && ['b', 'a'].min() == 'a'",
            "'abc'.charAt(1) == 'b' && 'a-b'.split('-') == ['a', 'b']",
            "optional.of(1).hasValue() && !optional.none().hasValue() && optional.none().orValue(3) == 3",
            "self.m.all(k, self.m[k] > 1) && self.m.exists(k, k == 'k')",
        ] {
            assert_eq!(check(rule, v.clone()), Ok(true), "{rule}");
        }
        // cel-go's math, lists and bindings extensions and strings version 3 are not part of
        // the real server's environment (1.34): it refuses them as undeclared.
        for rule in [
            "math.greatest(1, 5, 3) == 5",
            "[3, 1, 2].sort() == [1, 2, 3]",
            "cel.bind(x, 1, x == 1)",
            "'abc'.reverse() == 'cba'",
        ] {
            assert!(
                matches!(check(rule, v.clone()), Err(CelError::Compile(m)) if m.contains("undeclared reference")),
                "{rule}"
            );
        }
        assert!(matches!(
            check("quantity('12 parsecs') == quantity('1')", v.clone()),
            Err(CelError::Runtime(_))
        ));
        assert!(matches!(
            check("[].max() == 1", v),
            Err(CelError::Runtime(m)) if m.contains("empty")
        ));
    }

    #[test]
    fn deep_expressions_are_refused_not_overflowing() {
        let nested = format!("{}self{} == 1", "(".repeat(300), ")".repeat(300));
        assert!(matches!(compile(&nested), Err(CelError::Compile(_))));
        let chain = format!("{} == 1", vec!["self"; 2000].join(" + "));
        assert!(
            matches!(compile(&chain), Err(CelError::Compile(m)) if m.contains("recursion limit")),
        );
        // Within the limit, evaluation runs on the large stack (see `rules`).
        let sum = format!("{} == 240", vec!["self"; 240].join(" + "));
        let p = compile(&sum).unwrap();
        let ok = on_large_stack(|| eval_bool(&p, &json!(1), OldSelf::Unbound, &json!({})));
        assert_eq!(ok, Ok(true));
    }

    #[test]
    fn kubernetes_format_and_semver_libraries() {
        for (rule, want) in [
            ("format.dns1123Label().validate('web-1').hasValue()", false),
            ("format.dns1123Label().validate('Web_1').hasValue()", true),
            ("format.named('dns1123Label').hasValue()", true),
            ("semver('1.2.3').isGreaterThan(semver('1.2.0'))", true),
        ] {
            assert_eq!(check(rule, json!({})), Ok(want), "{rule}");
        }
    }

    #[test]
    fn transition_rules() {
        let p = compile("self == oldSelf").unwrap();
        assert!(p.uses_old_self);
        let s = json!({"type": "string"});
        let run = |new: Value, old: Value| eval_bool(&p, &new, OldSelf::Value(&old), &s);
        assert_eq!(run(json!("a"), json!("a")), Ok(true));
        assert_eq!(run(json!("a"), json!("b")), Ok(false));
        assert!(!compile("self.x > 0").unwrap().uses_old_self);
        let opt = compile("!oldSelf.hasValue() || oldSelf.value() == self").unwrap();
        assert_eq!(
            eval_bool(&opt, &json!("a"), OldSelf::Optional(None), &s),
            Ok(true)
        );
        assert_eq!(
            eval_bool(&opt, &json!("a"), OldSelf::Optional(Some(&json!("b"))), &s),
            Ok(false)
        );
    }

    #[test]
    fn int_or_string_values_compare_by_type() {
        let s = json!({"x-kubernetes-int-or-string": true});
        let p = compile("self == oldSelf").unwrap();
        let run = |new: Value, old: Value| eval_bool(&p, &new, OldSelf::Value(&old), &s);
        assert_eq!(run(json!(1), json!(1)), Ok(true));
        assert_eq!(run(json!(1), json!("1")), Ok(false));
        assert_eq!(run(json!("50%"), json!("60%")), Ok(false));
        assert_eq!(run(json!(2), json!(3)), Ok(false));
    }
}
