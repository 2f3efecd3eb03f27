//! Steps with a `shardSelector` (KEP-5866, alpha in Kubernetes v1.36), which the v1.34
//! reference server predates. Each such step is answered by three servers:
//!
//! - the embedded server with the `ShardedListAndWatch` gate, checked against the step's
//!   expected answer: a refusal's status and message, or the answer to the same request
//!   without the selector less the objects (a watch: events) whose 64-bit FNV-1a hash of the
//!   sharded field lies outside the ranges, with the selector echoed in the list's
//!   `metadata.shardInfo.selector`; kept answers that must together hold the answer without the
//!   selector exactly once;
//! - the real server, checked to do what a server without the feature does: ignore the
//!   parameter (its answer is its answer without the selector);
//! - the embedded server without the gate, compared with the real one like any step.
//!
//! That last server runs every step of a scenario with shard steps, to hold the same objects.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::compare;
use crate::corpus::{Expect, ShardField, Step};
use crate::normalize::normalize;
use crate::send::{Answer, Selector, Side};

/// What the three servers answered to a shard step.
pub struct Outcome {
    /// The embedded server without the gate against the real one.
    pub differences: Vec<compare::Difference>,
    /// What the servers answered against what they should (each line names the server).
    pub wrong: Vec<String>,
    /// The compared answers, normalized: the embedded server's without the gate, the real one's.
    pub compared: (Answer, Answer),
}

/// Sends `step` to the gated embedded server, the real one and the embedded one without the
/// gate (the first two also without the selector), all at once: a watch lasts its
/// `timeoutSeconds`, five in a row would take five times as long.
pub async fn run(step: &Step, [gated, real, ungated]: &mut [Side; 3], kept: &mut Kept) -> Outcome {
    let ((sharded, full), (with, without), ignored) = tokio::join!(
        async {
            tokio::join!(
                gated.answer(step, Selector::With),
                gated.answer(step, Selector::Without)
            )
        },
        async {
            tokio::join!(
                real.answer(step, Selector::With),
                real.answer(step, Selector::Without)
            )
        },
        ungated.answer(step, Selector::With),
    );
    gated.save(step, &sharded);
    real.save(step, &with);
    ungated.save(step, &ignored);
    let mut wrong: Vec<String> = check_gated(step, &sharded, &full, kept)
        .into_iter()
        .map(|w| format!("embedded with ShardedListAndWatch (documented v1.36 answer): {w}"))
        .collect();
    wrong.extend(
        check_ignored(step, &with, &without)
            .into_iter()
            .map(|w| format!("real v1.34 (a server without the feature ignores it): {w}")),
    );
    let compared = (normalize(&ignored), normalize(&with));
    Outcome {
        differences: compare::compare(step, &compared.0, &compared.1),
        wrong,
        compared,
    }
}

/// Answers kept by `keep`: name → the keys of their objects (a watch: events).
pub type Kept = BTreeMap<String, Vec<String>>;

/// 64-bit FNV-1a (the hash of `hash/fnv.New64a`, which the server shards by).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The hash of `object`'s sharded field (absent: the empty string's).
fn hash(field: ShardField, object: &Value) -> u64 {
    let value = match field {
        ShardField::Uid => &object["metadata"]["uid"],
        ShardField::Namespace => &object["metadata"]["namespace"],
    };
    fnv1a64(value.as_str().unwrap_or_default().as_bytes())
}

/// The entries of an answer: a list's items or a watch's events.
fn entries<'a>(step: &Step, body: &'a Value) -> Option<&'a Vec<Value>> {
    if step.watch {
        body.as_array()
    } else {
        body["items"].as_array()
    }
}

/// The object of an entry.
fn object<'a>(step: &Step, entry: &'a Value) -> &'a Value {
    if step.watch { &entry["object"] } else { entry }
}

/// `namespace/name` of an item, `TYPE namespace/name` of an event.
fn key(step: &Step, entry: &Value) -> String {
    let meta = &object(step, entry)["metadata"];
    let name = format!(
        "{}/{}",
        meta["namespace"].as_str().unwrap_or_default(),
        meta["name"].as_str().unwrap_or_default()
    );
    if step.watch {
        format!("{} {name}", entry["type"].as_str().unwrap_or_default())
    } else {
        name
    }
}

fn keys<'a>(step: &Step, entries: impl IntoIterator<Item = &'a Value>) -> Vec<String> {
    entries.into_iter().map(|e| key(step, e)).collect()
}

/// What is wrong with the gated server's `sharded` answer to `step`, given its `full` answer
/// to the same request without the selector; keeps the answer when `expect` says so.
fn check_gated(step: &Step, sharded: &Answer, full: &Answer, kept: &mut Kept) -> Vec<String> {
    let Some(expect) = &step.expect else {
        return Vec::new();
    };
    if sharded.code != expect.code {
        return vec![format!(
            "status {}, expected {}: {}",
            sharded.code,
            expect.code,
            crate::short(&sharded.body)
        )];
    }
    if expect.code == 200 {
        check_selected(step, expect, sharded, full, kept)
    } else {
        check_refusal(step, expect, sharded)
    }
}

