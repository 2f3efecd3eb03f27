//! Which live member owns which slot: every replica computes the same assignment from the same
//! Leases (the live members and the slots each one claims), without talking to the others.
//!
//! Rendezvous (highest random weight) hashing with bounded loads, sticky to the current claims:
//! each (member, slot) pair has a pseudo-random score, and each member may own an equal share
//! (`slots / members`, one more for the first `slots % members` members, those claiming most).
//! First every member keeps the slots it already claims, best score first, up to its share;
//! then the slots left over go to the members with room, best score first. So a member joining
//! takes only the share the others have above their new share, and a member leaving hands only
//! its own slots to the others: about a fair share of the ring moves (the unit tests measure
//! it). With no claims at all (a fresh start) it is plain rendezvous hashing with bounded loads.

use std::collections::{BTreeMap, BTreeSet};

use super::hash::fnv1a64;

/// splitmix64's finalizer: spreads FNV's output (similar inputs, similar hashes) over 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn score(member: u64, slot: u16) -> u64 {
    mix(member ^ mix(u64::from(slot).wrapping_add(0x9e37_79b9_7f4a_7c15)))
}

/// A slot owner per slot, by member identity.
pub type Assignment = BTreeMap<String, BTreeSet<u16>>;

/// The slots of `total` each member owns, given the slots each one claims now. `members`
/// may be in any order (a member listed twice counts once, with its first claims); the result
/// depends only on the set. Every slot has exactly one owner when there is at least one
/// member, and shares differ by at most one.
pub fn assign(members: &[(&str, &BTreeSet<u16>)], total: u16) -> Assignment {
    let mut ids: Vec<(u64, &str, &BTreeSet<u16>)> = Vec::new();
    for (m, claims) in members {
        if !ids.iter().any(|(_, seen, _)| seen == m) {
            ids.push((fnv1a64(m.as_bytes()), *m, *claims));
        }
    }
    ids.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut owned: Assignment = ids
        .iter()
        .map(|(_, m, _)| (m.to_string(), BTreeSet::new()))
        .collect();
    if ids.is_empty() {
        return owned;
    }
    let n = ids.len();
    let (base, extra) = (usize::from(total) / n, usize::from(total) % n);
    // The extra slots go to the members claiming most (then by identity hash): the fewest moves.
    let mut by_claims: Vec<usize> = (0..n).collect();
    by_claims.sort_by_key(|i| (std::cmp::Reverse(ids[*i].2.len()), ids[*i].0, ids[*i].1));
    let mut capacity = vec![base; n];
    for i in by_claims.into_iter().take(extra) {
        capacity[i] += 1;
    }
    let mut taken = vec![false; usize::from(total)];
    let mut load = vec![0usize; n];
    let mut place = |pairs: Vec<(u64, usize, u16)>| {
        for (_, i, slot) in pairs {
            if !taken[usize::from(slot)] && load[i] < capacity[i] {
                taken[usize::from(slot)] = true;
                load[i] += 1;
                owned
                    .get_mut(ids[i].1)
                    .expect("every member has an entry")
                    .insert(slot);
            }
        }
    };
    let sorted = |mut pairs: Vec<(u64, usize, u16)>| {
        pairs.sort_unstable_by(|a, b| b.cmp(a));
        pairs
    };
    // Keep what is claimed, best score first, up to each share.
    let claimed: Vec<(u64, usize, u16)> = ids
        .iter()
        .enumerate()
        .flat_map(|(i, (h, _, claims))| {
            claims
                .iter()
                .filter(|s| **s < total)
                .map(move |s| (score(*h, *s), i, *s))
        })
        .collect();
    place(sorted(claimed));
    // The rest to whoever has room, best score first.
    let all: Vec<(u64, usize, u16)> = ids
        .iter()
        .enumerate()
        .flat_map(|(i, (h, _, _))| (0..total).map(move |s| (score(*h, s), i, s)))
        .collect();
    place(sorted(all));
    owned
}

