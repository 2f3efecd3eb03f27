//! Kubernetes' `library.CostEstimator.EstimateCallCost`: the costs of the Kubernetes CEL
//! libraries' functions (lists, regex, URLs, IPs and CIDRs, quantities, formats, semver) and
//! of the string functions it overrides, by function name.

use cel::common::ast::{Expr, LiteralValue};

use super::estimate::{
    Est, MAX_FORMAT_SIZE, MAX_NAME_FORMAT_REGEX, Node, REGEX_LENGTH, STRING_TRAVERSAL, Sizes,
    UNKNOWN, fixed,
};
use super::types::{Type, opaque};

/// Kubernetes' `EstimateCallCost`, by function name; `None` leaves the call to cel-go's
/// rules.
pub(super) fn kubernetes_cost(
    sizes: &dyn Sizes,
    function: &str,
    id: &str,
    target: Option<&Node<'_>>,
    args: &[Node<'_>],
) -> Option<(Est, Option<Est>)> {
    let size = |n: &Node<'_>| sizes.size_of_node(n);
    let one = Some((fixed(1), None));
    match function {
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
            let t = target?;
            if let Type::List(el) = &t.ty {
                let mut el_cost = fixed(1);
                if matches!(**el, Type::String | Type::Bytes) {
                    let mut p = t.path.clone();
                    let el_size = if p.is_empty() {
                        UNKNOWN
                    } else {
                        p.push("@items".into());
                        sizes.schema_size(&p).unwrap_or(UNKNOWN)
                    };
                    el_cost = el_cost.add(el_size.by(STRING_TRAVERSAL));
                }
                Some((size(t).mul(el_cost), None))
            } else {
                Some((size(t).by(STRING_TRAVERSAL), None))
            }
        }
        "url" if args.len() == 1 => {
            let sz = size(&args[0]);
            Some((sz.by(STRING_TRAVERSAL), Some(sz)))
        }
        "lowerAscii" | "upperAscii" | "substring" | "trim" => {
            let sz = size(target?);
            Some((sz.by(STRING_TRAVERSAL), Some(sz)))
        }
        "replace" if target.is_some() && args.len() >= 2 => {
            let sz = size(target?);
            let (from, with) = (size(&args[0]), size(&args[1]));
            let mut count = Est::default();
            let mut kept = Est::default();
            if from.min == 0 {
                count.max = if sz.max < u64::MAX {
                    sz.max + 1
                } else {
                    sz.max
                };
                kept.max = sz.max;
            } else if with.max <= from.min {
                count.max = 0;
                kept.max = sz.max;
            } else {
                count.max = (sz.max as f64 / from.min as f64).ceil() as u64;
            }
            if from.max == 0 {
                count.min = if sz.min < u64::MAX {
                    sz.min + 1
                } else {
                    sz.min
                };
                kept.min = sz.min;
            } else if from.max <= with.min {
                count.min = 0;
                kept.min = sz.min;
            } else {
                count.min = (sz.min as f64 / from.max as f64).ceil() as u64;
            }
            let out = count.mul(with).add(kept);
            Some((sz.by(2.0 * STRING_TRAVERSAL), Some(out)))
        }
        "split" => {
            let sz = size(target?);
            let mut max = sz.max;
            if let Some(Expr::Literal(LiteralValue::Int(i))) =
                args.get(1).and_then(|a| a.expr).map(|x| &x.expr)
            {
                max = *i.inner() as u64;
            }
            Some((sz.by(2.0 * STRING_TRAVERSAL), Some(Est { min: 0, max })))
        }
        "join" => {
            let t = target?;
            let list = size(t);
            let mut sz = Est::default();
            if matches!(t.ty, Type::List(_)) {
                let mut p = t.path.clone();
                let el = if p.is_empty() {
                    UNKNOWN
                } else {
                    p.push("@items".into());
                    sizes.schema_size(&p).unwrap_or(UNKNOWN)
                };
                sz = list.mul(el);
            }
            if let Some(sep) = args.first() {
                let seps = Est {
                    min: list.min.saturating_sub(1),
                    max: list.max.saturating_sub(1),
                };
                sz = sz.add(size(sep).mul(seps));
            }
            Some((sz.by(STRING_TRAVERSAL), Some(sz)))
        }
        "find" | "findAll" if target.is_some() && !args.is_empty() => {
            let sz = size(target?);
            let s = sz.add(fixed(1)).by(STRING_TRAVERSAL);
            let r = size(&args[0]).by(REGEX_LENGTH);
            Some((
                s.mul(r),
                Some(Est {
                    min: 0,
                    max: sz.max,
                }),
            ))
        }
        // Parsing functions are costed only as members, as the real estimator does.
        "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" | "semver" | "isSemver" => {
            target?;
            Some((size(args.first()?).by(STRING_TRAVERSAL), None))
        }
        "ip" => {
            target?;
            if args.is_empty() || id == "cidr_ip" {
                return one;
            }
            Some((size(&args[0]).by(STRING_TRAVERSAL), None))
        }
        "ip.isCanonical" => {
            target?;
            Some((size(args.first()?).by(2.0 * STRING_TRAVERSAL), None))
        }
        "masked"
        | "prefixLength"
        | "family"
        | "isUnspecified"
        | "isLoopback"
        | "isLinkLocalMulticast"
        | "isLinkLocalUnicast"
        | "isGlobalUnicast"
        | "format.named"
        | "sign"
        | "asInteger"
        | "isInteger"
        | "asApproximateFloat"
        | "isGreaterThan"
        | "isLessThan"
        | "compareTo"
        | "add"
        | "sub"
        | "major"
        | "minor"
        | "patch"
        | "getScheme"
        | "getHostname"
        | "getHost"
        | "getPort"
        | "getEscapedPath"
        | "getQuery" => one,
        "containsIP" | "containsCIDR" => {
            target?;
            let arg = args.first()?;
            let ip = Est { min: 4, max: 16 };
            let mut cost = ip.add(ip).by(STRING_TRAVERSAL);
            if function == "containsCIDR" {
                cost = cost.add(ip.by(STRING_TRAVERSAL)).add(fixed(1));
            }
            if id.ends_with("_string") {
                cost = cost.add(size(arg).by(STRING_TRAVERSAL));
            }
            Some((cost, None))
        }
        "validate" => {
            target?;
            let sz = size(args.first()?);
            Some((
                sz.by(STRING_TRAVERSAL)
                    .by(MAX_NAME_FORMAT_REGEX * REGEX_LENGTH),
                None,
            ))
        }
        "_==_" if args.len() == 2 && args[0].ty == args[1].ty => match &args[0].ty {
            Type::Opaque(opaque::IP | opaque::CIDR | opaque::QUANTITY | opaque::SEMVER, _) => one,
            Type::Opaque(opaque::FORMAT, _) => Some((
                Est {
                    min: 1,
                    max: MAX_FORMAT_SIZE,
                }
                .by(STRING_TRAVERSAL),
                None,
            )),
            Type::Opaque(opaque::URL, _) => {
                let size = match (args[1].computed, args[1].computed) {
                    (Some(r), Some(l)) => r.union(l),
                    _ => fixed(1),
                };
                Some((
                    Est {
                        min: 1,
                        max: size.max,
                    }
                    .by(STRING_TRAVERSAL),
                    None,
                ))
            }
            _ => None,
        },
        _ => None,
    }
}
