//! An RSA private key read as Go's `x509.ParsePKCS1PrivateKey` reads it: the
//! `pkcs1PrivateKey` structure as `encoding/asn1` decodes it (with its messages), the
//! version and signs `x509` checks, then the key's mathematical consistency as
//! `rsa.PrivateKey.Precompute` and `Validate` check it in Go 1.27 (`crypto/rsa` and its FIPS
//! module, `bigmod`'s errors included): two-prime keys with or without their CRT values,
//! and the legacy multi-prime keys, each failure in Go's order and words.

use super::csr::asn1::{Expect, Field, field, sequence_of_structs, syntax};
use super::csr::rsa_verify::mod_pow;
use super::natural::Nat;

/// The numbers of a decoded `pkcs1PrivateKey`.
struct Numbers {
    version: i64,
    n: Nat,
    e: i64,
    d: Nat,
    p: Nat,
    q: Nat,
    /// `Dp`, `Dq` and `Qinv` when present.
    crt: [Option<Nat>; 3],
    /// The additional primes (the first of each `pkcs1AdditionalRSAPrime`).
    primes: Vec<Nat>,
    /// Whether a number is zero or negative, and whether an additional prime is.
    not_positive: bool,
    prime_not_positive: bool,
}

/// A signed INTEGER's contents: whether it is above zero, and its magnitude when it is.
fn positive(contents: &[u8]) -> Option<Nat> {
    let value = Nat::from_be(contents);
    (contents.first().is_some_and(|b| b & 0x80 == 0) && !value.is_zero()).then_some(value)
}

/// The value of a minimal INTEGER of at most eight bytes.
fn int64(contents: &[u8]) -> i64 {
    let start: i64 = if contents.first().is_some_and(|b| b & 0x80 != 0) {
        -1
    } else {
        0
    };
    contents
        .iter()
        .fold(start, |acc, b| (acc << 8) | i64::from(*b))
}

/// `asn1.Unmarshal(der, &pkcs1PrivateKey{})`, trailing data allowed, with Go's messages.
fn decode(der: &[u8]) -> Result<(Numbers, usize), String> {
    let (outer, end) = field(der, 0, Expect::Struct("pkcs1PrivateKey"))?;
    let body = outer.inner;
    let mut at = 0;
    let mut next = |expect| -> Result<Field, String> {
        let (f, after) = field(body, at, expect)?;
        at = after;
        Ok(f)
    };
    let version = next(Expect::Int)?;
    let n = next(Expect::BigInt)?;
    let e = next(Expect::Int)?;
    let d = next(Expect::BigInt)?;
    let p = next(Expect::BigInt)?;
    let q = next(Expect::BigInt)?;
    let crt = [
        next(Expect::OptionalBigInt)?,
        next(Expect::OptionalBigInt)?,
        next(Expect::OptionalBigInt)?,
    ];
    let mut primes = Vec::new();
    let mut prime_not_positive = false;
    if at < body.len() {
        let (h, _) = super::csr::asn1::header(body, at)?;
        if h.class == 0 && h.tag == 16 && h.compound {
            let (list, _) = field(body, at, Expect::Struct(""))?;
            for element in sequence_of_structs(list.inner)? {
                let (inner, _) = field(element, 0, Expect::Struct("pkcs1AdditionalRSAPrime"))?;
                let (prime, after) = field(inner.inner, 0, Expect::BigInt)?;
                let (_, after) = field(inner.inner, after, Expect::BigInt)?;
                field(inner.inner, after, Expect::BigInt)?;
                match positive(prime.inner) {
                    Some(prime) => primes.push(prime),
                    None => prime_not_positive = true,
                }
            }
        }
    }
    let required = [n.inner, d.inner, p.inner, q.inner];
    let not_positive = required.iter().any(|v| positive(v).is_none())
        || crt.iter().any(|c| c.present && positive(c.inner).is_none());
    let value = |f: Field| positive(f.inner).unwrap_or_default();
    Ok((
        Numbers {
            version: int64(version.inner),
            n: value(n),
            e: int64(e.inner),
            d: value(d),
            p: value(p),
            q: value(q),
            crt: crt.map(|c| c.present.then(|| value(c))),
            primes,
            not_positive,
            prime_not_positive,
        },
        end,
    ))
}