fn check_refusal(step: &Step, expect: &Expect, answer: &Answer) -> Vec<String> {
    let mut wrong = Vec::new();
    // A refused watch is read as the one line of its Status.
    let body = if step.watch {
        &answer.body[0]
    } else {
        &answer.body
    };
    if body["kind"] != "Status" || body["status"] != "Failure" || body["code"] != expect.code {
        wrong.push(format!(
            "not a Failure Status of code {}: {}",
            expect.code,
            crate::short(body)
        ));
    }
    if expect.code == 400 && body["reason"] != "BadRequest" {
        wrong.push(format!(
            "reason {}, expected \"BadRequest\"",
            body["reason"]
        ));
    }
    let message = body["message"].as_str().unwrap_or_default();
    if let Some(want) = &expect.message
        && message != want
    {
        wrong.push(format!("message {message:?}, expected {want:?}"));
    }
    if let Some(prefix) = &expect.message_prefix
        && !message.starts_with(prefix.as_str())
    {
        wrong.push(format!(
            "message {message:?}, expected it to begin {prefix:?}"
        ));
    }
    wrong
}

fn check_selected(
    step: &Step,
    expect: &Expect,
    sharded: &Answer,
    full: &Answer,
    kept: &mut Kept,
) -> Vec<String> {
    let mut wrong = Vec::new();
    let (Some(field), Ok(ranges)) = (expect.field, expect.bounds()) else {
        return vec!["the expectation has no field or ranges".into()];
    };
    if !step.watch {
        let echoed = &sharded.body["metadata"]["shardInfo"]["selector"];
        if echoed.as_str() != step.shard_selector.as_deref() {
            wrong.push(format!(
                "metadata.shardInfo.selector is {echoed}, expected the selector sent"
            ));
        }
        if let Some(count) = sharded.body["metadata"].get("remainingItemCount") {
            wrong.push(format!(
                "a sharded list has remainingItemCount {count}, expected none"
            ));
        }
    }
    if full.code != 200 {
        wrong.push(format!(
            "the same request without the selector answered {}",
            full.code
        ));
        return wrong;
    }
    let (Some(got), Some(all)) = (entries(step, &sharded.body), entries(step, &full.body)) else {
        wrong.push("an answer without items (a watch: events)".into());
        return wrong;
    };
    let in_range = |entry: &&Value| {
        let h = u128::from(hash(field, object(step, entry)));
        ranges.iter().any(|(start, end)| *start <= h && h < *end)
    };
    let want: Vec<&Value> = all.iter().filter(in_range).collect();
    let (got_keys, want_keys) = (keys(step, got), keys(step, want.iter().copied()));
    if got_keys != want_keys {
        let outside: Vec<String> = got
            .iter()
            .filter(|e| !in_range(e))
            .map(|e| {
                format!(
                    "{} (hash {:#018x})",
                    key(step, e),
                    hash(field, object(step, e))
                )
            })
            .collect();
        wrong.push(format!(
            "returned {got_keys:?}, expected {want_keys:?} (the answer without the selector, only what hashes into the ranges); outside the ranges: {outside:?}"
        ));
    } else if got.iter().ne(want.iter().copied()) {
        wrong.push(
            "the same objects as the answer without the selector, with other contents".into(),
        );
    }
    if let Some(count) = expect.count
        && got.len() != count
    {
        wrong.push(format!("{} returned, expected {count}", got.len()));
    }
    if let Some(name) = &expect.keep {
        kept.insert(name.clone(), got_keys);
    }
    if !expect.partition.is_empty() {
        let mut union = Vec::new();
        for name in &expect.partition {
            match kept.get(name) {
                Some(keys) => union.extend(keys.iter().cloned()),
                None => wrong.push(format!("no answer was kept as {name:?}")),
            }
        }
        let mut whole = keys(step, all);
        union.sort();
        whole.sort();
        if union != whole {
            wrong.push(format!(
                "{:?} together hold {union:?}, the answer without the selector {whole:?}: not each exactly once",
                expect.partition
            ));
        }
    }
    wrong
}

/// What is wrong with the real server's answer to `step`: v1.34 predates the feature, so it
/// ignores the unknown parameter and answers as without it (`without`).
fn check_ignored(step: &Step, with: &Answer, without: &Answer) -> Vec<String> {
    let mut wrong = Vec::new();
    if with.code != 200 {
        wrong.push(format!(
            "status {}, expected 200 (the parameter ignored)",
            with.code
        ));
    }
    // `compare` names its sides embedded and real; here they are with and without the selector.
    for d in compare::compare(step, &normalize(with), &normalize(without)) {
        wrong.push(format!(
            "{}: with the selector {} | without it {}",
            d.at,
            crate::short(&d.embedded),
            crate::short(&d.real)
        ));
    }
    wrong
}