/// How many slots change owner between two assignments of the same slots.
pub fn moved(before: &Assignment, after: &Assignment) -> usize {
    let owner = |a: &Assignment| -> BTreeMap<u16, String> {
        a.iter()
            .flat_map(|(m, slots)| slots.iter().map(move |s| (*s, m.clone())))
            .collect()
    };
    let (b, a) = (owner(before), owner(after));
    a.iter().filter(|(s, m)| b.get(s) != Some(m)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize, seed: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                format!(
                    "manager-{seed}-{i}_{:016x}",
                    fnv1a64(format!("{seed}/{i}").as_bytes())
                )
            })
            .collect()
    }

    /// The assignment of `members`, each claiming what `current` gives it.
    fn run(members: &[String], current: &Assignment, total: u16) -> Assignment {
        let none = BTreeSet::new();
        let input: Vec<(&str, &BTreeSet<u16>)> = members
            .iter()
            .map(|m| (m.as_str(), current.get(m).unwrap_or(&none)))
            .collect();
        assign(&input, total)
    }

    #[test]
    fn every_slot_has_one_owner_and_shares_differ_by_at_most_one() {
        for n in 1..=9 {
            let members = names(n, 1);
            let a = run(&members, &Assignment::new(), 64);
            let mut all: Vec<u16> = a.values().flatten().copied().collect();
            all.sort();
            assert_eq!(all, (0..64).collect::<Vec<_>>(), "{n} members");
            let sizes: Vec<usize> = a.values().map(BTreeSet::len).collect();
            assert!(
                sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
                "{sizes:?}"
            );
            // Order and duplicates of the input do not matter.
            let mut shuffled: Vec<String> = members.iter().rev().cloned().collect();
            shuffled.push(members[0].clone());
            assert_eq!(run(&shuffled, &Assignment::new(), 64), a);
            // A settled assignment is its own fixed point: nothing moves without a change.
            assert_eq!(run(&members, &a, 64), a);
        }
        assert!(assign(&[], 64).is_empty());
    }

    /// Joining or leaving moves a fair share of the ring: measured over many member sets, a
    /// join moves exactly the newcomer's share (`slots / (n + 1)`, rounded either way) and a
    /// leave exactly the leaver's slots. From a cold start (no claims) the assignment is plain
    /// bounded-load rendezvous, which moves more (printed for comparison).
    #[test]
    fn joins_and_leaves_move_a_fair_share() {
        const TOTAL: u16 = 64;
        const TRIALS: usize = 200;
        for n in 1..=8usize {
            let (mut joined, mut cold) = (0usize, 0usize);
            for seed in 0..TRIALS {
                let members = names(n + 1, seed);
                let before = run(&members[..n], &Assignment::new(), TOTAL);
                let after = run(&members, &before, TOTAL);
                let m = moved(&before, &after);
                let newcomer = after[&members[n]].len();
                assert_eq!(m, newcomer, "a join moves only the newcomer's slots");
                assert!(newcomer.abs_diff(usize::from(TOTAL) / (n + 1)) <= 1);
                joined += m;
                cold += moved(&before, &run(&members, &Assignment::new(), TOTAL));
                // The newcomer leaves again: only its slots move, to the others.
                let left = run(&members[..n], &after, TOTAL);
                assert_eq!(moved(&after, &left), newcomer);
                // A member leaves: only its slots move.
                let rest: Vec<String> = members[1..].to_vec();
                let after_leave = run(&rest, &after, TOTAL);
                assert_eq!(moved(&after, &after_leave), after[&members[0]].len());
            }
            let ideal = f64::from(TOTAL) / (n as f64 + 1.0);
            println!(
                "{n} -> {} members: {:.1} of {TOTAL} slots moved (ideal {ideal:.1}); without the current claims {:.1}",
                n + 1,
                joined as f64 / TRIALS as f64,
                cold as f64 / TRIALS as f64,
            );
        }
    }
}