/// Whether `der` decodes as a `pkcs1PrivateKey` structure (the hint Go's PKCS#8 parser
/// gives for a PKCS#1 key).
pub fn is_pkcs1_structure(der: &[u8]) -> bool {
    decode(der).is_ok()
}

/// `x509.ParsePKCS1PrivateKey`: the key's modulus, or why the key is refused (the message
/// Go wraps in `x509: failed to parse RSA private key embedded in PKCS#8: ...`).
pub fn parse(der: &[u8], other_structure: impl Fn(&[u8]) -> Option<String>) -> Result<Nat, String> {
    let key = match decode(der) {
        Ok((_, end)) if end != der.len() => return Err(syntax("trailing data")),
        Ok((key, _)) => key,
        Err(e) => return Err(other_structure(der).unwrap_or(e)),
    };
    if key.version > 1 {
        return Err("x509: unsupported private key version".into());
    }
    if key.not_positive {
        return Err("x509: private key contains zero or negative value".into());
    }
    if key.prime_not_positive {
        return Err("x509: private key contains zero or negative prime".into());
    }
    if key.primes.is_empty() {
        two_primes(&key)?;
    } else {
        multi_prime(&key)?;
    }
    Ok(key.n)
}

/// `bigmod.NewModulus`.
fn modulus(m: &Nat) -> Result<(), String> {
    if m.bits() <= 1 {
        return Err("modulus must be > 1".into());
    }
    Ok(())
}

/// `bigmod.Nat.SetBytes(x.Bytes(), m)`: `x` must fit `m`'s limbs, then be below `m`.
fn set_bytes(x: &Nat, m: &Nat) -> Result<(), String> {
    if x.limb_count() > m.limb_count() {
        return Err("input overflows the modulus size".into());
    }
    if x >= m {
        return Err("input overflows the modulus".into());
    }
    Ok(())
}

/// `checkPublicKey` of the FIPS module.
fn check_public(n: &Nat, e: i64) -> Result<(), String> {
    if !n.is_odd() {
        return Err("crypto/rsa: public modulus is even".into());
    }
    if e < 2 {
        return Err("crypto/rsa: public exponent too small or negative".into());
    }
    if e & 1 == 0 {
        return Err("crypto/rsa: public exponent is even".into());
    }
    if e > (1 << 31) - 1 {
        return Err("crypto/rsa: public exponent too large".into());
    }
    Ok(())
}

/// `precompute` for two primes: `NewPrivateKeyWithPrecomputation` when the CRT values are
/// all there, `NewPrivateKey` (which derives them) otherwise, then `checkPrivateKey`.
fn two_primes(key: &Numbers) -> Result<(), String> {
    let (n, p, q, d) = (&key.n, &key.p, &key.q, &key.d);
    modulus(n)?;
    modulus(p)?;
    modulus(q)?;
    set_bytes(d, n)?;
    let (dp, dq, qinv) = match &key.crt {
        [Some(dp), Some(dq), Some(qinv)] => {
            set_bytes(qinv, p)?;
            (dp.clone(), dq.clone(), qinv.clone())
        }
        _ => {
            let (p1, q1) = (p.minus_one(), q.minus_one());
            modulus(&p1)?;
            let dp = d.rem(&p1);
            modulus(&q1)?;
            let dq = d.rem(&q1);
            if !p.is_odd() {
                return Err("crypto/rsa: p is even".into());
            }
            let exponent = p.minus_one().minus_one().to_be();
            let qinv = Nat::from_be(&mod_pow(&q.rem(p).to_be(), &exponent, &p.to_be()));
            (dp, dq, qinv)
        }
    };
    check_private(key, &dp, &dq, &qinv)
}

/// `checkPrivateKey` for a key with its CRT values.
fn check_private(key: &Numbers, dp: &Nat, dq: &Nat, qinv: &Nat) -> Result<(), String> {
    let (n, p, q, d) = (&key.n, &key.p, &key.q, &key.d);
    check_public(n, key.e)?;
    if p >= n || q >= n {
        return Err("crypto/rsa: invalid prime".into());
    }
    if !p.mul(q).rem(n).is_zero() {
        return Err("crypto/rsa: p * q != n".into());
    }
    let e = Nat::from_u64(key.e.unsigned_abs());
    let one = Nat::from_u64(1);
    for (prime, crt_exponent) in [(p, dp), (q, dq)] {
        let minus_one = prime.minus_one();
        modulus(&minus_one).map_err(|_| "crypto/rsa: invalid prime".to_string())?;
        if set_bytes(crt_exponent, &minus_one).is_err()
            || e.rem(&minus_one).mul(crt_exponent).rem(&minus_one) != one
        {
            return Err("crypto/rsa: invalid CRT exponent".into());
        }
    }
    if q.rem(p).mul(qinv).rem(p) != one {
        return Err("crypto/rsa: invalid CRT coefficient".into());
    }
    if d.rem(&p.minus_one()) != *dp {
        return Err("crypto/rsa: d does not match dP".into());
    }
    if d.rem(&q.minus_one()) != *dq {
        return Err("crypto/rsa: d does not match dQ".into());
    }
    let difference = match p.cmp(q) {
        std::cmp::Ordering::Equal => return Err("crypto/rsa: p == q".into()),
        std::cmp::Ordering::Greater => p.sub(q),
        std::cmp::Ordering::Less => q.sub(p),
    };
    let half = n.bits() / 2;
    if (difference.bits() as i64) <= half as i64 - 100 {
        return Err("crypto/rsa: |p - q| too small".into());
    }
    if d.bits() <= half {
        return Err("crypto/rsa: d too small".into());
    }
    Ok(())
}

/// `precomputeLegacy` for a key of more than two primes: the public key, `d < n`, and the
/// CRT coefficients' existence (each prime coprime with the product of those before it).
fn multi_prime(key: &Numbers) -> Result<(), String> {
    modulus(&key.n)?;
    set_bytes(&key.d, &key.n)?;
    check_public(&key.n, key.e)?;
    let one = Nat::from_u64(1);
    let primes: Vec<&Nat> = [&key.p, &key.q].into_iter().chain(&key.primes).collect();
    if primes.iter().any(|p| **p <= one) {
        return Err("crypto/rsa: prime factor is <= 1".into());
    }
    const NOT_COPRIME: &str = "crypto/rsa: prime factors are not relatively prime";
    if key.q.gcd(&key.p) != one {
        return Err(NOT_COPRIME.into());
    }
    let mut product = key.p.mul(&key.q);
    for prime in &key.primes {
        if product.gcd(prime) != one {
            return Err(NOT_COPRIME.into());
        }
        product = product.mul(prime);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DER of an INTEGER (non-negative).
    fn int(v: &Nat) -> Vec<u8> {
        let mut bytes = v.to_be();
        if bytes.first().is_none_or(|b| b & 0x80 != 0) {
            bytes.insert(0, 0);
        }
        der(0x02, &bytes)
    }

    fn der(t: u8, contents: &[u8]) -> Vec<u8> {
        let mut out = vec![t];
        let len = contents.len();
        if len < 0x80 {
            out.push(len as u8);
        } else if len < 0x100 {
            out.extend([0x81, len as u8]);
        } else {
            out.extend([0x82, (len >> 8) as u8, len as u8]);
        }
        out.extend_from_slice(contents);
        out
    }

    fn small(v: u64) -> Nat {
        Nat::from_u64(v)
    }

    /// A PKCS#1 key from its numbers (`crt` empty for none).
    fn key(version: u64, numbers: &[&Nat]) -> Vec<u8> {
        let mut body = int(&small(version));
        for n in numbers {
            body.extend(int(n));
        }
        der(0x30, &body)
    }

    fn err(der: &[u8]) -> Option<String> {
        parse(der, |_| None).err()
    }

    #[test]
    fn consistency_is_checked_in_go_order() {
        // p = 61, q = 53, n = 3233, e = 17, d = 2753: a textbook key (Go sets no minimum
        // size when it parses one).
        let (p, q, n, e, d) = (small(61), small(53), small(3233), small(17), small(2753));
        let (dp, dq, qinv) = (small(53), small(49), small(38));
        assert_eq!(err(&key(0, &[&n, &e, &d, &p, &q, &dp, &dq, &qinv])), None);
        assert_eq!(err(&key(0, &[&n, &e, &d, &p, &q])), None);
        let cases: [(&[&Nat], &str); 7] = [
            (
                &[&n, &e, &small(2754), &p, &q, &dp, &dq, &qinv],
                "crypto/rsa: d does not match dP",
            ),
            (
                &[&n, &e, &d, &p, &q, &small(54), &dq, &qinv],
                "crypto/rsa: invalid CRT exponent",
            ),
            (
                &[&n, &e, &d, &p, &q, &dp, &dq, &small(39)],
                "crypto/rsa: invalid CRT coefficient",
            ),
            (
                &[&small(3235), &e, &d, &p, &q, &dp, &dq, &qinv],
                "crypto/rsa: p * q != n",
            ),
            (
                &[&n, &small(16), &d, &p, &q, &dp, &dq, &qinv],
                "crypto/rsa: public exponent is even",
            ),
            (
                &[&n, &e, &small(4000), &p, &q, &dp, &dq, &qinv],
                "input overflows the modulus",
            ),
            (&[&n, &e, &d, &small(62), &q], "crypto/rsa: p is even"),
        ];
        for (numbers, want) in cases {
            assert_eq!(err(&key(0, numbers)).as_deref(), Some(want));
        }
        assert_eq!(
            err(&key(2, &[&n, &e, &d, &p, &q])).as_deref(),
            Some("x509: unsupported private key version")
        );
        let negative = key(0, &[&n, &e, &d, &p]);
        let body = [&negative[2..], &der(0x02, &[0xff])[..]].concat();
        assert_eq!(
            err(&der(0x30, &body)).as_deref(),
            Some("x509: private key contains zero or negative value")
        );
    }

    #[test]
    fn structures_get_encoding_asn1_messages() {
        assert_eq!(
            err(&[0x30, 0x03, 0x02, 0x01, 0x00]).as_deref(),
            Some("asn1: syntax error: sequence truncated")
        );
        let n = small(3233);
        let mut trailing = key(0, &[&n, &small(17), &small(2753), &small(61), &small(53)]);
        trailing.extend([0x05, 0x00]);
        assert_eq!(
            err(&trailing).as_deref(),
            Some("asn1: syntax error: trailing data")
        );
        assert!(is_pkcs1_structure(&key(1, &[&n, &n, &n, &n, &n])));
    }

    #[test]
    fn multi_prime_keys_need_coprime_factors() {
        let n = small(3233);
        let extra = |prime: u64| {
            let triple = [int(&small(prime)), int(&small(1)), int(&small(1))].concat();
            der(0x30, &der(0x30, &triple))
        };
        let numbers = [int(&small(1)), int(&n), int(&small(17)), int(&small(2753))].concat();
        let with = |prime: u64, q: u64| {
            let body = [
                numbers.clone(),
                int(&small(61)),
                int(&small(q)),
                extra(prime),
            ]
            .concat();
            der(0x30, &body)
        };
        assert_eq!(err(&with(7, 53)), None);
        assert_eq!(
            err(&with(61, 53)).as_deref(),
            Some("crypto/rsa: prime factors are not relatively prime")
        );
        assert_eq!(
            err(&with(7, 1)).as_deref(),
            Some("crypto/rsa: prime factor is <= 1")
        );
    }
}
